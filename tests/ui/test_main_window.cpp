// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "document/analysis_runner.hpp"
#include "models/logical_axes_model.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "document/app_settings.hpp"
#include "main_window.hpp"
#include "charts/comm_chart.hpp"
#include "charts/memory_chart.hpp"
#include "panels/inspect_panel.hpp"
#include "panels/sharding_panel.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/physical_view.hpp"
#include "views/view_catalog.hpp"
#include "document/scenario_document.hpp"

#include <QComboBox>
#include <QFile>
#include <QTreeWidget>
#include <QAbstractButton>
#include <QApplication>
#include <QDockWidget>
#include <QTimer>
#include <QMessageBox>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMimeData>
#include <QPushButton>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <memory>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
// Where each device sits along `axis`, as the physical view colours it.
std::vector<int> coordinatesAlong(const PhysicalView& view, const std::string& axis) {
  const auto analysis = view.analysis();
  if (!analysis) return {};
  MeshIndex index(analysis->mesh);
  std::vector<int> out;
  for (int pos = 0; pos < index.deviceCount(); ++pos) out.push_back(index.coordinate(pos, index.axisIndex(axis)));
  return out;
}
// v4 4x4x8 with axes JAX places without splitting a physical axis (8 x 4 x 4 = z, x, y), as the
// saved starting point of a test (not modified, nothing to undo).
void useWholeAxisMesh(MainWindow& window) {
  window.document()->edit("setup", [](Scenario& s) { s.mesh.axes = {{"data", 8, 1}, {"fsdp", 4, 1}, {"tp", 4, 1}}; });
  window.document()->undoStack()->clear();
  window.document()->undoStack()->setClean();
}
} // namespace

TEST_CASE("the main window opens the default scenario on v4 4x4x8", "[ui]") {
  test::app();
  MainWindow window;
  REQUIRE(window.waitForAnalysis());
  CHECK(window.windowTitle().startsWith("Untitled"));
  CHECK_FALSE(window.isWindowModified());
  CHECK_FALSE(window.logicalPanel()->errorShown());
  const auto analysis = window.physicalView()->analysis();
  REQUIRE(analysis);
  CHECK(analysis->mesh.devices.size() == 128);
  CHECK(analysis->mesh.axis_names == std::vector<std::string>{"dp", "fsdp", "tp"});
  CHECK(analysis->mesh.shape() == Shape{2, 16, 4});
  CHECK(window.document()->scenario().model.preset == "llama-3.1-8b");
}

TEST_CASE("a mesh that needs a split physical axis offers the one-click fix", "[ui]") {
  test::app();
  MainWindow window;
  REQUIRE(window.waitForAnalysis());
  const auto valid = window.physicalView()->analysis();
  // dp = 2 is no product of whole torus axes (4, 4, 8): without splitting JAX refuses.
  window.document()->edit("forbid", [](Scenario& s) { s.mesh.allow_split_physical_axes = false; });
  REQUIRE(window.waitForAnalysis());
  CHECK(window.runner()->errorKind() == ErrorKind::NotImplementedError);
  CHECK(window.logicalPanel()->errorShown());
  CHECK(window.logicalPanel()->errorLabel()->text().contains("NotImplementedError"));
  CHECK(window.physicalView()->analysis() == valid);
  REQUIRE_FALSE(window.logicalPanel()->fixButton()->isHidden());
  QTest::mouseClick(window.logicalPanel()->fixButton(), Qt::LeftButton);
  CHECK(window.document()->scenario().mesh.allow_split_physical_axes);
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(window.logicalPanel()->errorShown());
  CHECK(window.physicalView()->analysis() != valid);
  CHECK(window.physicalView()->analysis()->mesh.shape() == Shape{2, 16, 4});
}

TEST_CASE("dragging an axis to a new position changes the physical view's assignment", "[ui]") {
  test::app();
  MainWindow window;
  window.resize(1600, 1000);
  useWholeAxisMesh(window);
  REQUIRE(window.waitForAnalysis());
  const auto before = coordinatesAlong(*window.physicalView(), "tp");
  REQUIRE(before.size() == 128);
  LogicalAxesModel* model = window.logicalPanel()->model();
  // The drag path of the table: the model's mime data for row 2 (tp) dropped before row 0.
  std::unique_ptr<QMimeData> drag(model->mimeData({model->index(2, 0)}));
  REQUIRE(drag);
  CHECK(model->canDropMimeData(drag.get(), Qt::MoveAction, 0, 0, {}));
  model->dropMimeData(drag.get(), Qt::MoveAction, 0, 0, {});
  REQUIRE(window.waitForAnalysis());
  const auto analysis = window.physicalView()->analysis();
  CHECK(analysis->mesh.axis_names == std::vector<std::string>{"tp", "data", "fsdp"});
  CHECK(model->index(0, LogicalAxesModel::Name).data().toString() == "tp");
  const auto after = coordinatesAlong(*window.physicalView(), "tp");
  CHECK(after != before);
  CHECK(window.isWindowModified());
}

