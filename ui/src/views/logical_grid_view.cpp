// SPDX-License-Identifier: Apache-2.0
#include "views/logical_grid_view.hpp"

#include <QFontMetricsF>
#include <QHelpEvent>
#include <QImage>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>
#include <QWheelEvent>

#include <algorithm>
#include <cmath>
#include <limits>

namespace shardscope::ui {

LogicalGridView::LogicalGridView(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  setMinimumHeight(160);
  setFocusPolicy(Qt::ClickFocus);
  setWhatsThis(tr("<b>Logical mesh</b><br>Device ids laid out by their logical coordinates: the last axis runs "
                  "across, the one before it down; leading axes are drawn as separate facets. Click a device to "
                  "select it everywhere. Wheel: zoom; drag: pan; 0: reset."));
  connect(selection_, &ViewSelection::changed, this, [this] {
    if (shownUnitAxes_ != selection_->showUnitAxes()) refreshShownAxes();
    overlay_ = computeOverlay(analysis_.get(), index_, selection_->mode(), selection_->axis(), selection_->param(),
                              selection_->decoded().get());
    update();
  });
}

void LogicalGridView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  // Another mesh shape: the zoom of the old one means nothing for it.
  const Shape before = index_.shape();
  analysis_ = std::move(analysis);
  if (!analysis_ || analysis_->mesh.shape() != before) {
    zoom_ = 1;
    pan_ = {};
  }
  index_ = analysis_ ? MeshIndex(analysis_->mesh) : MeshIndex();
  refreshShownAxes();
  overlay_ = computeOverlay(analysis_.get(), index_, selection_->mode(), selection_->axis(), selection_->param(),
                            selection_->decoded().get());
  update();
}

void LogicalGridView::refreshShownAxes() {
  // Size-one axes do not change a device's row-major position: leaving them out keeps every flat
  // index and drops their labels.
  shownUnitAxes_ = selection_->showUnitAxes();
  shownShape_.clear();
  shownNames_.clear();
  for (int a = 0; a < index_.axisCount(); ++a)
    if (index_.shape()[static_cast<std::size_t>(a)] > 1 || shownUnitAxes_) {
      shownShape_.push_back(index_.shape()[static_cast<std::size_t>(a)]);
      shownNames_.push_back(index_.axisNames()[static_cast<std::size_t>(a)]);
    }
  if (shownShape_.empty() && index_.axisCount() > 0) {
    shownShape_.push_back(1);
    shownNames_.push_back(index_.axisNames().back());
  }
  // One axis left (an imported MaxText mesh: fsdp 128 and a dozen of size 1): a single row of
  // 128 cells is a line of specks. Wrap it row-major, the smallest divisor at least its square
  // root per row (16 x 8 for 128); the flat index of each cell is unchanged.
  wrappedCaption_.clear();
  if (shownShape_.size() == 1 && shownShape_[0] > kWrapAbove) {
    const std::int64_t n = shownShape_[0];
    auto perRow = static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(n))));
    while (n % perRow != 0) ++perRow;
    if (perRow < n) {
      const std::string name = shownNames_[0];
      shownShape_ = {n / perRow, perRow};
      shownNames_ = {tr("%1 (wrapped, %2 per row)").arg(QString::fromStdString(name)).arg(perRow).toStdString(), name};
      wrappedCaption_ = tr("%1 (%2) in rows of %3").arg(QString::fromStdString(name)).arg(n).arg(perRow);
    }
  }
}

