// SPDX-License-Identifier: Apache-2.0
#include "views/pipeline_timeline_view.hpp"

#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

constexpr double kMargin = 8;
constexpr double kLegendHeight = 22;
constexpr double kAxisHeight = 18;  // time tick labels under the rows
constexpr double kStatsWidth = 128; // per-rank figures right of the rows
constexpr double kGap = 24;         // between the timeline and the memory plot (its title)
constexpr double kMinMemory = 90;   // the memory plot's least height

QColor typeColor(TaskType type) {
  switch (type) {
  case TaskType::Fwd:
    return QColor(0x4e79a7);
  case TaskType::Bwd:
    return QColor(0xe15759);
  case TaskType::BwdI:
    return QColor(0xf28e2b);
  case TaskType::BwdW:
    return QColor(0x59a14f);
  }
  return Qt::gray;
}

const char* typeLetter(TaskType type) {
  switch (type) {
  case TaskType::Fwd:
    return "F";
  case TaskType::Bwd:
    return "B";
  case TaskType::BwdI:
    return "I";
  case TaskType::BwdW:
    return "W";
  }
  return "?";
}

QString typeWords(const PipelineTask& t) {
  switch (t.type) {
  case TaskType::Fwd:
    return QObject::tr("forward");
  case TaskType::Bwd:
    return QObject::tr("backward");
  case TaskType::BwdI:
    return t.merged_bwd_w ? QObject::tr("input-grad + weight-grad") : QObject::tr("input-grad");
  case TaskType::BwdW:
    return QObject::tr("weight-grad");
  }
  return {};
}

QString taskName(const PipelineTask& t) {
  return QStringLiteral("%1%2 (stage %3)").arg(typeLetter(t.type)).arg(t.microbatch).arg(t.stage);
}

// A round step for about `target` ticks over `span`.
double niceStep(double span, int target) {
  if (span <= 0) return 1;
  const double raw = span / std::max(target, 1);
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (raw <= m * mag) return m * mag;
  return 10 * mag;
}

// "rank 0 · stage 0", "rank 1 · stages 1, 6".
QString rankLabel(const PipelineRankSummary& r) {
  QStringList stages;
  for (int s : r.stages) stages << QString::number(s);
  if (stages.size() > 3) return QObject::tr("rank %1").arg(r.rank);
  return stages.size() == 1 ? QObject::tr("rank %1 · stage %2").arg(r.rank).arg(stages.front())
                            : QObject::tr("rank %1 · stages %2").arg(r.rank).arg(stages.join(", "));
}

QColor textOn(const QColor& fill) { return fill.lightnessF() > 0.6 ? QColor(20, 20, 20) : QColor(250, 250, 250); }

} // namespace

PipelineTimelineView::PipelineTimelineView(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setAttribute(Qt::WA_OpaquePaintEvent);
  setObjectName("PipelineTimelineView");
}

QSize PipelineTimelineView::sizeHint() const { return {900, 420}; }
QSize PipelineTimelineView::minimumSizeHint() const { return {360, 220}; }

bool PipelineTimelineView::hasTimeline() const {
  return analysis_ && analysis_->pipeline && analysis_->pipeline->scheduled && analysis_->pipeline->makespan > 0;
}

void PipelineTimelineView::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  taskEnds_.clear();
  previousOnRank_.clear();
  hover_ = -1;
  if (hasTimeline()) {
    const auto& tl = analysis_->pipeline->timeline;
    std::vector<int> lastOnRank(analysis_->pipeline->ranks.size(), -1);
    previousOnRank_.assign(tl.events.size(), -1);
    for (std::size_t i = 0; i < tl.events.size(); ++i) {
      const auto& ev = tl.events[i];
      double end = ev.start;
      for (const auto& t : tl.members(ev)) {
        end += t.latency;
        taskEnds_[{static_cast<int>(t.type), t.stage, t.microbatch}] = {static_cast<int>(i), end};
      }
      if (ev.rank >= 0 && static_cast<std::size_t>(ev.rank) < lastOnRank.size()) {
        previousOnRank_[i] = lastOnRank[static_cast<std::size_t>(ev.rank)];
        lastOnRank[static_cast<std::size_t>(ev.rank)] = static_cast<int>(i);
      }
    }
  }
  if (analysis_ && analysis_->pipeline && selectedRank_ >= static_cast<int>(analysis_->pipeline->ranks.size()))
    selectedRank_ = -1;
  update();
}

