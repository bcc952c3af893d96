// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "document/app_settings.hpp"
#include "views/physical_view.hpp"
#include "views/view_export.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QFile>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
std::shared_ptr<const Analysis> analysisOf(const char* topology, std::vector<MeshAxis> axes) {
  Scenario s = defaultScenario();
  s.topology = parseTopology(topology);
  s.mesh.axes = std::move(axes);
  return std::make_shared<const Analysis>(analyze(s));
}
} // namespace

TEST_CASE("the physical view hit-tests, explains and selects chips with the mouse", "[ui][physical]") {
  test::app();
  ViewSelection selection;
  PhysicalView view(&selection);
  view.setAnimationsEnabled(false);
  view.resize(1200, 800);
  const auto analysis = analysisOf("v4:4x4x8", {{"data", 8, 1}, {"fsdp", 4, 1}, {"tp", 4, 1}});
  view.setAnalysis(analysis);
  for (int pos : {0, 17, 127}) {
    const QPointF c = view.deviceCenter(pos);
    CHECK(view.deviceAt(c) == pos);
  }
  const QString tip = view.describeDevice(17);
  CHECK(tip.contains(QString("Device %1").arg(analysis->mesh.devices[17].id)));
  CHECK(tip.contains("host (process)"));
  CHECK(tip.contains("data="));

  // A click selects; a second click on the same chip clears.
  QTest::mouseClick(&view, Qt::LeftButton, {}, view.deviceCenter(17).toPoint());
  CHECK(selection.device() == 17);
  QTest::mouseClick(&view, Qt::LeftButton, {}, view.deviceCenter(17).toPoint());
  CHECK(selection.device() == -1);

  // Zooming in around a chip keeps it under the cursor and makes it bigger.
  const QPointF before = view.deviceCenter(5);
  QWheelEvent wheel(before, view.mapToGlobal(before), {}, QPoint(0, 480), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QApplication::sendEvent(&view, &wheel);
  CHECK(view.deviceAt(before) == 5);
  CHECK((view.deviceCenter(6) - view.deviceCenter(5)).manhattanLength() > 0);
  view.resetZoom();
  CHECK(view.deviceCenter(5) == before);
}

TEST_CASE("overlay colours follow the mode: groups along an axis share a colour", "[ui][physical]") {
  test::app();
  ViewSelection selection;
  PhysicalView view(&selection);
  const auto analysis = analysisOf("v4:4x4x8", {{"data", 8, 1}, {"fsdp", 4, 1}, {"tp", 4, 1}});
  view.setAnalysis(analysis);
  selection.setAxis(2); // tp
  selection.setMode(OverlayMode::Group);
  const MeshIndex index(analysis->mesh);
  const auto members = index.groupMembers(0, 2);
  REQUIRE(members.size() == 4);
  for (int m : members) CHECK(view.overlay().colors[static_cast<std::size_t>(m)] == view.overlay().colors[0]);
  selection.setMode(OverlayMode::Coordinate);
  CHECK(view.overlay().colors[static_cast<std::size_t>(members[0])] !=
        view.overlay().colors[static_cast<std::size_t>(members[1])]);
  selection.setMode(OverlayMode::Memory);
  CHECK(view.overlay().legend.scale == OverlayLegend::Scale::Heat); // per-device memory against HBM
  CHECK(view.overlay().legend.high.contains("GiB"));
}

TEST_CASE("views export to PNG and SVG", "[ui][export]") {
  test::app();
  QTemporaryDir dir;
  ViewSelection selection;
  PhysicalView view(&selection);
  view.setAnalysis(analysisOf("v5e:4x4", {{"dp", 4, 1}, {"tp", 4, 1}}));
  QString error;
  REQUIRE(exportView(view, dir.filePath("v.png"), QSize(800, 500), &error));
  const QImage image(dir.filePath("v.png"));
  CHECK(image.size() == QSize(800, 500));
  REQUIRE(exportView(view, dir.filePath("v.svg"), QSize(800, 500), &error));
  QFile svg(dir.filePath("v.svg"));
  REQUIRE(svg.open(QIODevice::ReadOnly));
  CHECK(svg.readAll().contains("<svg"));
  CHECK_FALSE(exportView(view, dir.filePath("v.bmp"), QSize(800, 500), &error));
  CHECK(error.contains(".bmp"));
  CHECK_FALSE(exportView(view, dir.filePath("missing/dir/v.png"), QSize(800, 500), &error));
}

TEST_CASE("settings keep at most eight recent files, newest first", "[ui][settings]") {
  test::app();
  AppSettings settings;
  for (const QString& f : settings.recentFiles()) settings.removeRecentFile(f);
  for (int i = 0; i < 10; ++i) settings.addRecentFile(QString("/w/%1.json").arg(i));
  settings.addRecentFile("/w/3.json");
  const QStringList files = settings.recentFiles();
  REQUIRE(files.size() == AppSettings::maxRecentFiles);
  CHECK(files.front() == "/w/3.json");
  CHECK(files.count("/w/3.json") == 1);
  CHECK(files[1] == "/w/9.json");
  settings.setDarkTheme(true);
  CHECK(AppSettings().darkTheme());
  settings.setDarkTheme(false);
}