LogicalGridView::Geometry LogicalGridView::geometryFor(const QRectF& target, double zoom) const {
  Geometry g;
  const Shape& shape = shownShape_;
  const std::size_t nd = shape.size();
  g.cols = nd >= 1 ? static_cast<int>(shape[nd - 1]) : 1;
  g.rows = nd >= 2 ? static_cast<int>(shape[nd - 2]) : 1;
  std::int64_t facets = 1;
  for (std::size_t a = 0; a + 2 < nd; ++a) facets *= shape[a];
  g.facets = static_cast<int>(facets);
  // Pick the facet column count that makes cells largest.
  const double labelUnits = nd > 2 ? 1.2 : 0.0, gapUnits = 0.8;
  double best = 0;
  for (int fc = 1; fc <= g.facets; ++fc) {
    const int fr = (g.facets + fc - 1) / fc;
    const double w = fc * g.cols + (fc - 1) * gapUnits;
    const double h = fr * (g.rows + labelUnits) + (fr - 1) * gapUnits;
    const double cell = std::min(target.width() / w, target.height() / h);
    if (cell > best) {
      best = cell;
      g.facetCols = fc;
    }
  }
  g.cell = std::min(best, 56.0);
  g.cellX = g.cellY = g.cell;
  g.gap = gapUnits * g.cell;
  g.label = labelUnits * g.cell;
  if (best / zoom < kRasterBelowCell && g.facets > 1) {
    // Aggregated: the facets as blocks as near square as the view allows, 6 px apart.
    g.blocks = true;
    g.gap = 6;
    g.label = 0;
    double side = 0;
    for (int fc = 1; fc <= g.facets; ++fc) {
      const int fr = (g.facets + fc - 1) / fc;
      const double bw = (target.width() - (fc - 1) * g.gap) / fc, bh = (target.height() - (fr - 1) * g.gap) / fr;
      if (std::min(bw, bh) > side) {
        side = std::min(bw, bh);
        g.facetCols = fc;
        g.cellX = bw / g.cols;
        g.cellY = bh / g.rows;
      }
    }
    g.cell = std::min(g.cellX, g.cellY);
  }
  g.facetW = g.cols * g.cellX;
  g.facetH = g.rows * g.cellY + g.label;
  const int facetRows = (g.facets + g.facetCols - 1) / g.facetCols;
  const double totalW = g.facetCols * g.facetW + (g.facetCols - 1) * g.gap;
  const double totalH = facetRows * g.facetH + (facetRows - 1) * g.gap;
  g.origin = QPointF(target.left() + (target.width() - totalW) / 2, target.top() + (target.height() - totalH) / 2);
  return g;
}

std::int64_t LogicalGridView::flatIndex(int facet, int row, int col) const {
  const Shape& shape = shownShape_;
  const std::size_t nd = shape.size();
  const std::int64_t rows = nd >= 2 ? shape[nd - 2] : 1, cols = nd >= 1 ? shape[nd - 1] : 1;
  return (static_cast<std::int64_t>(facet) * rows + row) * cols + col;
}

QString LogicalGridView::facetLabel(int facet) const {
  const Shape& shape = shownShape_;
  const std::size_t nd = shape.size();
  if (nd <= 2) return {};
  QStringList parts;
  int rest = facet;
  std::vector<int> coords(nd - 2);
  for (std::size_t a = nd - 2; a-- > 0;) {
    coords[a] = rest % static_cast<int>(shape[a]);
    rest /= static_cast<int>(shape[a]);
  }
  for (std::size_t a = 0; a + 2 < nd; ++a)
    parts << QStringLiteral("%1=%2").arg(QString::fromStdString(shownNames_[a])).arg(coords[a]);
  return parts.join(", ");
}

QString LogicalGridView::facetBlockText(int facet) const {
  if (!analysis_) return {};
  const Shape& shape = shownShape_;
  const std::size_t nd = shape.size();
  const std::int64_t rows = nd >= 2 ? shape[nd - 2] : 1, cols = nd >= 1 ? shape[nd - 1] : 1;
  const auto& grid = analysis_->mesh.grid.data();
  const auto& devices = analysis_->mesh.devices;
  std::int64_t lo = std::numeric_limits<std::int64_t>::max(), hi = std::numeric_limits<std::int64_t>::min();
  const std::int64_t first = static_cast<std::int64_t>(facet) * rows * cols;
  for (std::int64_t k = first; k < first + rows * cols && k < static_cast<std::int64_t>(grid.size()); ++k) {
    const std::int64_t id = devices[static_cast<std::size_t>(grid[static_cast<std::size_t>(k)])].id;
    lo = std::min(lo, id);
    hi = std::max(hi, id);
  }
  const QString label = facetLabel(facet);
  if (lo > hi) return label;
  const QString ids = lo == hi ? tr("id %1").arg(lo) : tr("ids %1–%2").arg(lo).arg(hi);
  return label.isEmpty() ? ids : label + QStringLiteral(" · ") + ids;
}

QRectF LogicalGridView::facetBox(const Geometry& g, int facet) const {
  const double strideX = g.facetW + g.gap, strideY = g.facetH + g.gap;
  return QRectF(g.origin + QPointF((facet % g.facetCols) * strideX, (facet / g.facetCols) * strideY + g.label),
                QSizeF(g.facetW, g.rows * g.cellY));
}

std::vector<QRectF> LogicalGridView::facetBlocks(const QRectF& target) const {
  std::vector<QRectF> out;
  if (!analysis_ || index_.axisCount() == 0) return out;
  const Geometry g = geometryFor(gridArea(target, false));
  if (!g.blocks) return out;
  for (int facet = 0; facet < g.facets; ++facet) out.push_back(facetBox(g, facet));
  return out;
}

