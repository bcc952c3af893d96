// SPDX-License-Identifier: Apache-2.0
// The logical grid view: a mesh whose cells are smaller than a few pixels is drawn as one image
// of the view's pixels, each the colour of the cell under it, so drawing (and SVG export) costs
// what the view's size costs, not the mesh's (a million devices took over 2 GB as SVG).
#include "ui_test_app.hpp"

#include "views/device_overlay.hpp"
#include "views/logical_grid_view.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/view_export.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("the logical view draws sub-4-pixel cells as one image and keeps each cell's colour", "[ui][logical]") {
  test::app();
  ViewSelection selection;
  selection.setAxis(1); // colour by the coordinate along the axis drawn across
  LogicalGridView view(&selection);
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5p:16x32x32");
  s.mesh.axes = {{"dp", 128, 1}, {"fsdp", 128, 1}};
  const auto analysis = std::make_shared<const Analysis>(analyze(s));
  view.setAnalysis(analysis);

  QImage image(400, 400, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    view.render(painter, QRectF(0, 0, 400, 400));
  }
  // The grid area is the view less 8 px each side and 24 px on top (the caption): 384 x 368 for
  // 128 x 128 cells, so cells of 368/128 = 2.875 px, the grid centred across from x = 16.
  const double cell = 368.0 / 128, left = 8 + (384 - 128 * cell) / 2, top = 24;
  const MeshIndex index(analysis->mesh);
  const DeviceOverlay overlay = computeOverlay(analysis.get(), index, OverlayMode::Coordinate, 1, {});
  const auto& grid = analysis->mesh.grid.data();
  int checked = 0;
  for (int r : {0, 1, 37, 100, 127})
    for (int c : {0, 5, 64, 99, 127}) {
      const int pos = grid[static_cast<std::size_t>(r * 128 + c)];
      const int x = static_cast<int>(std::floor(left + (c + 0.5) * cell));
      const int y = static_cast<int>(std::floor(top + (r + 0.5) * cell));
      INFO("cell " << r << "," << c);
      CHECK(image.pixelColor(x, y).rgb() == overlay.colors[static_cast<std::size_t>(pos)].rgb());
      ++checked;
    }
  CHECK(checked == 25);
  // Two cells with different colours really are told apart.
  CHECK(overlay.colors[static_cast<std::size_t>(grid[0])].rgb() !=
        overlay.colors[static_cast<std::size_t>(grid[127])].rgb());

  // As SVG the 16,384 cells are one embedded image, not 16,384 rectangles (about 4 MB of text).
  QTemporaryDir dir;
  const QString svg = dir.filePath("logical.svg");
  QString error;
  REQUIRE(exportView(view, svg, QSize(400, 400), &error));
  CHECK(QFileInfo(svg).size() < 400'000);
}

TEST_CASE("a pod's facets are drawn as framed blocks labelled with their coordinates and device ids", "[ui][logical]") {
  test::app();
  ViewSelection selection;
  LogicalGridView view(&selection);
  // 1024 GPUs in hosts of 8, mesh dp 32 x fsdp 2 x tp 16: GPUs are placed in device order, so the
  // facet dp = k holds ids 32k to 32k + 31.
  Scenario s = defaultScenario();
  s.topology = parseTopology("h100:128x8");
  s.mesh.axes = {{"dp", 32, 1}, {"fsdp", 2, 1}, {"tp", 16, 1}};
  const auto analysis = std::make_shared<const Analysis>(analyze(s));
  view.setAnalysis(analysis);
  CHECK(view.facetBlockText(0) == QStringLiteral("dp=0 · ids 0–31"));
  CHECK(view.facetBlockText(3) == QStringLiteral("dp=3 · ids 96–127"));
  CHECK(view.facetBlockText(31) == QStringLiteral("dp=31 · ids 992–1023"));

  // At 260 x 200 the cells are under 4 px (one raster image) and each of the 32 blocks is framed:
  // the pixel row just above a block's cells is the frame (the text colour at 55% over white),
  // the row just inside is a cell.
  const QRectF target(0, 0, 260, 200);
  const auto blocks = view.facetBlocks(target);
  REQUIRE(blocks.size() == 32);
  QImage image(260, 200, QImage::Format_ARGB32);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    view.render(painter, target);
  }
  const QColor text = view.palette().color(QPalette::Text);
  for (std::size_t b : {std::size_t{0}, std::size_t{7}, std::size_t{31}}) {
    const QRectF box = blocks[b];
    INFO("block " << b << " at " << box.left() << "," << box.top() << " " << box.width() << "x" << box.height());
    const int x = static_cast<int>(box.center().x());
    const QColor frame = image.pixelColor(x, static_cast<int>(std::floor(box.top() - 0.5)));
    CHECK(std::abs(frame.lightness() - (255 - static_cast<int>(140.0 / 255 * (255 - text.lightness())))) < 30);
  }
  // Large enough cells are drawn one by one, without blocks.
  CHECK(view.facetBlocks(QRectF(0, 0, 2000, 2000)).empty());
}

TEST_CASE("one long axis is wrapped into rows: 128 devices as 8 rows of 16, each where row-major order puts it",
          "[ui][logical]") {
  test::app();
  ViewSelection selection;
  LogicalGridView view(&selection);
  view.resize(360, 260);
  // MaxText's way: fsdp 128 and axes of size 1 around it.
  Scenario s = defaultScenario();
  s.mesh.axes = {{"data", 1, 1}, {"fsdp", 128, 1}, {"tensor", 1, 1}};
  const auto analysis = std::make_shared<const Analysis>(analyze(s));
  REQUIRE(analysis->mesh.devices.size() == 128);
  view.setAnalysis(analysis);
  CHECK(view.wrappedCaption() == "fsdp (128) in rows of 16");
  // The grid area is 344 x 236 (8 px margins, 24 px of caption): cells of min(344/16, 236/8) =
  // 21.5 px, the 16 x 21.5 = 344 px wide grid from x = 8, the 8 x 21.5 = 172 px tall one centred
  // down from y = 24 + (236 - 172) / 2 = 56. The cell in row r, column c is flat index 16 r + c.
  const double cell = 21.5, left = 8, top = 56;
  const auto& grid = analysis->mesh.grid.data();
  for (int r : {0, 3, 7})
    for (int c : {0, 9, 15}) {
      INFO("row " << r << ", column " << c);
      CHECK(view.deviceAt(QPointF(left + (c + 0.5) * cell, top + (r + 0.5) * cell)) ==
            grid[static_cast<std::size_t>(16 * r + c)]);
    }
}