TEST_CASE("an invalid size shows the error inline and keeps the last valid analysis", "[ui]") {
  test::app();
  MainWindow window;
  useWholeAxisMesh(window);
  REQUIRE(window.waitForAnalysis());
  const auto valid = window.physicalView()->analysis();
  REQUIRE(valid);
  LogicalAxesModel* model = window.logicalPanel()->model();
  // 3 x 4 x 4 = 48 devices on a 128-chip slice.
  REQUIRE(model->setData(model->index(0, LogicalAxesModel::Ici), "3"));
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis() == valid);
  CHECK(window.runner()->errorKind().has_value());
  CHECK(window.logicalPanel()->errorShown());
  CHECK(window.logicalPanel()->errorLabel()->text().contains("ValueError"));
  // Non-numbers never reach the scenario.
  CHECK_FALSE(model->setData(model->index(0, LogicalAxesModel::Ici), "three"));
  // Back to a valid size: the error goes and a new analysis arrives.
  REQUIRE(model->setData(model->index(0, LogicalAxesModel::Ici), "-1"));
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(window.logicalPanel()->errorShown());
  CHECK(window.physicalView()->analysis() != valid);
  CHECK(window.physicalView()->analysis()->axes.front().size == 8);
}

TEST_CASE("undo and redo restore the scenario and the analysis", "[ui]") {
  test::app();
  MainWindow window;
  window.show();
  useWholeAxisMesh(window);
  REQUIRE(window.waitForAnalysis());
  const Scenario original = window.document()->scenario();
  LogicalAxesModel* model = window.logicalPanel()->model();
  model->moveAxis(0, 2);
  REQUIRE(window.waitForAnalysis());
  const Scenario moved = window.document()->scenario();
  CHECK(moved.mesh.axes.back().name == "data");

  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier);
  CHECK(window.document()->scenario() == original);
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis()->mesh.axis_names.front() == "data");
  CHECK_FALSE(window.isWindowModified());

  QTest::keyClick(&window, Qt::Key_Z, Qt::ControlModifier | Qt::ShiftModifier);
  CHECK(window.document()->scenario() == moved);
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis()->mesh.axis_names.back() == "data");
}

TEST_CASE("save then reopen gives the same workspace and a failed save keeps the old file", "[ui]") {
  test::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("w.shardscope.json");
  MainWindow window;
  useWholeAxisMesh(window);
  window.logicalPanel()->model()->setData(window.logicalPanel()->model()->index(1, LogicalAxesModel::Name), "model");
  REQUIRE(window.saveFile(path));
  CHECK(window.windowTitle().startsWith("w.shardscope.json"));
  CHECK_FALSE(window.isWindowModified());
  const Scenario saved = window.document()->scenario();

  MainWindow reopened;
  REQUIRE(reopened.openFile(path));
  CHECK(reopened.document()->scenario() == saved);
  CHECK(reopened.document()->scenario().mesh.axes[1].name == "model");
  REQUIRE(reopened.waitForAnalysis());
  REQUIRE(reopened.physicalView()->analysis());
  CHECK(reopened.physicalView()->analysis()->mesh.axis_names[1] == "model");

  // A directory cannot be written as a file: the save fails, says why, and nothing changes.
  QString error;
  CHECK_FALSE(window.saveFile(dir.path(), &error));
  CHECK_FALSE(error.isEmpty());
  // Opening garbage fails with the reason and keeps the current workspace.
  QFile bad(dir.filePath("bad.json"));
  REQUIRE(bad.open(QIODevice::WriteOnly));
  bad.write("{\"mesh\": ");
  bad.close();
  CHECK_FALSE(reopened.openFile(bad.fileName(), &error));
  CHECK(error.contains("JSON"));
  CHECK(reopened.document()->scenario() == saved);
}

