// SPDX-License-Identifier: Apache-2.0
#include "views/shard_grid_view.hpp"

#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"
#include "views/view_selection.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/mesh_axes.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

constexpr int kMaxFacets = 64;         // more leading-dimension blocks than this are not drawn
constexpr QRgb kReplicated = 0x8fa8c8; // the physical view's colour for a replicated array

QString rangeText(const IndexRange& r) { return QStringLiteral("%1:%2").arg(r.start).arg(r.stop); }

QString shapeText(const Shape& shape) { return QString::fromStdString(shapeRepr(shape)); }

// Device ids laid into at most `maxLines` lines of `width`, comma-separated; when they do not all
// fit, the last line ends in "+N" (N more devices hold the same block).
QString fitIds(const QStringList& ids, const QFontMetricsF& fm, double width, int maxLines) {
  if (maxLines < 1) return {};
  QStringList lines;
  QString line;
  for (int i = 0; i < ids.size(); ++i) {
    const QString next = line.isEmpty() ? ids[i] : line + QLatin1Char(',') + ids[i];
    const bool lastLine = static_cast<int>(lines.size()) + 1 == maxLines;
    const int after = static_cast<int>(ids.size()) - i - 1;
    const QString needed = lastLine && after > 0 ? next + QStringLiteral(",+%1").arg(after) : next;
    if (fm.horizontalAdvance(needed) <= width) {
      line = next;
      continue;
    }
    if (!lastLine && !line.isEmpty()) {
      lines << line;
      line = ids[i];
      continue;
    }
    const QString more = QStringLiteral("+%1").arg(ids.size() - i);
    lines << (line.isEmpty() ? more : line + QLatin1Char(',') + more);
    return lines.join(QLatin1Char('\n'));
  }
  if (!line.isEmpty()) lines << line;
  return lines.join(QLatin1Char('\n'));
}

} // namespace

ShardGridView::ShardGridView(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  setMinimumHeight(140);
  setWhatsThis(tr("<b>Shards of the selected parameter</b><br>The array cut into the blocks its partition spec "
                  "makes: the last dimension across, the one before it down, leading dimensions as separate "
                  "panels. Each block shows the ids of the devices holding it, in the colour the physical view "
                  "uses for that shard. Click a block to select its first device."));
  connect(selection_, &ViewSelection::paramChanged, this, [this] { recompute(); });
  connect(selection_, &ViewSelection::decodedChanged, this, [this] { recompute(); });
  connect(selection_, &ViewSelection::deviceChanged, this, [this] { update(); });
  recompute();
}

void ShardGridView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  recompute();
}

void ShardGridView::recompute() {
  blocks_.clear();
  deviceBlock_.clear();
  summary_.clear();
  message_.clear();
  if (analysis_ && selection_->decoded()) {
    showDecoded(*selection_->decoded());
    return;
  }
  const QString path = selection_->param();
  const auto found = analysis_ && !path.isEmpty() ? analysis_->params.find(path.toStdString()) : std::nullopt;
  if (!found) {
    message_ = analysis_ && !analysis_->params.empty()
                   ? tr("Select a parameter in the tree to see how it is cut into shards.")
                   : tr("No parameters yet: the shards appear once the model is sharded.");
    update();
    return;
  }
  const ParamRow row = analysis_->params[*found];
  try {
    const MeshAxes mesh = MeshAxes::fromMesh(analysis_->mesh);
    layout_ = layoutArray(mesh, row.shape, parseDType(row.dtype), row.spec, {row.path});
    blocks_ = shardBlocks(layout_, mesh);
    // Grid positions to device positions, so clicks and the selected device speak the views' language.
    const auto& grid = analysis_->mesh.grid.data();
    deviceBlock_.assign(analysis_->mesh.devices.size(), -1);
    for (std::size_t b = 0; b < blocks_.size(); ++b)
      for (auto& p : blocks_[b].positions) {
        p = grid[static_cast<std::size_t>(p)];
        deviceBlock_[static_cast<std::size_t>(p)] = static_cast<int>(b);
      }
  } catch (const Error& e) {
    blocks_.clear();
    deviceBlock_.clear();
    message_ = tr("%1: %2").arg(path, QString::fromStdString(e.what()));
    update();
    return;
  }
  std::int64_t empty = 0;
  for (const auto& b : blocks_)
    for (const auto& r : b.ranges) empty += r.start == r.stop ? 1 : 0;
  summary_ = tr("%1  %2 %3 · %4 shard(s) × %5 replica(s) · shard %6, %7 per device")
                 .arg(path, shapeText(row.shape), QString::fromStdString(row.spec.toString()))
                 .arg(layout_.shards)
                 .arg(layout_.replication)
                 .arg(shapeText(layout_.shard_shape), formatBytes(static_cast<double>(layout_.shard_bytes)));
  if (layout_.uneven) summary_ += tr(" · uneven (padded)");
  if (empty > 0) summary_ += tr(" · %n empty block(s)", nullptr, static_cast<int>(empty));
  update();
}