void PipelineTimelineView::setSelectedRank(int rank) {
  if (rank == selectedRank_) return;
  selectedRank_ = rank;
  update();
}

PipelineTimelineView::Geometry PipelineTimelineView::geometry(const QRectF& target) const {
  Geometry g;
  if (!hasTimeline()) return g;
  const auto& p = *analysis_->pipeline;
  const double ranks = static_cast<double>(std::max<std::size_t>(p.ranks.size(), 1));
  const QRectF inner = target.adjusted(kMargin, kMargin, -kMargin, -kMargin);
  // Wide enough for the longest rank label ("rank 12 · s3,12") and the byte ticks.
  const QFontMetricsF fm(font());
  double widest = fm.horizontalAdvance(QStringLiteral("88.8 GiB"));
  for (const auto& r : p.ranks) widest = std::max(widest, fm.horizontalAdvance(rankLabel(r)) + 16);
  g.labelWidth = std::min(widest + 10, std::max(80.0, inner.width() * 0.3));
  const double legendHeight = (legendPlaces(inner.width()).back().first + 1) * kLegendHeight;
  g.legend = QRectF(inner.left(), inner.top(), inner.width(), legendHeight);
  const double below = inner.height() - legendHeight;
  const double memoryHeight = p.has_memory ? std::max(kMinMemory, below * 0.36) : 0.0;
  const double rowsHeight = std::max(ranks * 8.0, below - memoryHeight - kAxisHeight - (p.has_memory ? kGap : 0));
  g.rowHeight = std::clamp(rowsHeight / ranks, 8.0, 34.0);
  const double left = inner.left() + g.labelWidth, right = inner.right() - kStatsWidth;
  g.timeline = QRectF(left, g.legend.bottom() + 4, std::max(10.0, right - left), g.rowHeight * ranks);
  g.timeScale = g.timeline.width() / p.makespan;
  if (p.has_memory) {
    const double top = g.timeline.bottom() + kAxisHeight + kGap;
    g.memory = QRectF(left, top, g.timeline.width(), std::max(40.0, inner.bottom() - top - 4));
    double most = p.hbm_bytes;
    for (const auto& r : p.ranks) most = std::max(most, r.totalBytes());
    g.memoryMax = most > 0 ? most * 1.08 : 1.0;
  }
  return g;
}

double PipelineTimelineView::xOf(const Geometry& g, double time) const {
  return g.timeline.left() + time * g.timeScale;
}

QRectF PipelineTimelineView::eventRectIn(const Geometry& g, int event) const {
  if (!hasTimeline()) return {};
  const auto& events = analysis_->pipeline->timeline.events;
  if (event < 0 || static_cast<std::size_t>(event) >= events.size()) return {};
  const auto& ev = events[static_cast<std::size_t>(event)];
  const double top = g.timeline.top() + ev.rank * g.rowHeight + 2;
  return QRectF(xOf(g, ev.start), top, std::max(1.0, (ev.end - ev.start) * g.timeScale), g.rowHeight - 4);
}

QRectF PipelineTimelineView::eventRect(int event) const { return eventRectIn(geometry(QRectF(rect())), event); }

QRectF PipelineTimelineView::rankLabelRect(int rank) const {
  const Geometry g = geometry(QRectF(rect()));
  if (!hasTimeline() || rank < 0 || rank >= static_cast<int>(analysis_->pipeline->ranks.size())) return {};
  return QRectF(g.timeline.left() - g.labelWidth, g.timeline.top() + rank * g.rowHeight, g.labelWidth - 4, g.rowHeight);
}

int PipelineTimelineView::eventAt(QPointF point) const {
  if (!hasTimeline()) return -1;
  const Geometry g = geometry(QRectF(rect()));
  const auto& events = analysis_->pipeline->timeline.events;
  for (std::size_t i = 0; i < events.size(); ++i)
    if (eventRectIn(g, static_cast<int>(i)).contains(point)) return static_cast<int>(i);
  return -1;
}

int PipelineTimelineView::rankAt(QPointF point) const {
  if (!hasTimeline()) return -1;
  const Geometry g = geometry(QRectF(rect()));
  const QRectF rows(g.timeline.left() - g.labelWidth, g.timeline.top(), g.labelWidth + g.timeline.width() + kStatsWidth,
                    g.timeline.height());
  if (!rows.contains(point)) return -1;
  const int r = static_cast<int>((point.y() - g.timeline.top()) / g.rowHeight);
  return r >= 0 && r < static_cast<int>(analysis_->pipeline->ranks.size()) ? r : -1;
}

