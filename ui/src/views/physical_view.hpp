// SPDX-License-Identifier: Apache-2.0
// The centre view: the hardware as small multiples of torus slices (or GPU hosts), every chip a
// cell coloured by the overlay. Custom-painted in one pass (no item per chip) so a full v5p pod
// of 8960 chips paints within a frame. Wheel zooms, drag pans, click selects, hover explains.
#pragma once

#include "views/analysis_view.hpp"
#include "views/device_overlay.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/physical_layout.hpp"
#include "views/step_playback_painter.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QPalette>
#include <QVariantAnimation>
#include <QWidget>

#include <memory>
#include <optional>

namespace shardscope::ui {

class PhysicalView : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit PhysicalView(ViewSelection* selection, QWidget* parent = nullptr);

  // One entry of the legend band: a swatch (none when invalid) and its words.
  struct LegendEntry {
    QColor color;
    QString label;
  };
  // Where a legend entry goes: its row, its left edge and the width it needs (swatch and words).
  struct LegendPlace {
    LegendEntry entry;
    int row = 0;
    double x = 0;
    double width = 0;
  };
  // The played step's legend laid out in a band `width` wide: the entries flow left to right and
  // onto the next row when the next one would not fit (`wrap`: the wraparound swatch's colour) at
  // `seconds` into the step (negative: the instant being played).
  std::vector<LegendPlace> playLegendLayout(double width, const QColor& wrap = QColor(), double seconds = -1) const;
  // The legend band's height in a view `width` wide: one line, or while a step plays as many rows
  // (up to four) as the step's busiest instant takes, so none is cut and the view does not resize
  // from one instant to the next.
  double legendHeight(double width) const;

  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  std::shared_ptr<const Analysis> analysis() const { return analysis_; }

  // Draws the whole view into `target` of any painter (screen, QImage, SVG), as exported.
  void render(QPainter& painter, const QRectF& target) override { render(painter, target, false); }
  // The same with the zoom, pan and hover of the screen when `interactive`.
  void render(QPainter& painter, const QRectF& target, bool interactive);
  QWidget* asWidget() override { return this; }

  const PhysicalLayout& currentLayout() const { return layout_; }
  const DeviceOverlay& overlay() const { return overlay_; }
  // Where device `pos` is drawn in widget coordinates (its centre), for tests and tools.
  QPointF deviceCenter(int pos) const;
  int deviceAt(QPointF widgetPoint) const;
  // The text of the hover tooltip for a device.
  QString describeDevice(int pos) const;
  void resetZoom();
  void setAnimationsEnabled(bool enabled) { animate_ = enabled; }
  // What to say while there is no analysis to draw.
  void setEmptyMessage(const QString& text);
  // Where a ring link's hop badge of size `badge` goes between the chips drawn as `a` and `b`: the
  // middle of the part of the link outside both chips; none when that part is shorter than the
  // badge (a badge there would cover the chips and their ids).
  static std::optional<QPointF> hopBadgeCentre(const QRectF& a, const QRectF& b, const QSizeF& badge);

protected:
  void paintEvent(QPaintEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;
  void wheelEvent(QWheelEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void keyPressEvent(QKeyEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  // The label of a ring link between device positions a and b: hops on the physical links
  // (core's link graph), "DCN" across slices, "net" between GPU hosts.
  QString hopLabel(int a, int b) const;
  // Where the played step's one-line caption goes (empty: no room).
  QRectF playCaptionArea(QPainter& painter, const QRectF& target) const;
  // Every axis' rings for the played step, built on the first played frame of an analysis.
  const AxisRings& playRings() const;
  const RingLinkLoads& playLoads() const;

  struct Frame {
    QRectF area;      // where the layout is drawn
    double scale = 1; // pixels per layout unit
    QPointF origin;   // pixel position of layout (0, 0)
  };
  Frame frameFor(const PhysicalLayout& layout, const QRectF& target, bool interactive) const;
  // One drawing of the view: where it goes, how layout units map to pixels, the palette's colours.
  struct Canvas {
    QPainter& painter;
    QRectF target;
    const PhysicalLayout& layout;
    Frame frame;
    QPalette palette;
    bool interactive = false;
    bool dark = false;
    QColor text, linkColor, wrapColor;
    QRectF map(const QRectF& r) const {
      return QRectF(frame.origin + r.topLeft() * frame.scale, r.size() * frame.scale);
    }
    QPointF mapPt(QPointF p) const { return frame.origin + p * frame.scale; }
  };
  // render()'s stages, in drawing order.
  void paintSlices(const Canvas& c, const QFont& titleFont, bool titles) const;
  void paintPanels(const Canvas& c, const QFont& titleFont, bool titles) const;
  void paintChips(const Canvas& c) const;
  void paintSelection(const Canvas& c) const;
  void paintHeaderAndLegend(const Canvas& c) const;
  void paintPlayLegend(QPainter& painter, const QRectF& legend, const QColor& text, const QColor& wrap) const;
  // The played step's legend: the compute fill, each running collective, the marks.
  std::vector<LegendEntry> playLegendEntries(const QColor& wrap, double seconds) const;
  void recomputeOverlay();
  void ensureLayout();
  QColor colorOf(int pos) const;
  void zoomAt(QPointF widgetPoint, double factor);

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  MeshIndex index_;
  PhysicalLayout layout_;
  double layoutAspect_ = 0;
  DeviceOverlay overlay_;
  std::vector<QColor> previousColors_;
  QVariantAnimation animation_;
  double animationT_ = 1.0;
  bool animate_ = true;
  double zoom_ = 1.0;
  QPointF pan_;
  QPoint pressPos_;
  QPoint lastMousePos_;
  bool dragging_ = false;
  int hover_ = -1;
  QString emptyMessage_;
  QString summary_; // the header line describing the hardware
  mutable std::unique_ptr<AxisRings> playRings_;
  mutable std::unique_ptr<RingLinkLoads> playLoads_;
  // legendHeight's rows while playing, for (analysis, view width).
  mutable std::pair<const Analysis*, double> legendRowsFor_{nullptr, -1.0};
  mutable int legendRows_ = 1;
};

} // namespace shardscope::ui