// A pasted HLO sharding (Sharding dock, "Decode sharding"): its blocks, holders mapped from grid
// positions (HLO device ids) to device positions like a parameter's.
void ShardGridView::showDecoded(const DecodedSharding& decoded) {
  layout_ = decoded.blocks.layout;
  blocks_ = decoded.blocks.blocks;
  const auto& grid = analysis_->mesh.grid.data();
  deviceBlock_.assign(analysis_->mesh.devices.size(), -1);
  for (std::size_t b = 0; b < blocks_.size(); ++b)
    for (auto& p : blocks_[b].positions) {
      if (p < 0 || static_cast<std::size_t>(p) >= grid.size()) continue;
      p = grid[static_cast<std::size_t>(p)];
      deviceBlock_[static_cast<std::size_t>(p)] = static_cast<int>(b);
    }
  summary_ = tr("%1 on %2 · %3 shard(s) × %4 replica(s) · shard %5")
                 .arg(decoded.text, shapeText(decoded.shape))
                 .arg(layout_.shards)
                 .arg(layout_.replication)
                 .arg(shapeText(layout_.shard_shape));
  if (layout_.uneven) summary_ += tr(" · uneven (padded)");
  update();
}

QRectF ShardGridView::blocksArea(const QRectF& target) const {
  const double header = QFontMetricsF(font()).height() * 2.2;
  return target.adjusted(4, header, -4, -4);
}

void ShardGridView::layoutCells(const QRectF& area, std::vector<Cell>& cells, std::vector<Facet>& facets) const {
  cells.clear();
  facets.clear();
  if (blocks_.empty()) return;
  const std::size_t rank = layout_.dims.size();
  const int colDim = rank >= 1 ? static_cast<int>(rank) - 1 : -1;
  const int rowDim = rank >= 2 ? static_cast<int>(rank) - 2 : -1;
  // Facets: every combination of block indices along the leading dimensions.
  std::int64_t facetCount = 1;
  for (std::size_t d = 0; d + 2 < rank; ++d) facetCount *= layout_.dims[d].ways;
  const int shown = static_cast<int>(std::min<std::int64_t>(facetCount, kMaxFacets));
  const int facetCols = static_cast<int>(
      std::ceil(std::sqrt(static_cast<double>(shown) * std::max(1.0, area.width() / std::max(1.0, area.height())))));
  const int cols = std::max(1, std::min(facetCols, shown));
  const int rows = (shown + cols - 1) / cols;
  const double gap = shown > 1 ? 8 : 0;
  const double label = rank > 2 ? QFontMetricsF(font()).height() + 2 : 0;
  const double fw = (area.width() - gap * (cols - 1)) / cols;
  const double fh = (area.height() - gap * (rows - 1)) / rows;
  if (fw < 4 || fh - label < 4) return;
  const std::int64_t perFacet = static_cast<std::int64_t>(blocks_.size()) / facetCount;
  for (int f = 0; f < shown; ++f) {
    const QRectF frame(area.left() + (f % cols) * (fw + gap), area.top() + (f / cols) * (fh + gap), fw, fh);
    const QRectF body = frame.adjusted(0, label, 0, 0);
    const ShardBlock& first = blocks_[static_cast<std::size_t>(f * perFacet)];
    QStringList where;
    for (std::size_t d = 0; d + 2 < rank; ++d) where << tr("dim %1 [%2]").arg(d).arg(rangeText(first.ranges[d]));
    facets.push_back({where.join(QStringLiteral(", ")), frame});
    for (std::int64_t k = 0; k < perFacet; ++k) {
      const int b = static_cast<int>(f * perFacet + k);
      const ShardBlock& block = blocks_[static_cast<std::size_t>(b)];
      // Extent along a dimension in proportion to the array's size (ragged blocks are narrower).
      const auto span = [&](int dim, double origin, double length, double& from, double& to) {
        if (dim < 0) {
          from = origin;
          to = origin + length;
          return;
        }
        const double n = static_cast<double>(std::max<std::int64_t>(1, layout_.shape[static_cast<std::size_t>(dim)]));
        from = origin + length * static_cast<double>(block.ranges[static_cast<std::size_t>(dim)].start) / n;
        to = origin + length * static_cast<double>(block.ranges[static_cast<std::size_t>(dim)].stop) / n;
      };
      double x0, x1, y0, y1;
      span(colDim, body.left(), body.width(), x0, x1);
      span(rowDim, body.top(), body.height(), y0, y1);
      cells.push_back({b, QRectF(QPointF(x0, y0), QPointF(x1, y1))});
    }
  }
}