std::vector<int> PipelineTimelineView::waitedFor(int event) const {
  std::vector<int> out;
  if (!hasTimeline()) return out;
  const auto& p = *analysis_->pipeline;
  const auto& events = p.timeline.events;
  if (event < 0 || static_cast<std::size_t>(event) >= events.size()) return out;
  for (const auto& t : p.timeline.members(events[static_cast<std::size_t>(event)]))
    for (const auto& dep : taskDependencies(t, p.num_stages, isPartialBwd(p.schedule))) {
      const auto it = taskEnds_.find({static_cast<int>(dep.type), dep.stage, dep.microbatch});
      if (it != taskEnds_.end() && it->second.first != event &&
          std::find(out.begin(), out.end(), it->second.first) == out.end())
        out.push_back(it->second.first);
    }
  return out;
}

QString PipelineTimelineView::timeText(double t) const {
  // Seconds from the step estimate as durations read (1.26 s, 412 ms); task units keep at most two decimals, trailing
  // zeros dropped: 33, 26.5, 0.25.
  if (analysis_ && analysis_->pipeline && analysis_->pipeline->time_unit == PipelineTimeUnit::Seconds)
    return formatSeconds(t);
  return QString::number(std::round(t * 100) / 100, 'g', 12);
}

QString PipelineTimelineView::describeEvent(int event) const {
  if (!hasTimeline()) return {};
  const auto& p = *analysis_->pipeline;
  const auto& events = p.timeline.events;
  if (event < 0 || static_cast<std::size_t>(event) >= events.size()) return {};
  const auto& ev = events[static_cast<std::size_t>(event)];
  const auto members = p.timeline.members(ev);
  QStringList tasks;
  for (const auto& t : members)
    tasks << tr("%1 of micro-batch %2, stage %3").arg(typeWords(t)).arg(t.microbatch).arg(t.stage);
  QString text = tr("<b>rank %1</b> · %2").arg(ev.rank).arg(tasks.join(tr(" + ")));
  if (members.size() > 1) text += tr(" <i>(fused: run back to back as one unit)</i>");
  text += tr("<br>runs %1 – %2").arg(timeText(ev.start), timeText(ev.end));
  if (p.time_unit == PipelineTimeUnit::Task) text += tr(" (task units)");

  // What it waited for: the dependency that finished last, or its own rank.
  double latestDep = -1;
  QString latestName;
  int latestRank = -1;
  for (const auto& t : members)
    for (const auto& dep : taskDependencies(t, p.num_stages, isPartialBwd(p.schedule))) {
      const auto it = taskEnds_.find({static_cast<int>(dep.type), dep.stage, dep.microbatch});
      if (it == taskEnds_.end() || it->second.first == event) continue;
      if (it->second.second > latestDep) {
        latestDep = it->second.second;
        const auto& owner = events[static_cast<std::size_t>(it->second.first)];
        PipelineTask shown = dep;
        for (const auto& m : p.timeline.members(owner))
          if (m.type == dep.type && m.stage == dep.stage && m.microbatch == dep.microbatch) shown = m;
        latestName = taskName(shown);
        latestRank = owner.rank;
      }
    }
  const int prev = previousOnRank_.empty() ? -1 : previousOnRank_[static_cast<std::size_t>(event)];
  const double prevEnd = prev >= 0 ? events[static_cast<std::size_t>(prev)].end : 0.0;
  if (ev.start <= 0 && latestDep <= 0) {
    text += tr("<br>waits for nothing: it starts the step");
  } else if (latestDep >= 0 && latestDep >= prevEnd - 1e-12 && latestDep > 0) {
    text +=
        tr("<br>waits for <b>%1</b> on rank %2 (done at %3)").arg(latestName).arg(latestRank).arg(timeText(latestDep));
    if (prev >= 0 && std::fabs(prevEnd - latestDep) < 1e-12) text += tr(", as its rank frees up");
  } else if (prev >= 0) {
    QStringList prevTasks;
    for (const auto& t : p.timeline.members(events[static_cast<std::size_t>(prev)])) prevTasks << taskName(t);
    text += tr("<br>waits for its rank: <b>%1</b> runs until %2").arg(prevTasks.join(" + "), timeText(prevEnd));
    if (latestDep >= 0) text += tr(" (its inputs, %1, were ready at %2)").arg(latestName, timeText(latestDep));
  }
  if (ev.start > std::max(prevEnd, latestDep) + 1e-9)
    text += tr("<br>idle before it: %1").arg(timeText(ev.start - std::max(prevEnd, std::max(latestDep, 0.0))));
  return text;
}