void LogicalGridView::drawFacetBlocks(QPainter& painter, const Geometry& g, const QRectF& visible) const {
  if (g.facets < 2) return;
  const QPalette pal = palette();
  QColor frame = pal.color(QPalette::Text);
  frame.setAlpha(140);
  QFont font = painter.font();
  font.setPixelSize(11);
  painter.setFont(font);
  const QFontMetricsF metrics(font);
  for (int facet = 0; facet < g.facets; ++facet) {
    const QRectF box = facetBox(g, facet);
    if (!box.intersects(visible)) continue;
    painter.setPen(QPen(frame, 1));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(box.adjusted(-0.5, -0.5, 0.5, 0.5));
    // A label where it fits, on a translucent plate at the block's top left: across a wide block,
    // down a tall narrow one (a pod's facets are often strips a few cells wide).
    const bool across = box.width() >= 44 && box.height() >= 14;
    const bool down = !across && box.height() >= 60 && box.width() >= 14;
    if (!across && !down) continue;
    const double room = (across ? box.width() : box.height()) - 6;
    const QString text = metrics.elidedText(facetBlockText(facet), Qt::ElideRight, room);
    QColor base = pal.color(QPalette::Base);
    base.setAlpha(210);
    painter.save();
    painter.translate(box.topLeft() + QPointF(1, 1));
    if (down) {
      painter.translate(metrics.height() + 2, 0);
      painter.rotate(90);
    }
    const QRectF plate(0, 0, metrics.horizontalAdvance(text) + 6, metrics.height() + 2);
    painter.fillRect(plate, base);
    painter.setPen(pal.color(QPalette::Text));
    painter.drawText(plate, Qt::AlignCenter, text);
    painter.restore();
  }
}

QColor LogicalGridView::cellColor(std::size_t flat) const {
  const auto& grid = analysis_->mesh.grid.data();
  const auto pos = static_cast<std::size_t>(grid[flat]);
  return pos < overlay_.colors.size() ? overlay_.colors[pos] : QColor(0xb4b4b4);
}

void LogicalGridView::drawGridImage(QPainter& painter, const Geometry& g, const QRectF& visible) const {
  const auto& grid = analysis_->mesh.grid.data();
  const int facetRows = (g.facets + g.facetCols - 1) / g.facetCols;
  const double strideX = g.facetW + g.gap, strideY = g.facetH + g.gap;
  const QRectF whole(g.origin, QSizeF(g.facetCols * strideX - g.gap, facetRows * strideY - g.gap));
  // Only the part on screen: a zoomed pod stays an image the size of the view.
  const QRectF box = whole.intersected(visible);
  if (box.isEmpty()) return;
  const QPointF skip = box.topLeft() - whole.topLeft();
  const int w = std::max(1, static_cast<int>(std::ceil(box.width())));
  const int h = std::max(1, static_cast<int>(std::ceil(box.height())));
  QImage image(w, h, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::transparent);
  for (int y = 0; y < h; ++y) {
    const double py = y + 0.5 + skip.y();
    const int fr = static_cast<int>(py / strideY);
    const double inY = py - fr * strideY - g.label;
    if (fr >= facetRows || inY < 0 || inY >= g.rows * g.cellY) continue;
    const int r = std::min(g.rows - 1, static_cast<int>(inY / g.cellY));
    auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
    for (int x = 0; x < w; ++x) {
      const double px = x + 0.5 + skip.x();
      const int fc = static_cast<int>(px / strideX);
      const double inX = px - fc * strideX;
      const int facet = fr * g.facetCols + fc;
      if (fc >= g.facetCols || facet >= g.facets || inX >= g.facetW) continue;
      const int c = std::min(g.cols - 1, static_cast<int>(inX / g.cellX));
      const auto flat = static_cast<std::size_t>(flatIndex(facet, r, c));
      if (flat < grid.size()) line[x] = cellColor(flat).rgba();
    }
  }
  painter.drawImage(QRectF(box.topLeft(), QSizeF(w, h)), image);
  // The selected device keeps its outline, drawn around where its cell falls.
  const int sel = selection_->device();
  const auto found = std::find(grid.begin(), grid.end(), sel);
  if (sel < 0 || found == grid.end()) return;
  const auto flat = static_cast<std::int64_t>(found - grid.begin());
  const std::int64_t perFacet = static_cast<std::int64_t>(g.rows) * g.cols;
  const auto facet = static_cast<int>(flat / perFacet);
  const auto r = static_cast<double>((flat % perFacet) / g.cols), c = static_cast<double>(flat % g.cols);
  const QPointF o = g.origin + QPointF((facet % g.facetCols) * strideX, (facet / g.facetCols) * strideY + g.label);
  painter.setPen(QPen(QColor(0xd62728), 1.5));
  painter.drawRect(QRectF(o.x() + c * g.cellX - 2, o.y() + r * g.cellY - 2, g.cellX + 4, g.cellY + 4));
}