TEST_CASE("applying a rule set changes the memory chart's maximum", "[ui][memory]") {
  test::app();
  MainWindow window;
  REQUIRE(window.waitForAnalysis());
  REQUIRE(window.memoryChart()->hasData());
  const double sharded = window.memoryChart()->shownMaxBytes();
  CHECK(sharded == Approx(window.physicalView()->analysis()->memory.max_bytes));
  // From FSDP+TP to pure data parallelism: every device holds every parameter.
  QComboBox* presets = window.shardingPanel()->presetCombo();
  const int dp = presets->findData("dp");
  REQUIRE(dp >= 0);
  emit presets->activated(dp);
  REQUIRE(window.waitForAnalysis());
  const double replicated = window.memoryChart()->shownMaxBytes();
  CHECK(replicated > 4 * sharded);
  // Undo brings the sharded maximum back.
  window.document()->undoStack()->undo();
  REQUIRE(window.waitForAnalysis());
  CHECK(window.memoryChart()->shownMaxBytes() == Approx(sharded));
}

TEST_CASE("the main window exports every view of the catalogue", "[ui][export]") {
  test::app();
  MainWindow window;
  window.resize(1600, 1000);
  window.show();
  REQUIRE(window.waitForAnalysis());
  REQUIRE(window.selectParam("model.layers.0.mlp.down_proj.weight"));
  QTemporaryDir dir;
  for (const ViewKind& kind : viewKinds()) {
    INFO(kind.name);
    const QString path = dir.filePath(QString::fromLatin1(kind.name) + ".png");
    QString error;
    REQUIRE(window.exportTo(kind, path, &error));
    const QImage image(path);
    // Painted views at the catalogue's size, charts as large as they are on screen.
    const std::string_view name = kind.name;
    const QSize expected = name == "memory" ? window.memoryChart()->size()
                           : name == "comm" ? window.commChart()->size()
                                            : kind.size;
    CHECK(kind.drawnAsWidget == (name == "memory" || name == "comm"));
    CHECK(image.size() == expected);
  }
  QString error;
  CHECK_FALSE(window.exportTo(*findViewKind("physical"), dir.filePath("v.gif"), &error));
  CHECK(error.contains(".gif"));
}

TEST_CASE("Help > Getting Started offers the ways in and Start a Lesson opens the Learn dock", "[ui][newcomer]") {
  test::app();
  MainWindow window;
  QAction* action = window.findChild<QAction*>("gettingStartedAction");
  REQUIRE(action);
  // F1 opens Getting Started; About keeps no key of its own.
  CHECK(action->shortcut() == QKeySequence(Qt::Key_F1));
  auto* about = window.findChild<QAction*>("aboutAction");
  REQUIRE(about);
  CHECK(about->shortcut().isEmpty());
  auto* learn = window.findChild<QDockWidget*>("LearnDock");
  REQUIRE(learn);
  learn->hide();
  QString text;
  QStringList buttons;
  QTimer::singleShot(0, &window, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    text = box->text();
    for (QAbstractButton* b : box->buttons()) buttons << b->text();
    for (QAbstractButton* b : box->buttons())
      if (b->text() == "Start a Lesson") b->click();
  });
  action->trigger();
  CHECK(text.contains("Open an example"));
  CHECK(text.contains("Import a MaxText config"));
  CHECK(text.contains("the Inspect dock maps it onto this workspace's mesh"));
  CHECK(buttons.contains("Open an Example…"));
  CHECK(buttons.contains("Read a Program or OOM Report…"));
  CHECK(buttons.contains("Import a MaxText Config…"));
  CHECK_FALSE(learn->isHidden());
}

TEST_CASE("Getting Started opens by itself on the first start, and only then", "[ui][newcomer]") {
  test::app();
  MainWindow window;
  AppSettings().setGettingStartedShown(false); // a first start
  int shown = 0;
  const auto closeBox = [&] {
    if (auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
        box && box->objectName() == "gettingStartedBox") {
      ++shown;
      box->done(0);
    }
  };
  QTimer::singleShot(0, &window, closeBox);
  CHECK(window.showGettingStartedOnFirstRun());
  CHECK(shown == 1);
  QTimer::singleShot(0, &window, closeBox); // would close a second one; none comes
  CHECK_FALSE(window.showGettingStartedOnFirstRun());
  QApplication::processEvents();
  CHECK(shown == 1);
  CHECK(AppSettings().gettingStartedShown());
}