std::vector<PipelineTimelineView::LegendSwatch> PipelineTimelineView::legendSwatches() const {
  const auto& p = *analysis_->pipeline;
  const QColor text = palette().color(QPalette::Text);
  std::vector<LegendSwatch> out;
  out.push_back({typeColor(TaskType::Fwd), Qt::NoPen, tr("F forward")});
  if (isPartialBwd(p.schedule)) {
    out.push_back({typeColor(TaskType::BwdI), Qt::NoPen, tr("I input-grad")});
    out.push_back({typeColor(TaskType::BwdW), Qt::NoPen, tr("W weight-grad")});
  } else {
    out.push_back({typeColor(TaskType::Bwd), Qt::NoPen, tr("B backward")});
  }
  out.push_back({QColor(0xd0d0d0), QPen(text, 2), tr("fused group")});
  out.push_back({QBrush(QColor(150, 150, 150), Qt::BDiagPattern), QPen(QColor(170, 170, 170)), tr("bubble (idle)")});
  bool chunks = false;
  for (const auto& r : p.ranks) chunks = chunks || r.stages.size() > 1;
  if (chunks) out.push_back({typeColor(TaskType::Fwd).lighter(150), Qt::NoPen, tr("lighter: the rank's later stage")});
  return out;
}

namespace {
QString legendNote() { return QObject::tr("numbers: micro-batch · hover a task: what it waits for"); }
} // namespace

std::vector<std::pair<int, double>> PipelineTimelineView::legendPlaces(double width) const {
  const QFontMetricsF fm(font());
  std::vector<double> widths;
  for (const auto& s : legendSwatches()) widths.push_back(27 + fm.horizontalAdvance(s.label) + 2);
  widths.push_back(fm.horizontalAdvance(legendNote()) + 2);
  std::vector<std::pair<int, double>> out;
  int row = 0;
  double x = 0;
  for (double w : widths) {
    if (x > 0 && x + w > width) {
      ++row;
      x = 0;
    }
    out.emplace_back(row, x);
    x += w + 12;
  }
  return out;
}

int PipelineTimelineView::legendRows() const {
  if (!hasTimeline()) return 0;
  return legendPlaces(width() - 2 * kMargin).back().first + 1;
}

void PipelineTimelineView::paintLegend(QPainter& painter, const Geometry& g) const {
  const QColor text = palette().color(QPalette::Text);
  const auto swatches = legendSwatches();
  const auto places = legendPlaces(g.legend.width());
  for (std::size_t i = 0; i < swatches.size(); ++i) {
    const double x = g.legend.left() + places[i].second;
    const double top = g.legend.top() + places[i].first * kLegendHeight;
    painter.setPen(swatches[i].pen);
    painter.setBrush(swatches[i].brush);
    painter.drawRect(QRectF(x, top + 4, 22, 12));
    painter.setPen(text);
    painter.drawText(QRectF(x + 27, top, g.legend.right() - x - 27, kLegendHeight), Qt::AlignLeft | Qt::AlignVCenter,
                     swatches[i].label);
  }
  // The numbers: the bar label is the micro-batch.
  const auto& [row, offset] = places.back();
  painter.setPen(palette().color(QPalette::PlaceholderText));
  painter.drawText(
      QRectF(g.legend.left() + offset, g.legend.top() + row * kLegendHeight, g.legend.width() - offset, kLegendHeight),
      Qt::AlignLeft | Qt::AlignVCenter, legendNote());
}

