// SPDX-License-Identifier: Apache-2.0
// The main window on a laptop screen: its minimum size with the default docks (and the Pipeline
// dock), a size it never changes by itself, the toolbar's Undo button, View > Reset layout, keys
// meant for a view that must not edit a table, and the unsaved-changes prompt's default answer.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "models/logical_axes_model.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "panels/step_panel.hpp"
#include "views/pipeline_timeline_view.hpp"

#include <QAction>
#include <QCheckBox>
#include <QComboBox>
#include <QDir>
#include <QDockWidget>
#include <QHeaderView>
#include <QLabel>
#include <QMessageBox>
#include <QPushButton>
#include <QScrollArea>
#include <QScrollBar>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QToolBar>
#include <QToolButton>
#include <QUndoStack>

#include <catch2/catch.hpp>

#include <filesystem>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
// A common laptop screen (the smallest): the whole window, docks included, must fit.
constexpr int laptopWidth = 1366, laptopHeight = 768;

QStringList exampleWorkspaces() {
  const QDir dir(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios"));
  QStringList out;
  for (const QString& name : dir.entryList({"*.shardscope.json"}, QDir::Files, QDir::Name)) out << dir.filePath(name);
  return out;
}
} // namespace

TEST_CASE("the main window fits 1366x768 with its default docks and never resizes itself", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.resize(laptopWidth, laptopHeight);
  window.show();
  REQUIRE(window.waitForAnalysis());
  QApplication::processEvents();
  CHECK(window.minimumSizeHint().width() <= laptopWidth);
  CHECK(window.minimumSizeHint().height() <= laptopHeight);
  CHECK(window.size() == QSize(laptopWidth, laptopHeight));

  // Every example, the pipeline one with its dock open, leaves the window as it was.
  const QStringList examples = exampleWorkspaces();
  REQUIRE(examples.size() >= 6);
  for (const QString& path : examples) {
    INFO(path.toStdString());
    REQUIRE(window.openFile(path));
    REQUIRE(window.waitForAnalysis(60000));
    QApplication::processEvents();
    CHECK(window.minimumSizeHint().width() <= laptopWidth);
    CHECK(window.minimumSizeHint().height() <= laptopHeight);
    CHECK(window.size() == QSize(laptopWidth, laptopHeight));
  }
  REQUIRE(window.raiseDock("Pipeline"));
  QApplication::processEvents();
  // Opened on a 768-pixel screen, the timeline gets a usable height, not a sliver.
  CHECK(window.findChild<QDockWidget*>("PipelineDock")->height() >= 200);
  CHECK(window.minimumSizeHint().width() <= laptopWidth);
  CHECK(window.minimumSizeHint().height() <= laptopHeight);
  CHECK(window.size() == QSize(laptopWidth, laptopHeight));
}

TEST_CASE("the default size fits the screen it opens on", "[ui][layout]") {
  // The available size less the frame (16 px across, 40 down), up to 2560x1600: a 1366x768 laptop
  // (about 1366x740 available under a panel), a 1920x1080 monitor and a 4K one.
  CHECK(MainWindow::defaultSizeFor({1366, 740}) == QSize(1350, 700));
  CHECK(MainWindow::defaultSizeFor({1920, 1050}) == QSize(1904, 1010));
  CHECK(MainWindow::defaultSizeFor({1920, 1170}) == QSize(1904, 1130));
  CHECK(MainWindow::defaultSizeFor({3840, 2130}) == QSize(2560, 1600));
}

TEST_CASE("the toolbar's Undo button keeps its width whatever the last edit was", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  auto* bar = window.findChild<QToolBar*>("ScenarioToolBar");
  auto* undo = window.findChild<QAction*>("toolbarUndo");
  REQUIRE(bar);
  REQUIRE(undo);
  QWidget* button = bar->widgetForAction(undo);
  REQUIRE(button);
  CHECK_FALSE(undo->isEnabled());
  const int before = button->sizeHint().width();
  window.document()->edit("Pipeline schedule DualPipeV", [](Scenario& s) { s.mesh.axes[0].name = "data"; });
  QApplication::processEvents();
  CHECK(undo->isEnabled());
  CHECK(button->sizeHint().width() == before);
  CHECK(undo->toolTip() == "Undo Pipeline schedule DualPipeV");
  undo->trigger();
  CHECK(window.document()->scenario().mesh.axes[0].name == "dp");
  CHECK_FALSE(undo->isEnabled());
}

TEST_CASE("View > Reset layout brings back the default docks", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.resize(laptopWidth, laptopHeight);
  window.show();
  REQUIRE(window.waitForAnalysis());
  auto* logical = window.findChild<QDockWidget*>("LogicalDock");
  auto* memory = window.findChild<QDockWidget*>("MemoryDock");
  REQUIRE(logical);
  REQUIRE(memory);
  logical->hide();
  memory->setFloating(true);
  auto* reset = window.findChild<QAction*>("resetLayoutAction");
  REQUIRE(reset);
  reset->trigger();
  QApplication::processEvents();
  CHECK(logical->isVisible());
  CHECK_FALSE(memory->isFloating());
  CHECK(window.dockWidgetArea(memory) == Qt::BottomDockWidgetArea);
  // The default workspace has no pipeline: its dock stays closed.
  CHECK(window.findChild<QDockWidget*>("PipelineDock")->isHidden());
}

TEST_CASE("a '0' typed into the mesh table resets no zoom and edits no cell", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  const Scenario before = window.document()->scenario();
  QTableView* table = window.logicalPanel()->findChild<QTableView*>();
  REQUIRE(table);
  table->setFocus();
  table->setCurrentIndex(window.logicalPanel()->model()->index(1, LogicalAxesModel::Name));
  QTest::keyClick(table, Qt::Key_0);
  QTest::keyClick(table, Qt::Key_Return);
  QApplication::processEvents();
  CHECK(window.document()->scenario() == before);
  CHECK(window.document()->scenario().mesh.axes[1].name == "fsdp");
}