TEST_CASE("opening a compiled program fills the Inspect dock beside the workspace", "[ui][inspect]") {
  test::app();
  MainWindow window;
  REQUIRE(window.waitForAnalysis(60000));
  const std::string before = window.document()->scenario().name;
  // XLA's test module with two all-gather-start/done pairs (tests/data/inspect/README.md): two
  // collectives, each pair counted once.
  const QString hlo = QString(SHARDSCOPE_TEST_DATA) + "/inspect/h02_async_allgather_overlapped.hlo";
  REQUIRE(MainWindow::isCompiledProgramFile(hlo));
  CHECK_FALSE(MainWindow::isCompiledProgramFile(QString(SHARDSCOPE_TEST_DATA) + "/maxtext/base.yml"));
  REQUIRE(window.openInteractively(hlo));
  auto* dock = window.findChild<QDockWidget*>("InspectDock");
  REQUIRE(dock);
  CHECK_FALSE(dock->isHidden());
  CHECK(window.document()->scenario().name == before); // the workspace stays
  QTreeWidget* tree = window.inspectPanel()->tree();
  QTreeWidgetItem* collectives = nullptr;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0).startsWith("Collectives")) collectives = tree->topLevelItem(i);
  REQUIRE(collectives);
  CHECK(collectives->childCount() == 2);
  CHECK(collectives->child(0)->text(0).contains("all-gather (async)"));
  CHECK(window.inspectPanel()->header()->text().contains("h02_async_allgather_overlapped.hlo"));
}

TEST_CASE("selecting a collective in the Inspect dock colours the groups along its axis", "[ui][inspect]") {
  test::app();
  MainWindow window; // the built-in workspace: v4 4x4x8, dp 2 x fsdp 16 x tp 4
  REQUIRE(window.waitForAnalysis(60000));
  // An all-reduce over groups of 4 consecutive devices of 128: the mesh's last axis, tp (index 2).
  QTemporaryDir dir;
  const QString file = dir.filePath("program.hlo");
  {
    QFile out(file);
    REQUIRE(out.open(QIODevice::WriteOnly));
    out.write("HloModule m, num_partitions=128\n\nadd {\n  x = f32[] parameter(0)\n  y = f32[] parameter(1)\n"
              "  ROOT s = f32[] add(x, y)\n}\n\nENTRY main {\n  p = f32[1024]{0} parameter(0)\n"
              "  ROOT ar = f32[1024]{0} all-reduce(p), channel_id=1, replica_groups=[32,4]<=[128], "
              "use_global_device_ids=true, to_apply=add\n}\n");
  }
  REQUIRE(window.inspectFile(file));
  CHECK(window.inspectPanel()->header()->text().contains("priced on the workspace"));
  QTreeWidget* tree = window.inspectPanel()->tree();
  QTreeWidgetItem* collective = nullptr;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0).startsWith("Collectives")) collective = tree->topLevelItem(i)->child(0);
  REQUIRE(collective);
  CHECK(collective->text(2) == "tp");
  window.selection()->setAxis(0);
  collective->setSelected(true);
  CHECK(window.selection()->mode() == OverlayMode::Group);
  CHECK(window.selection()->axis() == 2);
}

TEST_CASE("selecting an argument in the Inspect dock shows its blocks on the views", "[ui][inspect]") {
  test::app();
  MainWindow window; // the built-in workspace: v4 4x4x8, dp 2 x fsdp 16 x tp 4 (128 devices)
  REQUIRE(window.waitForAnalysis(60000));
  // JAX's lowered text: a [4096, 1024] weight split 32 ways along its rows and 4 along its columns,
  // device ids in mesh order: 128 blocks of [128, 256], each on one device.
  QTemporaryDir dir;
  const QString file = dir.filePath("lowered.mlir");
  {
    QFile out(file);
    REQUIRE(out.open(QIODevice::WriteOnly));
    out.write("module @jit_f {\n  func.func public @main(%arg0: tensor<4096x1024xbf16> {jax.arg_info = \"w\", "
              "mhlo.sharding = \"{devices=[32,4]<=[128]}\"}) -> (tensor<4096x1024xbf16>) {\n"
              "    return %arg0 : tensor<4096x1024xbf16>\n  }\n}\n");
  }
  REQUIRE(window.inspectFile(file));
  QTreeWidget* tree = window.inspectPanel()->tree();
  QTreeWidgetItem* argument = nullptr;
  for (int i = 0; i < tree->topLevelItemCount(); ++i)
    if (tree->topLevelItem(i)->text(0).startsWith("Arguments")) argument = tree->topLevelItem(i)->child(0);
  REQUIRE(argument);
  CHECK(window.selection()->decoded() == nullptr);
  argument->setSelected(true);
  // The Sharding dock's Decode field takes it, decoded on the workspace's mesh.
  CHECK(window.shardingPanel()->hloField()->text() == "{devices=[32,4]<=[128]}");
  CHECK(window.shardingPanel()->hloShapeField()->text() == "4096,1024");
  REQUIRE(window.selection()->decoded() != nullptr);
  CHECK(window.selection()->decoded()->blocks.blocks.size() == 128);
  CHECK(window.selection()->mode() == OverlayMode::Shard);
}
