// SPDX-License-Identifier: Apache-2.0
// The logical mesh as a grid of device ids laid out by logical coordinates, like
// jax.debug.visualize_array_sharding: the last axis runs across, the one before it down, and any
// leading axes become facets (small multiples). Cells share the physical view's overlay colours.
#pragma once

#include "views/analysis_view.hpp"
#include "views/device_overlay.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/view_selection.hpp"

#include <QWidget>

#include <memory>
#include <vector>

namespace shardscope::ui {

class LogicalGridView : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit LogicalGridView(ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  void render(QPainter& painter, const QRectF& target) override;
  QWidget* asWidget() override { return this; }
  // Device position under a widget point, or -1.
  int deviceAt(QPointF point) const;
  QSize sizeHint() const override { return {360, 260}; }
  // Zoom and pan as in the physical view: the wheel zooms about the cursor (1x to 64x), a drag
  // pans, 0 or Home resets. Exports draw the whole grid whatever the zoom.
  double zoom() const { return zoom_; }
  void resetZoom();
  // When square cells would be under kRasterBelowCell (a pod), the facets become blocks that tile
  // the view (their cells stretched, drawn as one image), each framed and labelled with its
  // coordinates on the leading axes and the range of device ids it holds: "dp=3 · ids 1680-2239".
  // The wheel zooms into a block as into any grid.
  QString facetBlockText(int facet) const;
  // Where render(painter, target) frames each facet block (empty when the cells are large enough to
  // be drawn one by one, or there is one facet).
  std::vector<QRectF> facetBlocks(const QRectF& target) const;
  // The caption of one long axis wrapped into rows, "fsdp (128) in rows of 16" (empty when no axis
  // is wrapped): shorter than "across: fsdp · down: fsdp (wrapped, 16 per row)", which a narrow
  // dock cut.
  QString wrappedCaption() const { return wrappedCaption_; }

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  bool event(QEvent* event) override;

private:
  struct Geometry {
    int facets = 1, facetCols = 1, rows = 1, cols = 1;
    double cell = 0, facetW = 0, facetH = 0, gap = 0, label = 0;
    // A cell's width and height: `cell` both, except for aggregated blocks (below), where each
    // facet is stretched to a block of the view and its cells are no longer square.
    double cellX = 0, cellY = 0;
    bool blocks = false;
    QPointF origin;
  };
  // The layout in `target`, the unzoomed area magnified `zoom` times (the aggregated blocks are
  // decided on the unzoomed area, so zooming into a block keeps the blocks).
  Geometry geometryFor(const QRectF& target, double zoom = 1) const;
  // Where the grid goes in `target`: below the caption, magnified and moved when `zoomed`.
  QRectF gridArea(const QRectF& target, bool zoomed) const;
  void renderAt(QPainter& painter, const QRectF& target, bool zoomed);
  void clampPan();
  // Grid flat index of facet f, row r, column c.
  std::int64_t flatIndex(int facet, int row, int col) const;
  QString facetLabel(int facet) const;
  // Below this cell size (in pixels) the grid is drawn as one image of the view's pixels, each the
  // colour of the cell under its centre: a million sub-pixel cells drawn one by one took over 2 GB
  // as SVG. The work and the image are then bounded by the view's size, not the mesh's.
  static constexpr double kRasterBelowCell = 4.0;
  // A mesh with one axis longer than this is drawn wrapped into rows (refreshShownAxes).
  static constexpr std::int64_t kWrapAbove = 16;
  void drawGridImage(QPainter& painter, const Geometry& g, const QRectF& visible) const;
  void drawFacetBlocks(QPainter& painter, const Geometry& g, const QRectF& visible) const;
  QRectF facetBox(const Geometry& g, int facet) const; // a facet's cells (below its label)
  QColor cellColor(std::size_t flat) const;

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  MeshIndex index_;
  // The axes drawn: those larger than one (a size-one axis adds no row, column or facet and would
  // only multiply labels), in mesh order; every axis when the user asks (ViewSelection).
  Shape shownShape_;
  std::vector<std::string> shownNames_;
  // The caption of one long axis wrapped into rows ("fsdp (128) in rows of 16"); empty otherwise.
  QString wrappedCaption_;
  bool shownUnitAxes_ = false;
  void refreshShownAxes();
  DeviceOverlay overlay_;
  double zoom_ = 1;
  QPointF pan_;      // the zoomed grid area's offset from the unzoomed one (<= 0)
  QPointF pressPos_; // where the left button went down
  bool dragging_ = false;
};

} // namespace shardscope::ui
