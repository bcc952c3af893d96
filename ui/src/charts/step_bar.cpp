// SPDX-License-Identifier: Apache-2.0
#include "charts/step_bar.hpp"

#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"

#include <QHelpEvent>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <array>
#include <cmath>

namespace shardscope::ui {

namespace {

constexpr double kMargin = 4;

QString percentOf(double part, double whole) { return whole > 0 ? formatPercent(part / whole) : QStringLiteral("–"); }

QString collectiveText(const StepCollective& c) {
  return QObject::tr("%1 %2: %3 per step, %4 calls, %5%6")
      .arg(QString::fromStdString(collectiveLabel(c.kind, c.purpose)), QString::fromStdString(c.purpose),
           formatBytes(c.bytes))
      .arg(c.count, 0, 'g', 4)
      .arg(formatSeconds(c.seconds), c.overlappable ? QObject::tr(" (can hide)") : QObject::tr(" (critical path)"));
}

} // namespace

std::vector<StepBarSegment> stepBarSegments(const Analysis& analysis) {
  std::vector<StepBarSegment> out;
  const StepEstimate& step = analysis.step;
  if (!step.estimated || !(step.time_s > 0)) return out;
  const PipelineAnalysis* pipe = analysis.pipeline && analysis.pipeline->scheduled ? &*analysis.pipeline : nullptr;
  const QString perRank = pipe ? QObject::tr("<br>Under the pipeline: one device's share, its rank running 1/%1 of "
                                             "the layers.")
                                     .arg(pipe->rank_count)
                               : QString();
  for (const StepSegment& segment : step.segments) {
    StepBarSegment s;
    s.kind = segment.kind;
    s.seconds = segment.seconds;
    const QString time = formatSeconds(segment.seconds);
    switch (segment.kind) {
    case StepPart::Compute:
      s.label = QObject::tr("compute");
      s.tooltip = QObject::tr("<b>Compute: %1</b><br>Every micro-batch's matmul and attention FLOPs (forward, "
                              "backward and recompute) at the chip's peak × flops_fraction.%2")
                      .arg(time, perRank);
      break;
    case StepPart::Hbm:
      s.label = QObject::tr("HBM-bound");
      s.tooltip = QObject::tr("<b>HBM-bound: %1</b><br>Time the work waits on HBM beyond its FLOPs (the roofline: "
                              "weights and activations moved at HBM bandwidth × hbm_fraction).%2")
                      .arg(time, perRank);
      break;
    case StepPart::Optimizer:
      s.label = QObject::tr("optimizer");
      s.tooltip = QObject::tr("<b>Optimizer update: %1</b><br>Reading parameters, gradients and optimizer state and "
                              "writing them back through HBM, once per step over each device's optimizer shard.")
                      .arg(time);
      break;
    case StepPart::Bubble:
      s.label = QObject::tr("pipeline bubble");
      if (pipe)
        s.tooltip = QObject::tr("<b>Pipeline bubble: %1</b><br>Ranks idle in the %2 schedule: %3 of its %4 makespan "
                                "(%5 micro-batches on %6 ranks). More micro-batches or an interleaved schedule "
                                "shrink it.")
                        .arg(time, QString::fromLatin1(pipelineScheduleKindName(pipe->schedule).data()),
                             formatPercent(pipe->bubble_overall), formatSeconds(pipe->makespan))
                        .arg(pipe->microbatches)
                        .arg(pipe->rank_count);
      break;
    case StepPart::Handover:
      s.label = QObject::tr("hand-overs");
      s.tooltip = QObject::tr("<b>Pipeline hand-overs: %1</b><br>Activations passed forward and gradients passed "
                              "back between ranks: the fill and the drain cross every rank boundary once each way "
                              "on the critical path (the steady state overlaps them).")
                      .arg(time);
      break;
    case StepPart::Comm: {
      s.axis = QString::fromStdString(segment.axis);
      s.label = QObject::tr("comm %1").arg(s.axis);
      const auto a = std::find_if(step.per_axis.begin(), step.per_axis.end(),
                                  [&](const StepAxis& x) { return x.axis == segment.axis; });
      QStringList lines;
      if (a != step.per_axis.end())
        for (const auto& c : a->collectives) lines << collectiveText(c);
      s.tooltip =
          QObject::tr("<b>Exposed communication on '%1': %2</b><br>Of %3 in collectives per step (%4 per "
                      "device), %5 hide behind compute; the rest waits on the axis' rings.<br>%6<br><i>Hover "
                      "highlights the axis' groups on the physical view.</i>")
              .arg(s.axis.toHtmlEscaped(), time, formatSeconds(a != step.per_axis.end() ? a->seconds : segment.seconds),
                   formatBytes(a != step.per_axis.end() ? a->bytes : 0),
                   formatSeconds(a != step.per_axis.end() ? a->overlapped : 0), lines.join("<br>"));
      break;
    }
    }
    const auto& names = analysis.mesh.axis_names;
    const int axisIndex = static_cast<int>(std::find(names.begin(), names.end(), segment.axis) - names.begin());
    s.color = stepPartColor(segment.kind, axisIndex);
    s.tooltip += QObject::tr("<br>%1 of the step.").arg(percentOf(s.seconds, step.time_s));
    out.push_back(std::move(s));
  }
  return out;
}

StepBar::StepBar(QWidget* parent) : QWidget(parent) {
  setMouseTracking(true);
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setMinimumHeight(36);
}

void StepBar::setSegments(std::vector<StepBarSegment> segments) {
  segments_ = std::move(segments);
  total_ = 0;
  for (const auto& s : segments_) total_ += s.seconds;
  if (hovered_ >= static_cast<int>(segments_.size())) setHovered(-1);
  update();
}

QRectF StepBar::barRect() const { return QRectF(rect()).adjusted(kMargin, kMargin, -kMargin, -kMargin); }

QRectF StepBar::segmentRect(int index) const {
  if (index < 0 || index >= static_cast<int>(segments_.size()) || !(total_ > 0)) return {};
  const QRectF bar = barRect();
  double x = bar.left();
  for (int i = 0; i < index; ++i) x += bar.width() * segments_[static_cast<std::size_t>(i)].seconds / total_;
  const double w = bar.width() * segments_[static_cast<std::size_t>(index)].seconds / total_;
  return QRectF(x, bar.top(), w, bar.height());
}

int StepBar::segmentAt(QPointF point) const {
  for (int i = 0; i < static_cast<int>(segments_.size()); ++i) {
    const QRectF r = segmentRect(i);
    // A piece thinner than a pixel is still found at its position.
    if (r.height() > 0 && point.y() >= r.top() && point.y() <= r.bottom() && point.x() >= r.left() &&
        point.x() <= std::max(r.right(), r.left() + 1))
      return i;
  }
  return -1;
}

void StepBar::setHovered(int index) {
  if (index == hovered_) return;
  hovered_ = index;
  update();
  emit hoveredChanged(index);
}

void StepBar::paintEvent(QPaintEvent*) {
  QPainter p(this);
  p.setRenderHint(QPainter::Antialiasing, true);
  const QPalette pal = palette();
  const QRectF bar = barRect();
  if (segments_.empty() || !(total_ > 0)) {
    p.setPen(pal.color(QPalette::Mid));
    p.drawRoundedRect(bar, 3, 3);
    return;
  }
  QFont font = p.font();
  font.setPixelSize(std::clamp(static_cast<int>(bar.height() * 0.42), 9, 13));
  p.setFont(font);
  for (int i = 0; i < static_cast<int>(segments_.size()); ++i) {
    const auto& s = segments_[static_cast<std::size_t>(i)];
    const QRectF r = segmentRect(i);
    if (r.width() <= 0) continue;
    p.fillRect(r, s.color);
    if (s.kind == StepBarSegment::Kind::Bubble) p.fillRect(r, QBrush(QColor(0, 0, 0, 60), Qt::BDiagPattern));
    if (i == hovered_) {
      p.fillRect(r, QColor(255, 255, 255, 70));
      p.setPen(QPen(pal.color(QPalette::Highlight), 2.5));
      p.drawRect(r.adjusted(1, 1, -1, -1));
    }
    // The name and the time inside when they fit, else the name, else the time.
    const QString full = QStringLiteral("%1 %2").arg(s.label, formatSeconds(s.seconds));
    const QFontMetricsF fm(font);
    const QString time = formatSeconds(s.seconds);
    QString text;
    for (const QString& option : {full, s.label, time})
      if (fm.horizontalAdvance(option) + 8 <= r.width()) {
        text = option;
        break;
      }
    if (text.isEmpty()) continue;
    p.setPen(s.color.lightnessF() > 0.55 ? QColor(20, 20, 20) : QColor(250, 250, 250));
    p.drawText(r, Qt::AlignCenter, text);
  }
  p.setPen(QPen(pal.color(QPalette::Mid), 1));
  p.setBrush(Qt::NoBrush);
  p.drawRect(bar);
}

void StepBar::mouseMoveEvent(QMouseEvent* event) {
  setHovered(segmentAt(event->position()));
  QWidget::mouseMoveEvent(event);
}

void StepBar::leaveEvent(QEvent* event) {
  setHovered(-1);
  QWidget::leaveEvent(event);
}

bool StepBar::event(QEvent* event) {
  if (event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int i = segmentAt(help->pos());
    if (i >= 0)
      QToolTip::showText(help->globalPos(), segments_[static_cast<std::size_t>(i)].tooltip, this,
                         segmentRect(i).toAlignedRect());
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::event(event);
}

} // namespace shardscope::ui