void PipelineTimelineView::paintTimeline(QPainter& painter, const Geometry& g) const {
  const auto& p = *analysis_->pipeline;
  const auto& tl = p.timeline;
  const QPalette pal = palette();
  const QColor text = pal.color(QPalette::Text);
  const bool dark = pal.color(QPalette::Base).lightnessF() < 0.5;

  // Rows: background, bubbles (the whole row hatched, tasks drawn over it), labels, figures.
  for (const auto& r : p.ranks) {
    const QRectF row(g.timeline.left(), g.timeline.top() + r.rank * g.rowHeight, g.timeline.width(), g.rowHeight);
    const bool selected = r.rank == selectedRank_;
    painter.fillRect(row.adjusted(0, 1, 0, -1), dark ? QColor(60, 60, 60) : QColor(236, 236, 236));
    painter.fillRect(row.adjusted(0, 1, 0, -1),
                     QBrush(dark ? QColor(110, 110, 110) : QColor(175, 175, 175), Qt::BDiagPattern));
    if (selected) {
      painter.setPen(QPen(pal.color(QPalette::Highlight), 2));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(row.adjusted(-g.labelWidth + 1, 0, kStatsWidth - 2, 0));
    }
    // Label: the rank's colour (as in the physical view's Pipeline overlay) and its stages.
    const QRectF label(row.left() - g.labelWidth, row.top(), g.labelWidth - 6, row.height());
    painter.fillRect(QRectF(label.left(), label.center().y() - 5, 10, 10), categoricalColor(r.rank));
    painter.setPen(text);
    QFont f = painter.font();
    f.setBold(selected);
    painter.setFont(f);
    const QString name = rankLabel(r);
    painter.drawText(label.adjusted(14, 0, 0, 0), Qt::AlignLeft | Qt::AlignVCenter,
                     painter.fontMetrics().elidedText(name, Qt::ElideRight, static_cast<int>(label.width() - 14)));
    f.setBold(false);
    painter.setFont(f);
    // "29.5% idle · 4 in flight" on one line where it fits, else on two when the row is tall enough,
    // else shortened (the rank's tooltip has the figures).
    const QRectF stats(row.right() + 6, row.top(), kStatsWidth - 6, row.height());
    const QString idle = tr("%1 idle").arg(formatPercent(r.bubble));
    const QString inFlight = tr("%1 in flight").arg(r.peak_in_flight);
    const QString line = idle + QStringLiteral(" · ") + inFlight;
    const QFontMetricsF fm(painter.font());
    if (fm.horizontalAdvance(line) <= stats.width() || row.height() < 2 * fm.height())
      painter.drawText(stats, Qt::AlignLeft | Qt::AlignVCenter,
                       painter.fontMetrics().elidedText(line, Qt::ElideRight, static_cast<int>(stats.width())));
    else
      painter.drawText(stats, Qt::AlignLeft | Qt::AlignVCenter, idle + QLatin1Char('\n') + inFlight);
  }

  // Tasks: one rectangle per member, coloured by type; the later stages of a rank lighter.
  QFont small = painter.font();
  small.setPixelSize(static_cast<int>(std::clamp(g.rowHeight * 0.5, 8.0, 12.0)));
  painter.setFont(small);
  const QFontMetricsF fm(small);
  // Tasks narrower than a pixel (GPipe with M = 65536 is half a million of them) are drawn once
  // per pixel column and rank: the first task to reach a column paints it, the others in it are
  // skipped, so the work and an SVG's size follow the view's width, not the schedule's length.
  std::vector<double> paintedTo(p.ranks.size(), -1.0); // per rank: the right edge already painted
  for (std::size_t i = 0; i < tl.events.size(); ++i) {
    const auto& ev = tl.events[i];
    if (ev.rank < 0 || static_cast<std::size_t>(ev.rank) >= p.ranks.size()) continue;
    const auto& stages = p.ranks[static_cast<std::size_t>(ev.rank)].stages;
    const QRectF box = eventRectIn(g, static_cast<int>(i));
    double& painted = paintedTo[static_cast<std::size_t>(ev.rank)];
    double t = ev.start;
    for (const auto& m : tl.members(ev)) {
      const QRectF r(xOf(g, t), box.top(), std::max(1.0, m.latency * g.timeScale), box.height());
      t += m.latency;
      if (r.width() < 3 && r.right() <= painted + 0.5) continue; // its pixel column is painted
      painted = std::max(painted, r.right());
      const auto chunk = std::find(stages.begin(), stages.end(), m.stage) - stages.begin();
      QColor fill = typeColor(m.type);
      if (chunk > 0) fill = fill.lighter(static_cast<int>(100 + std::min<std::ptrdiff_t>(chunk, 3) * 40));
      painter.fillRect(r, fill);
      if (r.width() < 3) continue; // no separator or number on a sliver
      painter.setPen(QPen(pal.color(QPalette::Base), 1));
      painter.drawLine(QPointF(r.right(), r.top()), QPointF(r.right(), r.bottom()));
      const QString full = QStringLiteral("%1%2").arg(typeLetter(m.type)).arg(m.microbatch);
      const QString number = QString::number(m.microbatch);
      const QString shown = fm.horizontalAdvance(full) + 4 <= r.width()     ? full
                            : fm.horizontalAdvance(number) + 2 <= r.width() ? number
                                                                            : QString();
      if (!shown.isEmpty() && g.rowHeight >= 10) {
        painter.setPen(textOn(fill));
        painter.drawText(r, Qt::AlignCenter, shown);
      }
    }
    if (ev.task_count > 1) {
      painter.setPen(QPen(dark ? QColor(245, 245, 245) : QColor(25, 25, 25), 2));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(box.adjusted(0.5, 0.5, -0.5, -0.5));
    }
  }

  // The hovered task, and arrows from what it waited for.
  if (hover_ >= 0 && static_cast<std::size_t>(hover_) < tl.events.size()) {
    const QRectF box = eventRectIn(g, hover_);
    painter.setRenderHint(QPainter::Antialiasing, true);
    const QColor accent = pal.color(QPalette::Highlight);
    for (int dep : waitedFor(hover_)) {
      const QRectF from = eventRectIn(g, dep);
      const QPointF a(from.right(), from.center().y()), b(box.left(), box.center().y());
      painter.setPen(QPen(accent, 2));
      painter.drawLine(a, b);
      const QLineF line(b, a);
      const double angle = std::atan2(line.dy(), line.dx());
      QPainterPath head;
      head.moveTo(b);
      head.lineTo(b + QPointF(std::cos(angle + 0.45) * 8, std::sin(angle + 0.45) * 8));
      head.lineTo(b + QPointF(std::cos(angle - 0.45) * 8, std::sin(angle - 0.45) * 8));
      head.closeSubpath();
      painter.fillPath(head, accent);
      painter.setPen(QPen(accent, 2));
      painter.setBrush(Qt::NoBrush);
      painter.drawRect(from);
    }
    painter.setPen(QPen(accent, 3));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(box.adjusted(-1, -1, 1, 1));
    painter.setRenderHint(QPainter::Antialiasing, false);
  }

  // Time axis under the rows.
  painter.setFont(small);
  painter.setPen(pal.color(QPalette::PlaceholderText));
  const double step = niceStep(p.makespan, std::max(2, static_cast<int>(g.timeline.width() / 90)));
  for (double t = 0; t <= p.makespan + 1e-9; t += step) {
    const double x = xOf(g, t);
    painter.drawLine(QPointF(x, g.timeline.bottom()), QPointF(x, g.timeline.bottom() + 3));
    // The first label starts at its tick, clear of the axis title to its left.
    const QRectF box = t == 0 ? QRectF(x, g.timeline.bottom() + 3, 60, kAxisHeight - 3)
                              : QRectF(x - 30, g.timeline.bottom() + 3, 60, kAxisHeight - 3);
    painter.drawText(box, (t == 0 ? Qt::AlignLeft : Qt::AlignHCenter) | Qt::AlignTop, timeText(t));
  }
  painter.drawText(QRectF(g.timeline.right() + 6, g.timeline.bottom(), kStatsWidth, kAxisHeight),
                   Qt::AlignLeft | Qt::AlignTop,
                   p.time_unit == PipelineTimeUnit::Task ? tr("makespan %1 units").arg(timeText(p.makespan))
                                                         : tr("makespan %1").arg(timeText(p.makespan)));
  painter.drawText(QRectF(g.timeline.left() - g.labelWidth, g.timeline.bottom() + 3, g.labelWidth - 10, kAxisHeight),
                   Qt::AlignRight | Qt::AlignTop,
                   p.time_unit == PipelineTimeUnit::Task ? tr("task units") : tr("time"));
}