QString ShardGridView::blockDevices(int block) const {
  if (!analysis_ || block < 0 || block >= static_cast<int>(blocks_.size())) return {};
  QStringList ids;
  for (auto p : blocks_[static_cast<std::size_t>(block)].positions)
    ids << QString::number(analysis_->mesh.devices[static_cast<std::size_t>(p)].id);
  return ids.join(QLatin1Char(','));
}

void ShardGridView::render(QPainter& painter, const QRectF& target) {
  painter.save();
  painter.setRenderHint(QPainter::Antialiasing, false);
  const QPalette pal = palette();
  painter.fillRect(target, pal.color(QPalette::Base));
  painter.setPen(pal.color(QPalette::Text));
  const QRectF headerRect = target.adjusted(4, 2, -4, 0);
  if (blocks_.empty()) {
    painter.drawText(target.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, message_);
    painter.restore();
    return;
  }
  painter.drawText(headerRect, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, summary_);
  std::vector<Cell> cells;
  std::vector<Facet> facets;
  layoutCells(blocksArea(target), cells, facets);
  QFont small = font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  painter.setFont(small);
  const QFontMetricsF fm(small);
  for (const auto& f : facets)
    if (!f.label.isEmpty())
      painter.drawText(f.rect.adjusted(0, 0, 0, -(f.rect.height() - fm.height())), Qt::AlignLeft, f.label);
  const int selected = selection_ ? blockOfDevice(selection_->device()) : -1;
  for (const auto& c : cells) {
    const QColor fill = layout_.shards > 1 ? categoricalColor(c.block) : QColor(kReplicated);
    const QRectF r = c.rect.width() >= 1 && c.rect.height() >= 1 ? c.rect : c.rect.adjusted(0, 0, 1, 1);
    painter.fillRect(r, fill);
    painter.setPen(QPen(pal.color(QPalette::Base), 1));
    painter.drawRect(r);
    if (r.height() >= fm.height() && r.width() >= fm.averageCharWidth() * 3) {
      painter.setPen(fill.lightnessF() > 0.6 ? Qt::black : Qt::white);
      const QString ids = fitIds(blockDevices(c.block).split(QLatin1Char(',')), fm, r.width() - 4,
                                 static_cast<int>(r.height() / fm.height()));
      painter.drawText(r, Qt::AlignCenter, ids);
    }
  }
  for (const auto& c : cells)
    if (c.block == selected) {
      painter.setPen(QPen(pal.color(QPalette::Text), 2.5));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(c.rect.adjusted(1, 1, -1, -1));
    }
  painter.restore();
}

int ShardGridView::blockOfDevice(int devicePos) const {
  return devicePos >= 0 && devicePos < static_cast<int>(deviceBlock_.size())
             ? deviceBlock_[static_cast<std::size_t>(devicePos)]
             : -1;
}

QRectF ShardGridView::blockRect(int block) const {
  std::vector<Cell> cells;
  std::vector<Facet> facets;
  layoutCells(blocksArea(rect()), cells, facets);
  for (const auto& c : cells)
    if (c.block == block) return c.rect;
  return {};
}

int ShardGridView::blockAt(QPointF point) const {
  std::vector<Cell> cells;
  std::vector<Facet> facets;
  layoutCells(blocksArea(rect()), cells, facets);
  for (const auto& c : cells)
    if (c.rect.contains(point)) return c.block;
  return -1;
}

void ShardGridView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  render(painter, rect());
}

void ShardGridView::mouseReleaseEvent(QMouseEvent* event) {
  const int b = blockAt(event->position());
  if (b >= 0 && !blocks_[static_cast<std::size_t>(b)].positions.empty())
    selection_->setDevice(static_cast<int>(blocks_[static_cast<std::size_t>(b)].positions.front()));
}

bool ShardGridView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int b = blockAt(help->pos());
    if (b < 0) {
      QToolTip::hideText();
      return true;
    }
    const ShardBlock& block = blocks_[static_cast<std::size_t>(b)];
    QStringList ranges;
    for (const auto& r : block.ranges) ranges << rangeText(r);
    QToolTip::showText(help->globalPos(),
                       tr("Block %1: [%2]\nHeld by %n device(s): %3", nullptr, static_cast<int>(block.positions.size()))
                           .arg(shapeText(block.block), ranges.join(QStringLiteral(", ")), blockDevices(b)),
                       this);
    return true;
  }
  return QWidget::event(event);
}

} // namespace shardscope::ui
