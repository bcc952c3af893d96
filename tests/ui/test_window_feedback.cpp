// SPDX-License-Identifier: Apache-2.0
// What the window tells the user: examples open as untitled copies, Pin as A answers and names
// A's model and hardware, charts follow a palette switch at once, and a serving workspace's
// communication chart says in words why there are no times.
#include "ui_test_app.hpp"

#include "charts/comm_chart.hpp"
#include "charts/memory_chart.hpp"
#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "examples_menu.hpp"
#include "panels/compare_panel.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "panels/step_panel.hpp"
#include "panels/suggest_panel.hpp"
#include "panels/table_export.hpp"
#include "views/logical_grid_view.hpp"
#include "views/physical_view.hpp"
#include "views/theme.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <QAction>
#include <QChart>
#include <QChartView>
#include <QClipboard>
#include <QDockWidget>
#include <QDir>
#include <QFile>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSignalSpy>
#include <QStatusBar>
#include <QTableWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QWheelEvent>

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
const QString examples = QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/");
}

TEST_CASE("a shipped example opens as an untitled copy, any other file as itself", "[ui][feedback]") {
  test::app();
  MainWindow window;
  const QString example = examples + "mixtral-8x7b-ep-v4-128.shardscope.json";
  CHECK(MainWindow::isBundledExample(example));
  REQUIRE(window.openFile(example));
  CHECK(window.document()->filePath().isEmpty());
  CHECK(window.document()->displayName() == "mixtral-8x7b-ep-v4-128.shardscope.json (copy)");
  CHECK(window.windowTitle().startsWith("mixtral-8x7b-ep-v4-128.shardscope.json (copy)"));
  CHECK_FALSE(window.isWindowModified());
  CHECK(window.document()->scenario().model.preset == "mixtral-8x7b");

  // A copy of the same file elsewhere is the user's own: it keeps its path.
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString own = dir.filePath("mine.shardscope.json");
  REQUIRE(QFile::copy(example, own));
  CHECK_FALSE(MainWindow::isBundledExample(own));
  REQUIRE(window.openFile(own));
  CHECK(window.document()->filePath() == own);
  CHECK(window.document()->displayName() == "mine.shardscope.json");
}

TEST_CASE("File > Open Example lists every shipped workspace by its own name and opens it as a copy",
          "[ui][feedback]") {
  // The review found "Open an Example" a plain file dialog of file names. The menu names each
  // example by the workspace's own description.
  test::app();
  MainWindow window;
  auto* menu = window.findChild<QMenu*>("examplesMenu");
  REQUIRE(menu);
  emit menu->aboutToShow(); // filled when first shown
  const QList<QAction*> actions = menu->actions();
  const QStringList files = QDir(examples).entryList({"*.json"}, QDir::Files, QDir::Name);
  REQUIRE(files.size() >= 8);
  REQUIRE(actions.size() == files.size());
  QAction* mixtral = nullptr;
  for (int i = 0; i < actions.size(); ++i) {
    INFO(files[i].toStdString());
    CHECK(actions[i]->toolTip().startsWith(files[i]));
    CHECK(actions[i]->text() != files[i]); // a name, not the file name
    if (files[i] == "mixtral-8x7b-ep-v4-128.shardscope.json") mixtral = actions[i];
  }
  REQUIRE(mixtral);
  CHECK(mixtral->text() == "Mixtral-8x7B, expert parallel on a v4-128 (4x4x8)"); // its file's "name"
  mixtral->trigger();
  CHECK(window.document()->scenario().model.preset == "mixtral-8x7b");
  CHECK(window.document()->filePath().isEmpty()); // an untitled copy
}

TEST_CASE("Pin as A raises Compare, says what A is, and the A line names its model and hardware", "[ui][feedback]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  QSignalSpy pinned(window.comparePanel(), &ComparePanel::pinned);
  window.comparePanel()->pinAction()->trigger();
  REQUIRE(pinned.count() == 1);
  // The default workspace: Llama-3.1-8B on a v4 4x4x8 slice.
  CHECK(pinned.front().front().toString() == "llama-3.1-8b on v4 4x4x8");
  CHECK(window.statusBar()->currentMessage().startsWith("Pinned as A: llama-3.1-8b on v4 4x4x8"));
  auto* compareDock = window.findChild<QDockWidget*>("CompareDock");
  REQUIRE(compareDock);
  CHECK(compareDock->isVisible());
  bool aLineNamesIt = false;
  for (QLabel* label : window.comparePanel()->findChildren<QLabel*>())
    if (label->text().startsWith("A: llama-3.1-8b on v4 4x4x8: dp:2,fsdp:16,tp:4")) aLineNamesIt = true;
  CHECK(aLineNamesIt);
}