void PipelineTimelineView::paintMemory(QPainter& painter, const Geometry& g) const {
  const auto& p = *analysis_->pipeline;
  const QPalette pal = palette();
  const QRectF& m = g.memory;
  painter.fillRect(m, pal.color(QPalette::AlternateBase));
  auto yOf = [&](double bytes) { return m.bottom() - bytes / g.memoryMax * m.height(); };
  QFont small = painter.font();
  small.setPixelSize(11);
  painter.setFont(small);
  // Gridlines and byte ticks.
  painter.setPen(pal.color(QPalette::PlaceholderText));
  const double step = niceStep(g.memoryMax / (1024.0 * 1024.0 * 1024.0), 4) * 1024.0 * 1024.0 * 1024.0;
  for (double b = 0; b <= g.memoryMax; b += step) {
    const double y = yOf(b);
    painter.setPen(QPen(pal.color(QPalette::Mid), 1, Qt::DotLine));
    painter.drawLine(QPointF(m.left(), y), QPointF(m.right(), y));
    painter.setPen(pal.color(QPalette::PlaceholderText));
    painter.drawText(QRectF(m.left() - g.labelWidth, y - 8, g.labelWidth - 6, 16), Qt::AlignRight | Qt::AlignVCenter,
                     formatBytes(b));
  }
  painter.setPen(pal.color(QPalette::Text));
  const int emphasisedRank = selectedRank_ >= 0 ? selectedRank_ : p.worst_rank;
  painter.drawText(QRectF(m.left() - g.labelWidth, m.top() - 16, m.width() + g.labelWidth, 14),
                   Qt::AlignLeft | Qt::AlignVCenter,
                   tr("Memory per device of each rank over the step: weights, gradients and optimizer state, plus the "
                      "activations of the micro-batches in flight (thick: rank %1%2)")
                       .arg(emphasisedRank)
                       .arg(selectedRank_ >= 0 ? tr(", selected") : tr(", the fullest")));
  // HBM.
  painter.setRenderHint(QPainter::Antialiasing, true);
  if (p.hbm_bytes > 0) {
    const double y = yOf(p.hbm_bytes);
    painter.setPen(QPen(QColor(0xd73027), 1.5, Qt::DashLine));
    painter.drawLine(QPointF(m.left(), y), QPointF(m.right(), y));
    painter.setPen(QColor(0xd73027));
    painter.drawText(QRectF(m.left() + 4, y - 16, m.width() - 8, 15), Qt::AlignRight | Qt::AlignBottom,
                     tr("HBM %1").arg(formatBytes(p.hbm_bytes)));
  }
  // One step line per rank; the selected (else the fullest) rank drawn thick and labelled.
  const int emphasised = selectedRank_ >= 0 ? selectedRank_ : p.worst_rank;
  auto drawRank = [&](const PipelineRankSummary& r, bool thick) {
    if (r.activation_profile.empty()) return;
    QPainterPath path;
    const double base = r.staticBytes();
    double lastY = yOf(base + r.activation_profile.front().activation_bytes);
    path.moveTo(xOf(g, 0), lastY);
    // Steps within one pixel column collapse to the column's lowest and highest level (a schedule
    // of 65536 micro-batches has 131072 steps per rank; the peaks must still show).
    double column = -1, low = 0, high = 0;
    auto flush = [&] {
      if (column < 0) return;
      path.lineTo(column, low);
      path.lineTo(column, high);
      path.lineTo(column, lastY);
    };
    for (const auto& step : r.activation_profile) {
      const double x = xOf(g, step.time);
      const double y = yOf(base + step.activation_bytes);
      if (column >= 0 && std::floor(x) == std::floor(column)) {
        low = std::min(low, y);
        high = std::max(high, y);
        lastY = y;
        continue;
      }
      flush();
      path.lineTo(x, lastY);
      column = x;
      low = std::min(lastY, y);
      high = std::max(lastY, y);
      lastY = y;
    }
    flush();
    path.lineTo(xOf(g, p.makespan), lastY);
    QColor c = categoricalColor(r.rank);
    if (!thick && emphasised >= 0) c.setAlpha(150);
    painter.setPen(QPen(c, thick ? 2.6 : 1.4));
    painter.setBrush(Qt::NoBrush);
    painter.drawPath(path);
  };
  for (const auto& r : p.ranks)
    if (r.rank != emphasised) drawRank(r, false);
  for (const auto& r : p.ranks)
    if (r.rank == emphasised) drawRank(r, true);
  // Each rank's peak on the right, the fullest named.
  double labelY = m.top();
  for (const auto& r : p.ranks) {
    if (labelY + 14 > m.bottom() + 2) break;
    const bool worst = r.rank == p.worst_rank;
    painter.fillRect(QRectF(m.right() + 6, labelY + 3, 8, 8), categoricalColor(r.rank));
    QFont f = small;
    f.setBold(worst);
    painter.setFont(f);
    painter.setPen(r.totalBytes() > p.hbm_bytes && p.hbm_bytes > 0 ? QColor(0xd73027) : pal.color(QPalette::Text));
    painter.drawText(QRectF(m.right() + 18, labelY, kStatsWidth - 18, 14), Qt::AlignLeft | Qt::AlignVCenter,
                     tr("r%1 %2%3").arg(r.rank).arg(formatBytes(r.totalBytes())).arg(worst ? tr(" max") : QString()));
    labelY += 14;
  }
  painter.setFont(small);
  painter.setRenderHint(QPainter::Antialiasing, false);
}

