// SPDX-License-Identifier: Apache-2.0
// Opening one workspace after another: nothing of the previous file survives into the next (the
// selected device and parameter, a colour mode that shows nothing for the new file, the Compare
// pin, the Pipeline dock, the previous file's mesh as the "last valid assignment" of an error).
#include "ui_test_app.hpp"

#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/compare_panel.hpp"
#include "panels/inspect_panel.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "views/physical_view.hpp"
#include "views/view_selection.hpp"

#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QTemporaryDir>
#include <QTreeWidget>

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
QStringList exampleWorkspaces() {
  const QDir dir(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios"));
  QStringList out;
  for (const QString& name : dir.entryList({"*.shardscope.json"}, QDir::Files, QDir::Name)) out << dir.filePath(name);
  // The 8960-chip pod of the README, the largest workspace shipped.
  out << QStringLiteral(SHARDSCOPE_SOURCE_DIR "/docs/screenshots/v5p-full-pod.shardscope.json");
  return out;
}

// Leaves as much per-file view state behind as a user could: a device, a parameter, the shard
// colouring, an axis other than the first, and a Compare pin.
void dirtyViewState(MainWindow& window) {
  const auto analysis = window.runner()->lastValid();
  REQUIRE(analysis);
  REQUIRE_FALSE(analysis->params.empty());
  window.selection()->setDevice(static_cast<int>(analysis->mesh.devices.size()) - 1);
  window.selection()->setParam(QString::fromStdString(analysis->params[0].path));
  window.selection()->setMode(OverlayMode::Shard);
  window.selection()->setAxis(static_cast<int>(analysis->mesh.axis_names.size()) - 1);
  window.comparePanel()->pin();
  REQUIRE(window.comparePanel()->hasPin());
  // A compiled program read beside the workspace (and priced on it).
  REQUIRE(window.inspectFile(QString(SHARDSCOPE_TEST_DATA) + "/inspect/h02_async_allgather_overlapped.hlo"));
  REQUIRE_FALSE(window.findChild<QDockWidget*>("InspectDock")->isHidden());
}

std::vector<std::string> axisNamesOf(const Scenario& s) {
  std::vector<std::string> names;
  for (const auto& axis : s.mesh.axes) names.push_back(axis.name);
  return names;
}
} // namespace

TEST_CASE("opening every example in sequence leaves nothing of the previous file", "[ui][switch]") {
  test::app();
  MainWindow window;
  window.resize(1366, 768);
  window.show();
  REQUIRE(window.waitForAnalysis());
  const QStringList examples = exampleWorkspaces();
  REQUIRE(examples.size() >= 7);
  auto* pipelineDock = window.findChild<QDockWidget*>("PipelineDock");
  REQUIRE(pipelineDock);
  // Twice round, so every file also follows the one after it in name order (the pipeline file
  // follows a non-pipeline one and the other way round, the 8960-chip pod precedes the first).
  for (int round = 0; round < 2; ++round)
    for (const QString& path : examples) {
      INFO(path.toStdString());
      dirtyViewState(window);
      REQUIRE(window.openFile(path));
      REQUIRE(window.waitForAnalysis(60000));
      const auto analysis = window.runner()->lastValid();
      REQUIRE(analysis);
      // The file's own mesh (its axis names as written in it), not the previous one.
      CHECK(window.physicalView()->analysis() == analysis);
      CHECK(analysis->mesh.axis_names == axisNamesOf(window.document()->scenario()));
      CHECK(window.selection()->device() == -1);
      CHECK(window.selection()->devices().empty());
      CHECK(window.selection()->param().isEmpty());
      // Colour by the file's largest axis (the first of equal ones): it splits the most.
      const Shape shape = analysis->mesh.shape();
      CHECK(window.selection()->axis() ==
            static_cast<int>(std::max_element(shape.begin(), shape.end()) - shape.begin()));
      CHECK_FALSE(window.comparePanel()->hasPin());
      const bool pipelined = analysis->pipeline.has_value();
      // A pipeline file colours by rank and opens its dock; any other falls back to coordinates.
      CHECK(window.selection()->mode() == (pipelined ? OverlayMode::Pipeline : OverlayMode::Coordinate));
      CHECK(pipelineDock->isHidden() == !pipelined);
      // The program read beside the previous file goes with it.
      CHECK(window.findChild<QDockWidget*>("InspectDock")->isHidden());
      CHECK(window.inspectPanel()->tree()->topLevelItemCount() == 0);
      CHECK_FALSE(window.logicalPanel()->errorShown());
    }
}

TEST_CASE("a file whose mesh cannot be placed shows no mesh of the file before it", "[ui][switch]") {
  test::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  // v4 4x4x8 is 128 chips; 4 x 4 x 4 = 64 cannot be placed on it.
  const QString broken = dir.filePath("broken.shardscope.json");
  QFile file(broken);
  REQUIRE(file.open(QIODevice::WriteOnly));
  file.write(R"({"format": "shardscope-scenario", "version": 1,
    "topology": {"chip": "v4", "shape": [4, 4, 8]},
    "mesh": {"axes": [{"name": "a", "ici": 4}, {"name": "b", "ici": 4}, {"name": "c", "ici": 4}]},
    "model": {"preset": "llama-3.1-8b"}, "rules": {"preset": "fsdp-tp"}})");
  file.close();

  MainWindow window;
  window.show();
  REQUIRE(window.openFile(SHARDSCOPE_SOURCE_DIR "/docs/screenshots/v5p-full-pod.shardscope.json"));
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.physicalView()->analysis());
  REQUIRE(window.physicalView()->analysis()->mesh.devices.size() == 8960);

  REQUIRE(window.openFile(broken));
  REQUIRE(window.waitForAnalysis());
  CHECK(window.runner()->errorKind().has_value());
  CHECK(window.logicalPanel()->errorShown());
  // The pod is gone from every view, and the error does not claim a last valid assignment.
  CHECK(window.runner()->lastValid() == nullptr);
  CHECK(window.physicalView()->analysis() == nullptr);
  CHECK_FALSE(window.logicalPanel()->errorLabel()->text().contains("last valid"));

  // Within the same file the fallback still works: fix the mesh, then break it by an edit.
  window.document()->edit("fix", [](Scenario& s) { s.mesh.axes[0].ici = 8; });
  REQUIRE(window.waitForAnalysis());
  const auto valid = window.physicalView()->analysis();
  REQUIRE(valid);
  CHECK(valid->mesh.devices.size() == 128);
  window.document()->edit("break", [](Scenario& s) { s.mesh.axes[0].ici = 3; });
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis() == valid);
  CHECK(window.logicalPanel()->errorLabel()->text().contains("last valid"));
}