TEST_CASE("the charts take the dark palette at once, without waiting for an edit", "[ui][feedback]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  auto themeOf = [](QWidget* chart) {
    auto* view = chart->findChild<QChartView*>();
    return view && view->chart() ? view->chart()->theme() : QChart::ChartThemeQt;
  };
  CHECK(themeOf(window.memoryChart()) == QChart::ChartThemeLight);
  applyTheme(true);
  QApplication::processEvents();
  CHECK(themeOf(window.memoryChart()) == QChart::ChartThemeDark);
  CHECK(themeOf(window.commChart()) == QChart::ChartThemeDark);
  applyTheme(false); // the application is shared by the whole suite
  QApplication::processEvents();
  CHECK(themeOf(window.memoryChart()) == QChart::ChartThemeLight);
}

TEST_CASE("a serving workspace's communication chart says in words why it has no times", "[ui][feedback]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  CHECK(window.commChart()->showsTimes()); // the default is a training job
  REQUIRE(window.openFile(examples + "gemma-2-27b-serving-v5e-16.shardscope.json"));
  REQUIRE(window.waitForAnalysis(60000));
  CHECK_FALSE(window.commChart()->showsTimes());
  const QString text = window.commChart()->detailsLabel()->text();
  CHECK(text.contains("No communication time to show"));
  CHECK_FALSE(text.contains("per training step."));
  // The rings are still described, one line per axis (dp and tp).
  CHECK(text.contains("<b>dp</b> (4)"));
  CHECK(text.contains("<b>tp</b> (4)"));
}

TEST_CASE("sizes whose product is not the device count offer 'make fsdp -1'", "[ui][feedback]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis());
  // 2 x 8 x 4 = 64 devices on the 128 chips of a v4 4x4x8.
  window.document()->edit("sizes", [](Scenario& s) { s.mesh.axes = {{"dp", 2, 1}, {"fsdp", 8, 1}, {"tp", 4, 1}}; });
  REQUIRE(window.waitForAnalysis());
  REQUIRE(window.logicalPanel()->errorShown());
  QPushButton* fix = window.logicalPanel()->fixButton();
  REQUIRE_FALSE(fix->isHidden());
  // fsdp then takes 128 / (2 x 4) = 16.
  CHECK(fix->text() == "Make fsdp −1 (→ 16)");
  fix->click();
  CHECK(window.document()->scenario().mesh.axes[1].ici == -1);
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(window.logicalPanel()->errorShown());
  CHECK(window.runner()->lastValid()->mesh.shape() == Shape{2, 16, 4});

  // A -1 that cannot divide (128 / (3 x 4)) has no one-click answer: the error shows alone.
  window.document()->edit("sizes", [](Scenario& s) { s.mesh.axes = {{"dp", 3, 1}, {"fsdp", -1, 1}, {"tp", 4, 1}}; });
  REQUIRE(window.waitForAnalysis());
  REQUIRE(window.logicalPanel()->errorShown());
  CHECK(window.logicalPanel()->fixButton()->isHidden());
}

TEST_CASE("tables export as CSV with quoting, and the Step table copies itself", "[ui][feedback]") {
  test::app();
  // By hand (RFC 4180): a comma or a quote makes a quoted field, quotes doubled; a hidden column
  // is left out; CRLF after every line.
  QTableWidget table(2, 3);
  table.setHorizontalHeaderLabels({"name", "spec", "hidden"});
  table.setItem(0, 0, new QTableWidgetItem("w"));
  table.setItem(0, 1, new QTableWidgetItem("P('tp', 'fsdp')"));
  table.setItem(1, 0, new QTableWidgetItem("say \"hi\""));
  table.setItem(1, 1, new QTableWidgetItem("P(None)"));
  table.setColumnHidden(2, true);
  CHECK(tableToCsv(table) == "name,spec\r\nw,\"P('tp', 'fsdp')\"\r\n\"say \"\"hi\"\"\",P(None)\r\n");

  MainWindow window;
  REQUIRE(window.waitForAnalysis());
  QTableWidget* step = window.stepPanel()->axisTable();
  REQUIRE(step->rowCount() == 3);
  QAction* copy = step->findChild<QAction*>("copyCsvAction");
  REQUIRE(copy);
  CHECK(step->actions().contains(copy));
  QApplication::clipboard()->clear();
  copy->trigger();
  const QString csv = QApplication::clipboard()->text();
  CHECK(csv.startsWith("Axis,Size,Bytes,Comm time,Hidden,Exposed\r\n"));
  // The default mesh's axes, one line each, with their sizes: dp 2, fsdp 16, tp 4.
  CHECK(csv.contains("\r\ndp,2,"));
  CHECK(csv.contains("\r\nfsdp,16,"));
  CHECK(csv.contains("\r\ntp,4,"));
  CHECK(csv.count("\r\n") == 4);
  CHECK(window.suggestPanel()->findChild<QAction*>("copyCsvAction") != nullptr);
  CHECK(window.comparePanel()->findChild<QAction*>("copyCsvAction") != nullptr);
}