QRectF LogicalGridView::gridArea(const QRectF& target, bool zoomed) const {
  const QRectF area = target.adjusted(8, 24, -8, -8);
  if (!zoomed) return area;
  return QRectF(area.topLeft() + pan_, area.size() * zoom_);
}

void LogicalGridView::resetZoom() {
  zoom_ = 1;
  pan_ = {};
  update();
}

void LogicalGridView::clampPan() {
  const QRectF area = gridArea(QRectF(rect()), false);
  pan_.setX(std::clamp(pan_.x(), area.width() * (1 - zoom_), 0.0));
  pan_.setY(std::clamp(pan_.y(), area.height() * (1 - zoom_), 0.0));
}

void LogicalGridView::wheelEvent(QWheelEvent* event) {
  const double steps = event->angleDelta().y() / 120.0;
  if (steps == 0) return;
  const double next = std::clamp(zoom_ * std::pow(1.25, steps), 1.0, 64.0);
  // Keep the point under the cursor where it is.
  const QPointF p = event->position();
  const QPointF origin = gridArea(QRectF(rect()), false).topLeft();
  const QPointF content = (p - origin - pan_) / zoom_;
  zoom_ = next;
  pan_ = p - origin - content * zoom_;
  clampPan();
  update();
  event->accept();
}

void LogicalGridView::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton) {
    pressPos_ = event->position();
    dragging_ = false;
  }
  setFocus(Qt::MouseFocusReason);
}

void LogicalGridView::mouseMoveEvent(QMouseEvent* event) {
  if (!(event->buttons() & Qt::LeftButton) || zoom_ <= 1) return;
  const QPointF delta = event->position() - pressPos_;
  if (!dragging_ && std::hypot(delta.x(), delta.y()) < 4) return;
  dragging_ = true;
  pan_ += delta;
  pressPos_ = event->position();
  clampPan();
  update();
}

void LogicalGridView::keyPressEvent(QKeyEvent* event) {
  if (event->key() == Qt::Key_0 || event->key() == Qt::Key_Home)
    resetZoom();
  else
    QWidget::keyPressEvent(event);
}

void LogicalGridView::render(QPainter& painter, const QRectF& target) { renderAt(painter, target, false); }

