// SPDX-License-Identifier: Apache-2.0
// The logical grid view: a mesh whose cells are smaller than a few pixels is drawn as one image
// of the view's pixels, each the colour of the cell under it, so drawing (and SVG export) costs
// what the view's size costs, not the mesh's (a million devices took over 2 GB as SVG).
#include "ui_test_app.hpp"

#include "views/device_overlay.hpp"
#include "views/logical_grid_view.hpp"
#include "views/mesh_index.hpp"
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