void PipelineTimelineView::render(QPainter& painter, const QRectF& target) {
  painter.save();
  const QPalette pal = palette();
  painter.fillRect(target, pal.color(QPalette::Base));
  painter.setPen(pal.color(QPalette::Text));
  if (!hasTimeline()) {
    QString message;
    if (!analysis_ || !analysis_->pipeline)
      message = tr("No pipeline in this workspace.\nTurn it on above to run one mesh axis as jaxpp's MPMD pipeline:\n"
                   "each index along it a pipeline rank holding only its stages' layers.");
    else if (!analysis_->pipeline->error.empty())
      message = tr("The pipeline cannot run:\n%1").arg(QString::fromStdString(analysis_->pipeline->error));
    else
      message = tr("No timeline for this pipeline.");
    painter.drawText(target.adjusted(20, 20, -20, -20), Qt::AlignCenter | Qt::TextWordWrap, message);
    painter.restore();
    return;
  }
  const Geometry g = geometry(target);
  paintLegend(painter, g);
  paintTimeline(painter, g);
  if (analysis_->pipeline->has_memory) paintMemory(painter, g);
  paintPlayCursor(painter, g);
  painter.restore();
}

void PipelineTimelineView::setPlayTime(double seconds) {
  if (seconds == playTime_) return;
  playTime_ = seconds;
  update();
}