TEST_CASE("hop badges sit between the chips, never over them", "[ui][feedback]") {
  // Two 40 px chips 100 px apart centre to centre: 60 px of gap (x 40..100), the badge (26 + 4 px
  // along the link) fits, centred in the gap at x = 70.
  const auto apart = PhysicalView::hopBadgeCentre({0, 0, 40, 40}, {100, 0, 40, 40}, {26, 16});
  REQUIRE(apart);
  CHECK(apart->x() == Approx(70));
  CHECK(apart->y() == Approx(20));
  // Vertical neighbours 20 px apart: 16 + 4 px along the link just fit, at y = 50.
  const auto vertical = PhysicalView::hopBadgeCentre({0, 0, 40, 40}, {0, 60, 40, 40}, {26, 16});
  REQUIRE(vertical);
  CHECK(vertical->y() == Approx(50));
  // Side by side with 10 px between them: no room, no badge (it would cover both ids).
  CHECK_FALSE(PhysicalView::hopBadgeCentre({0, 0, 40, 40}, {50, 0, 40, 40}, {26, 16}));
}

TEST_CASE("the logical grid zooms about the cursor, pans by drag and resets with 0", "[ui][feedback][logical]") {
  test::app();
  ViewSelection selection;
  LogicalGridView view(&selection);
  view.resize(360, 260);
  view.show();
  // The full pod: 8960 devices, sub-pixel cells at this size.
  view.setAnalysis(std::make_shared<const Analysis>(
      analyze(loadScenarioFile(SHARDSCOPE_SOURCE_DIR "/docs/screenshots/v5p-full-pod.shardscope.json"))));
  // A point near the middle that lies on a device (facets have gaps between them).
  QPointF centre(180, 140);
  for (int dx = 0; dx < 60 && view.deviceAt(centre) < 0; ++dx) centre = QPointF(150 + dx, 140);
  const int under = view.deviceAt(centre);
  REQUIRE(under >= 0);
  // Eight wheel steps in: 1.25^8 = 5.96x, the device under the cursor stays under it.
  QWheelEvent in(centre, view.mapToGlobal(centre), {}, {0, 8 * 120}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                 false);
  QApplication::sendEvent(&view, &in);
  CHECK(view.zoom() == Approx(std::pow(1.25, 8)));
  CHECK(view.deviceAt(centre) == under);
  // A drag pans (another device under the centre) and selects nothing.
  QTest::mousePress(&view, Qt::LeftButton, {}, centre.toPoint());
  QTest::mouseMove(&view, (centre + QPointF(60, 40)).toPoint());
  QTest::mouseRelease(&view, Qt::LeftButton, {}, (centre + QPointF(60, 40)).toPoint());
  CHECK(view.deviceAt(centre) != under);
  CHECK(selection.device() == -1);
  // Drawing a zoomed pod costs no more than the view: it just works.
  QImage image(360, 260, QImage::Format_ARGB32);
  view.QWidget::render(&image);
  QTest::keyClick(&view, Qt::Key_0);
  CHECK(view.zoom() == 1);
  CHECK(view.deviceAt(centre) == under);
  // Zoom cannot go below the whole grid.
  QWheelEvent out(centre, view.mapToGlobal(centre), {}, {0, -240}, Qt::NoButton, Qt::NoModifier, Qt::NoScrollPhase,
                  false);
  QApplication::sendEvent(&view, &out);
  CHECK(view.zoom() == 1);
}