TEST_CASE("the unsaved-changes prompt answers Cancel to Enter", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  window.document()->edit("rename", [](Scenario& s) { s.mesh.axes[0].name = "data"; });
  REQUIRE(window.document()->isModified());
  QAction* newAction = nullptr;
  for (QAction* a : window.findChildren<QAction*>())
    if (a->text() == "&New") newAction = a;
  REQUIRE(newAction);
  bool sawPrompt = false, cancelIsDefault = false;
  QTimer::singleShot(0, &window, [&] {
    auto* box = qobject_cast<QMessageBox*>(QApplication::activeModalWidget());
    if (!box) return;
    sawPrompt = true;
    cancelIsDefault = box->defaultButton() != nullptr && box->defaultButton() == box->button(QMessageBox::Cancel);
    QTest::keyClick(box, Qt::Key_Return); // Enter, as a user in a hurry presses it
  });
  newAction->trigger();
  REQUIRE(sawPrompt);
  CHECK(cancelIsDefault);
  // Cancel kept the edited workspace: nothing saved, nothing discarded.
  CHECK(window.document()->isModified());
  CHECK(window.document()->scenario().mesh.axes[0].name == "data");
}

TEST_CASE("the Step dock is readable at its default size on a laptop screen", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.resize(laptopWidth, laptopHeight);
  window.show();
  window.resetLayout(); // the layout a first start gets: fitted to the screen, bottom docks tabbed
  REQUIRE(window.openFile(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/mixtral-8x7b-ep-v4-128.shardscope.json"));
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.raiseDock("Step"));
  QApplication::processEvents();
  StepPanel* step = window.stepPanel();
  REQUIRE(step->isVisible());
  // The three big figures side by side, each whole and apart from the next.
  const QLabel* figures[] = {step->timeLabel(), step->mfuLabel(), step->tokensLabel()};
  for (const QLabel* f : figures) CHECK(f->width() >= f->sizeHint().width());
  CHECK(figures[0]->geometry().right() < figures[1]->geometry().left());
  CHECK(figures[1]->geometry().right() < figures[2]->geometry().left());
  // Every column as wide as its header and its widest value: nothing cut to "omm tim" or "239 …".
  QTableWidget* table = step->axisTable();
  REQUIRE(table->rowCount() == 3); // fsdp, ep, tp
  for (int col = 0; col < table->columnCount(); ++col) {
    INFO("column " << col);
    const int width = table->columnWidth(col);
    CHECK(width >= table->horizontalHeader()->sectionSizeHint(col));
    CHECK(width >= static_cast<QAbstractItemView*>(table)->sizeHintForColumn(col));
  }
}

TEST_CASE("on a 1920x1200 screen the Pipeline dock shows its whole panel, the memory chart included", "[ui][layout]") {
  test::app();
  MainWindow window;
  window.resize(1920, 1200);
  window.show();
  REQUIRE(
      window.openFile(QString::fromStdString((std::filesystem::path(SHARDSCOPE_SOURCE_DIR) /
                                              "resources/scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json")
                                                 .string())));
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.raiseDock("Pipeline"));
  QApplication::processEvents();
  // The dock's scroll area holds the panel: nothing of it is scrolled out of sight.
  auto* dock = window.findChild<QDockWidget*>("PipelineDock");
  auto* area = qobject_cast<QScrollArea*>(dock->widget());
  REQUIRE(area);
  CHECK(area->viewport()->height() >= area->widget()->sizeHint().height());
  CHECK_FALSE(area->verticalScrollBar()->isVisible());
}

TEST_CASE("on a 1366x768 screen the Pipeline dock wraps its controls and key: no sideways scroll, nothing cut",
          "[ui][layout]") {
  test::app();
  MainWindow window;
  window.resizeWithDefaultLayout(QSize(1366, 768));
  window.show();
  REQUIRE(
      window.openFile(QString::fromStdString((std::filesystem::path(SHARDSCOPE_SOURCE_DIR) /
                                              "resources/scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json")
                                                 .string())));
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.raiseDock("Pipeline"));
  QApplication::processEvents();
  auto* dock = window.findChild<QDockWidget*>("PipelineDock");
  auto* area = qobject_cast<QScrollArea*>(dock->widget());
  REQUIRE(area);
  REQUIRE(area->viewport()->width() < 700); // a tab of the narrow bottom area
  // The panel is as wide as the dock: its controls flow onto a second row, the header wraps.
  CHECK(area->widget()->width() <= area->viewport()->width());
  CHECK_FALSE(area->horizontalScrollBar()->isVisible());
  auto* schedule = area->widget()->findChild<QComboBox*>("pipelineSchedule");
  auto* stages = area->widget()->findChild<QSpinBox*>("pipelineStages");
  auto* fuse = area->widget()->findChild<QCheckBox*>("pipelineFuse");
  REQUIRE(schedule);
  REQUIRE(stages);
  REQUIRE(fuse);
  CHECK(stages->mapTo(area->widget(), QPoint(0, 0)).y() > schedule->mapTo(area->widget(), QPoint(0, 0)).y());
  CHECK(fuse->isHidden()); // Std1F1B takes no fusing: no greyed box costing a row
  // The bottom area takes 45% of the window for the Pipeline tab: every rank's row shows.
  CHECK(dock->height() >= 768 * 45 / 100 - 40);
  // The timeline's key flows onto more rows than one at this width: every entry whole.
  auto* timeline = area->widget()->findChild<PipelineTimelineView*>();
  REQUIRE(timeline);
  CHECK(timeline->legendRows() >= 2);
}