void PipelineTimelineView::paintPlayCursor(QPainter& painter, const Geometry& g) const {
  const auto& p = *analysis_->pipeline;
  if (playTime_ < 0 || p.time_unit != PipelineTimeUnit::Seconds || playTime_ > p.makespan) return;
  const double x = xOf(g, playTime_);
  painter.setPen(QPen(QColor(0xd62728), 2));
  painter.drawLine(QPointF(x, g.timeline.top()), QPointF(x, g.timeline.bottom()));
  if (p.has_memory && !g.memory.isEmpty()) painter.drawLine(QPointF(x, g.memory.top()), QPointF(x, g.memory.bottom()));
}

void PipelineTimelineView::paintEvent(QPaintEvent*) {
  QPainter painter(this);
  render(painter, QRectF(rect()));
}

void PipelineTimelineView::mouseMoveEvent(QMouseEvent* event) {
  const int h = eventAt(event->position());
  if (h != hover_) {
    hover_ = h;
    update();
  }
  setCursor(h < 0 && rankAt(event->position()) >= 0 ? Qt::PointingHandCursor : Qt::ArrowCursor);
}

void PipelineTimelineView::mouseReleaseEvent(QMouseEvent* event) {
  if (event->button() != Qt::LeftButton) return;
  const int r = rankAt(event->position());
  if (r < 0) return;
  setSelectedRank(r == selectedRank_ ? -1 : r);
  emit rankClicked(selectedRank_);
}

void PipelineTimelineView::leaveEvent(QEvent* event) {
  if (hover_ >= 0) {
    hover_ = -1;
    update();
  }
  QWidget::leaveEvent(event);
}

QString PipelineTimelineView::describeRank(int r) const {
  if (!analysis_ || !analysis_->pipeline || r < 0 || r >= static_cast<int>(analysis_->pipeline->ranks.size()))
    return {};
  const auto& rank = analysis_->pipeline->ranks[static_cast<std::size_t>(r)];
  QString t = tr("<b>rank %1</b>: %2 layers, %3 devices · click to select them")
                  .arg(r)
                  .arg(rank.layers)
                  .arg(rank.device_positions.size());
  if (analysis_->pipeline->has_memory) {
    t += tr("<br>holds %1 per device (activations at peak %2)")
             .arg(formatBytes(rank.totalBytes()), formatBytes(rank.activation_bytes));
    // The curve follows the micro-batches in flight; the backward's moment sits on top of it.
    if (rank.transient_bytes > 0)
      t += tr("<br>of which %1 for a moment in the backward (a re-run layer, or the loss's gradient), above "
              "the curve")
               .arg(formatBytes(rank.transient_bytes));
  }
  return t;
}

bool PipelineTimelineView::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int e = eventAt(help->pos());
    if (e >= 0) {
      QToolTip::showText(help->globalPos(), describeEvent(e), this);
    } else if (const int r = rankAt(help->pos()); r >= 0) {
      QToolTip::showText(help->globalPos(), describeRank(r), this);
    } else {
      QToolTip::hideText();
    }
    return true;
  }
  return QWidget::event(event);
}

} // namespace shardscope::ui