void LogicalGridView::renderAt(QPainter& painter, const QRectF& target, bool zoomed) {
  const QPalette pal = palette();
  painter.fillRect(target, pal.color(QPalette::Base));
  if (!analysis_ || index_.axisCount() == 0) {
    painter.setPen(pal.color(QPalette::Text));
    painter.drawText(target, Qt::AlignCenter, tr("No logical mesh yet."));
    return;
  }
  const QRectF visible = gridArea(target, false);
  const Geometry g = geometryFor(gridArea(target, zoomed), zoomed ? zoom_ : 1.0);
  const auto& grid = analysis_->mesh.grid.data();
  const auto& names = shownNames_;
  const std::size_t nd = names.size();
  // Axis captions: which axis runs across and which down.
  painter.setPen(pal.color(QPalette::Text));
  QFont f = painter.font();
  f.setPixelSize(12);
  painter.setFont(f);
  QString caption = tr("across: %1").arg(QString::fromStdString(names[nd - 1]));
  if (nd >= 2) caption += tr("   down: %1").arg(QString::fromStdString(names[nd - 2]));
  if (nd >= 3)
    caption += tr("   facets: %1")
                   .arg(QStringList([&] {
                          QStringList l;
                          for (std::size_t a = 0; a + 2 < nd; ++a) l << QString::fromStdString(names[a]);
                          return l;
                        }())
                            .join(" x "));
  // One long axis wrapped into rows says so in a few words: across and down are the same axis.
  if (!wrappedCaption_.isEmpty()) caption = wrappedCaption_;
  painter.drawText(QRectF(target.left() + 8, target.top() + 2, target.width() - 16, 20),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   QFontMetricsF(f).elidedText(caption, Qt::ElideRight, target.width() - 16));

  QFont idFont = painter.font();
  idFont.setPixelSize(static_cast<int>(std::clamp(g.cell * 0.38, 7.0, 13.0)));
  const bool ids = g.cell >= 16;
  const int sel = selection_->device();
  // Zoomed, the grid stays below the caption.
  painter.save();
  painter.setClipRect(visible.adjusted(-4, -4, 4, 4));
  struct Restore {
    QPainter& p;
    ~Restore() { p.restore(); }
  } restore{painter};
  if (g.blocks || g.cell < kRasterBelowCell) {
    drawGridImage(painter, g, visible.adjusted(-4, -4, 4, 4));
    if (g.blocks) drawFacetBlocks(painter, g, visible.adjusted(-4, -4, 4, 4));
    return;
  }
  for (int facet = 0; facet < g.facets; ++facet) {
    const int fc = facet % g.facetCols, fr = facet / g.facetCols;
    const QPointF o = g.origin + QPointF(fc * (g.facetW + g.gap), fr * (g.facetH + g.gap));
    // Facets wholly off screen (a zoomed pod) cost nothing.
    if (!QRectF(o, QSizeF(g.facetW, g.facetH)).intersects(visible)) continue;
    if (g.label > 0 && g.label >= 9) {
      painter.setFont(f);
      painter.setPen(pal.color(QPalette::Text));
      painter.drawText(QRectF(o.x(), o.y(), g.facetW + g.gap, g.label), Qt::AlignLeft | Qt::AlignVCenter,
                       facetLabel(facet));
    }
    painter.setFont(idFont);
    for (int r = 0; r < g.rows; ++r)
      for (int c = 0; c < g.cols; ++c) {
        const auto flat = static_cast<std::size_t>(flatIndex(facet, r, c));
        if (flat >= grid.size()) continue;
        const int pos = grid[flat];
        const QRectF cell(o.x() + c * g.cell, o.y() + g.label + r * g.cell, g.cell, g.cell);
        const QColor color = static_cast<std::size_t>(pos) < overlay_.colors.size()
                                 ? overlay_.colors[static_cast<std::size_t>(pos)]
                                 : QColor(0xb4b4b4);
        painter.fillRect(cell.adjusted(0.5, 0.5, -0.5, -0.5), color);
        if (ids) {
          painter.setPen(color.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250));
          painter.drawText(cell, Qt::AlignCenter,
                           QString::number(analysis_->mesh.devices[static_cast<std::size_t>(pos)].id));
        }
        if (pos == sel) {
          painter.setPen(QPen(QColor(0xd62728), 2.5));
          painter.drawRect(cell.adjusted(1, 1, -1, -1));
        }
      }
  }
}

int LogicalGridView::deviceAt(QPointF point) const {
  if (!analysis_ || index_.axisCount() == 0) return -1;
  if (!gridArea(QRectF(rect()), false).contains(point)) return -1;
  const Geometry g = geometryFor(gridArea(QRectF(rect()), true), zoom_);
  for (int facet = 0; facet < g.facets; ++facet) {
    const int fc = facet % g.facetCols, fr = facet / g.facetCols;
    const QPointF o = g.origin + QPointF(fc * (g.facetW + g.gap), fr * (g.facetH + g.gap) + g.label);
    const QRectF box(o, QSizeF(g.facetW, g.rows * g.cellY));
    if (!box.contains(point)) continue;
    const int c = std::clamp(static_cast<int>((point.x() - o.x()) / g.cellX), 0, g.cols - 1);
    const int r = std::clamp(static_cast<int>((point.y() - o.y()) / g.cellY), 0, g.rows - 1);
    const auto flat = static_cast<std::size_t>(flatIndex(facet, r, c));
    return flat < analysis_->mesh.grid.data().size() ? analysis_->mesh.grid.data()[flat] : -1;
  }
  return -1;
}

void LogicalGridView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  renderAt(painter, QRectF(rect()), true);
}

void LogicalGridView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  if (dragging_) { // the end of a pan, not a click
    dragging_ = false;
    return;
  }
  const int pos = deviceAt(event->position());
  selection_->setDevice(pos == selection_->device() ? -1 : pos);
}

bool LogicalGridView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int pos = deviceAt(help->pos());
    if (pos >= 0 && analysis_) {
      QStringList coords;
      for (int a = 0; a < index_.axisCount(); ++a)
        if (index_.shape()[static_cast<std::size_t>(a)] > 1 || selection_->showUnitAxes())
          coords << QStringLiteral("%1=%2")
                        .arg(QString::fromStdString(index_.axisNames()[static_cast<std::size_t>(a)]))
                        .arg(index_.coordinate(pos, a));
      QToolTip::showText(
          help->globalPos(),
          tr("Device %1\n%2").arg(analysis_->mesh.devices[static_cast<std::size_t>(pos)].id).arg(coords.join(", ")),
          this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

} // namespace shardscope::ui
