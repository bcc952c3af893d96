// SPDX-License-Identifier: Apache-2.0
#include "panels/step_player.hpp"

#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"
#include "views/step_playback_painter.hpp"
#include "views/view_selection.hpp"

#include "shardscope/step/step_playback.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMouseEvent>
#include <QPainter>
#include <QStyle>
#include <QToolButton>
#include <QVBoxLayout>

#include <algorithm>
#include <map>

namespace shardscope::ui {

namespace {

constexpr int kLabelWidth = 84;
constexpr int kLaneHeight = 16;
constexpr int kAxisHeight = 16;   // the time labels under the lanes
constexpr int kMemoryHeight = 28; // the memory lane under the others
constexpr int kFrameMs = 33;      // ~30 frames a second

// The lanes: the whole step's compute first, then each pipeline rank (its tasks, and the
// hand-overs it sends as a thin stripe), then each axis that carries a collective, in mesh order.
using LaneKey = std::pair<int, int>; // (0 compute | 1 rank | 2 axis, index)

LaneKey laneOf(const StepSpan& s) {
  if (s.part == StepPart::Comm) return {2, s.axis_index};
  if (s.rank >= 0) return {1, s.rank};
  return {0, 0};
}

std::vector<std::pair<LaneKey, QString>> lanesOf(const StepEstimate& step) {
  std::map<LaneKey, QString> lanes;
  for (const auto& s : step.timeline) {
    const LaneKey key = laneOf(s);
    if (key.first == 0) lanes.emplace(key, QObject::tr("compute"));
    if (key.first == 1) lanes.emplace(key, QObject::tr("rank %1").arg(s.rank));
    if (key.first == 2) lanes.emplace(key, QString::fromStdString(s.axis));
  }
  return {lanes.begin(), lanes.end()};
}

// Fills the span's rectangle `r` (its whole envelope) with `color`: one rectangle, or each pulse of
// a pulsed span while they are at least 2 px apart; closer than that, the envelope with the
// colour's share of time (busy / envelope) as its alpha.
void fillSpan(QPainter& p, const StepSpan& s, const QRectF& r, const QColor& color) {
  const double envelope = s.end - s.start;
  if (s.pulses <= 1 || envelope <= 0) {
    p.fillRect(r, color);
    return;
  }
  const double pxPerSecond = r.width() / envelope;
  const double period = spanPeriod(s) * pxPerSecond;
  if (period < 2.0) {
    QColor faint = color;
    faint.setAlphaF(static_cast<float>(std::clamp(spanBusy(s) / envelope, 0.25, 1.0) * color.alphaF()));
    p.fillRect(r, faint);
    return;
  }
  const double width = std::max(1.0, s.pulse_s * pxPerSecond);
  for (std::int64_t i = 0; i < s.pulses; ++i)
    p.fillRect(QRectF(r.left() + static_cast<double>(i) * period, r.top(), width, r.height()), color);
}

} // namespace

StepTimelineStrip::StepTimelineStrip(QWidget* parent) : QWidget(parent) {
  setSizePolicy(QSizePolicy::Expanding, QSizePolicy::Fixed);
  setToolTip(tr("The step in time: compute (under a pipeline, each rank's tasks: forward light, backward dark, "
                "hand-overs it sends in green), then each mesh axis' collectives (light: hidden behind compute; "
                "solid: exposed, the step waits). Click or drag to move the cursor."));
}

void StepTimelineStrip::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  updateGeometry();
  update();
}

void StepTimelineStrip::setCursor(double seconds) {
  cursor_ = seconds;
  update();
}

void StepTimelineStrip::setMemoryDevice(int position) {
  memoryDevice_ = position;
  update();
}

bool StepTimelineStrip::showsMemory() const {
  return analysis_ && analysis_->step.estimated && !analysis_->pipeline && !analysis_->memory.per_device.empty();
}

int StepTimelineStrip::memoryDevice() const {
  if (!showsMemory()) return -1;
  const auto n = static_cast<int>(analysis_->memory.per_device.size());
  return memoryDevice_ >= 0 && memoryDevice_ < n ? memoryDevice_ : std::max(0, analysis_->memory.argmax);
}

double StepTimelineStrip::memoryAt(double seconds) const {
  const int pos = memoryDevice();
  if (pos < 0) return 0;
  const DeviceMemory& d = analysis_->memory.per_device[static_cast<std::size_t>(pos)];
  return d.total() - d.activations + d.activations * activationShareAt(analysis_->step, seconds);
}

void StepTimelineStrip::paintMemoryLane(QPainter& p, const QRectF& lane, double end) const {
  const QPalette pal = palette();
  const int pos = memoryDevice();
  const DeviceMemory& d = analysis_->memory.per_device[static_cast<std::size_t>(pos)];
  const double hbm = analysis_->memory.hbm_bytes;
  const double top = std::max(d.total(), hbm) * 1.05;
  if (top <= 0) return;
  auto yOf = [&](double bytes) { return lane.bottom() - bytes / top * lane.height(); };
  p.fillRect(lane, pal.color(QPalette::AlternateBase));
  // One sample per pixel column: static bytes plus the activations held at that instant.
  QPolygonF line;
  for (int x = 0; x <= static_cast<int>(lane.width()); ++x) {
    const double t = end * x / std::max(1.0, lane.width());
    line << QPointF(lane.left() + x, yOf(memoryAt(t)));
  }
  QPolygonF area = line;
  area << QPointF(lane.right(), lane.bottom()) << QPointF(lane.left(), lane.bottom());
  QColor fill = memoryPartColor(MemoryPart::Activations);
  fill.setAlpha(110);
  p.setPen(Qt::NoPen);
  p.setBrush(fill);
  p.drawPolygon(area);
  p.setPen(QPen(memoryPartColor(MemoryPart::Activations).darker(130), 1.2));
  p.setBrush(Qt::NoBrush);
  p.drawPolyline(line);
  if (hbm > 0) {
    p.setPen(QPen(QColor(0xd73027), 1, Qt::DashLine));
    p.drawLine(QPointF(lane.left(), yOf(hbm)), QPointF(lane.right(), yOf(hbm)));
  }
  p.setPen(pal.color(QPalette::Text));
  p.drawText(QRectF(4, lane.top(), kLabelWidth - 8, lane.height()), Qt::AlignRight | Qt::AlignVCenter,
             tr("memory d%1").arg(analysis_->mesh.devices[static_cast<std::size_t>(pos)].id));
}

QSize StepTimelineStrip::sizeHint() const {
  const int lanes = analysis_ ? static_cast<int>(lanesOf(analysis_->step).size()) : 1;
  return {480, lanes * kLaneHeight + (showsMemory() ? kMemoryHeight + 2 : 0) + kAxisHeight + 4};
}

QSize StepTimelineStrip::minimumSizeHint() const { return {200, sizeHint().height()}; }

QRectF StepTimelineStrip::laneArea() const {
  const int memory = showsMemory() ? kMemoryHeight + 2 : 0;
  return QRectF(kLabelWidth, 2, std::max(1, width() - kLabelWidth - 8), height() - kAxisHeight - 4 - memory);
}

double StepTimelineStrip::secondsAt(double x) const {
  if (!analysis_) return 0;
  const QRectF area = laneArea();
  const double end = stepTimelineEnd(analysis_->step);
  return std::clamp((x - area.left()) / area.width(), 0.0, 1.0) * end;
}

void StepTimelineStrip::paintEvent(QPaintEvent*) {
  QPainter p(this);
  const QPalette pal = palette();
  p.fillRect(rect(), pal.color(QPalette::Base));
  if (!analysis_ || !analysis_->step.estimated || analysis_->step.timeline.empty()) {
    p.setPen(pal.color(QPalette::PlaceholderText));
    p.drawText(rect(), Qt::AlignCenter, tr("No step estimate to play (the Step dock says why)."));
    return;
  }
  const StepEstimate& step = analysis_->step;
  const auto lanes = lanesOf(step);
  const QRectF area = laneArea();
  const double end = stepTimelineEnd(step);
  auto xOf = [&](double t) { return area.left() + area.width() * (end > 0 ? t / end : 0); };
  std::map<LaneKey, int> laneIndex;
  for (std::size_t i = 0; i < lanes.size(); ++i) laneIndex[lanes[i].first] = static_cast<int>(i);
  p.setPen(pal.color(QPalette::Text));
  for (std::size_t i = 0; i < lanes.size(); ++i)
    p.drawText(QRectF(4, area.top() + static_cast<double>(i) * kLaneHeight, kLabelWidth - 8, kLaneHeight),
               Qt::AlignRight | Qt::AlignVCenter, lanes[i].second);
  for (const auto& s : step.timeline) {
    const int lane = laneIndex[laneOf(s)];
    QRectF r(xOf(s.start), area.top() + lane * kLaneHeight + 2, std::max(1.0, xOf(s.end) - xOf(s.start)),
             kLaneHeight - 4);
    if (s.part == StepPart::Handover) {
      // A hand-over sent by this rank (or the fill and drain ones): a green stripe under the lane.
      p.fillRect(QRectF(r.left(), r.bottom() - 3, r.width(), 3), stepPartColor(StepPart::Handover));
    } else if (s.part == StepPart::Comm) {
      const QColor c = commColor(s.axis_index);
      if (s.exposed) {
        fillSpan(p, s, r, c);
      } else {
        QColor light = c;
        light.setAlpha(90);
        p.fillRect(r, light);
        p.fillRect(QRectF(r.left(), r.bottom() - 2, r.width(), 2), c);
      }
    } else {
      fillSpan(p, s, r,
               s.part == StepPart::Compute && s.rank >= 0 && !s.forward ? backwardColor() : stepPartColor(s.part));
    }
  }
  // The memory lane: the followed device's bytes over the step, against its HBM.
  double timeTop = area.bottom();
  if (showsMemory()) {
    const QRectF lane(area.left(), area.bottom() + 2, area.width(), kMemoryHeight);
    paintMemoryLane(p, lane, end);
    timeTop = lane.bottom();
  }
  // Time labels: the start, the middle and the end.
  p.setPen(pal.color(QPalette::Text));
  const double y = timeTop + 2;
  p.drawText(QRectF(area.left(), y, 80, kAxisHeight), Qt::AlignLeft | Qt::AlignVCenter, QStringLiteral("0"));
  p.drawText(QRectF(area.center().x() - 40, y, 80, kAxisHeight), Qt::AlignCenter, formatSeconds(end / 2));
  p.drawText(QRectF(area.right() - 80, y, 80, kAxisHeight), Qt::AlignRight | Qt::AlignVCenter, formatSeconds(end));
  if (cursor_ >= 0) {
    p.setPen(QPen(QColor(0xd62728), 2));
    const double x = xOf(std::min(cursor_, end));
    p.drawLine(QPointF(x, area.top()), QPointF(x, timeTop));
  }
}

void StepTimelineStrip::mousePressEvent(QMouseEvent* event) {
  if (event->button() == Qt::LeftButton && analysis_) emit scrubbed(secondsAt(event->position().x()));
}

void StepTimelineStrip::mouseMoveEvent(QMouseEvent* event) {
  if ((event->buttons() & Qt::LeftButton) && analysis_) emit scrubbed(secondsAt(event->position().x()));
}

StepPlayer::StepPlayer(ViewSelection* selection, QWidget* parent)
    : QWidget(parent), selection_(selection), strip_(new StepTimelineStrip(this)) {
  auto button = [this](QStyle::StandardPixmap icon, const QString& text, const QString& tip) {
    auto* b = new QToolButton(this);
    b->setIcon(style()->standardIcon(icon));
    b->setText(text);
    b->setToolTip(tip);
    b->setAutoRaise(true);
    return b;
  };
  play_ = button(QStyle::SP_MediaPlay, tr("Play"), tr("Play or pause the step (F5)"));
  stop_ =
      button(QStyle::SP_MediaStop, tr("Stop"), tr("Stop: back to the start, the views to their colours (Shift+F5)"));
  previous_ =
      button(QStyle::SP_MediaSkipBackward, tr("Previous"), tr("The previous event: a span starts or ends (Shift+F6)"));
  next_ = button(QStyle::SP_MediaSkipForward, tr("Next"), tr("The next event: a span starts or ends (F6)"));
  speed_ = new QComboBox(this);
  for (int s : {5, 10, 20, 60}) speed_->addItem(tr("step in %1 s").arg(s), s);
  speed_->setCurrentIndex(1);
  speed_->setToolTip(tr("How long the whole step takes to play"));
  moment_ = new QLabel(this);
  moment_->setWordWrap(true);
  moment_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  moment_->setObjectName("stepMoment");

  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(0, 0, 0, 0);
  for (QWidget* w : {static_cast<QWidget*>(previous_), static_cast<QWidget*>(play_), static_cast<QWidget*>(next_),
                     static_cast<QWidget*>(stop_), static_cast<QWidget*>(speed_)})
    controls->addWidget(w);
  controls->addStretch(1);
  auto* layout = new QVBoxLayout(this);
  layout->addLayout(controls);
  layout->addWidget(strip_);
  layout->addWidget(moment_);
  layout->addStretch(1);

  timer_.setInterval(kFrameMs);
  connect(&timer_, &QTimer::timeout, this, &StepPlayer::advance);
  connect(play_, &QToolButton::clicked, this, &StepPlayer::togglePlay);
  connect(stop_, &QToolButton::clicked, this, &StepPlayer::stop);
  connect(previous_, &QToolButton::clicked, this, &StepPlayer::previousEvent);
  connect(next_, &QToolButton::clicked, this, &StepPlayer::nextEvent);
  connect(strip_, &StepTimelineStrip::scrubbed, this, &StepPlayer::seek);
  connect(selection_, &ViewSelection::playTimeChanged, this, &StepPlayer::refresh);
  // The memory lane follows the selected device (the fullest when none is selected).
  connect(selection_, &ViewSelection::changed, this, [this] {
    strip_->setMemoryDevice(selection_->device());
    refresh();
  });
  refresh();
}

double StepPlayer::playSeconds() const { return speed_->currentData().toDouble(); }

double StepPlayer::end() const { return analysis_ ? stepTimelineEnd(analysis_->step) : 0.0; }

void StepPlayer::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  strip_->setAnalysis(analysis_);
  // Another step: the cursor stays at the same fraction of it.
  if (selection_->playTime() > 0 && end() > 0) selection_->setPlayTime(std::min(selection_->playTime(), end()));
  const bool playable = end() > 0;
  for (QToolButton* b : {play_, stop_, previous_, next_}) b->setEnabled(playable);
  if (!playable) {
    timer_.stop();
    selection_->setPlayTime(-1);
  }
  refresh();
}

void StepPlayer::togglePlay() {
  if (end() <= 0) return;
  if (timer_.isActive()) {
    timer_.stop();
  } else {
    if (selection_->playTime() < 0 || selection_->playTime() >= end()) selection_->setPlayTime(0);
    clock_.start();
    timer_.start();
  }
  refresh();
}

void StepPlayer::stop() {
  timer_.stop();
  selection_->setPlayTime(-1);
  refresh();
}

void StepPlayer::seek(double seconds) {
  if (end() <= 0) return;
  selection_->setPlayTime(std::clamp(seconds, 0.0, end()));
}

void StepPlayer::nextEvent() {
  if (end() <= 0) return;
  timer_.stop();
  seek(nextSpanEdge(analysis_->step, std::max(0.0, selection_->playTime())));
  refresh();
}

void StepPlayer::previousEvent() {
  if (end() <= 0) return;
  timer_.stop();
  seek(previousSpanEdge(analysis_->step, std::max(0.0, selection_->playTime())));
  refresh();
}

void StepPlayer::advance() {
  const double elapsed = static_cast<double>(clock_.restart()) / 1000.0;
  const double t = std::max(0.0, selection_->playTime()) + elapsed * end() / playSeconds();
  if (t >= end()) {
    timer_.stop();
    selection_->setPlayTime(end());
    refresh();
    return;
  }
  selection_->setPlayTime(t);
}

QString StepPlayer::momentText() const { return moment_->text(); }

void StepPlayer::refresh() {
  const double t = selection_->playTime();
  strip_->setCursor(t);
  play_->setIcon(style()->standardIcon(timer_.isActive() ? QStyle::SP_MediaPause : QStyle::SP_MediaPlay));
  play_->setText(timer_.isActive() ? tr("Pause") : tr("Play"));
  if (!analysis_ || end() <= 0)
    moment_->setText(analysis_ ? stepMomentText(analysis_->step, 0) : QString());
  else if (t < 0)
    moment_->setText(tr("Press Play (F5) to watch this step on the physical view: chips fill as they compute, "
                        "chunks move on each axis' rings while its collectives run."));
  else
    moment_->setText(stepMomentText(analysis_->step, t) + memoryText(t));
}

// " · device 3 holds 34.8 GiB of 95 GiB": the memory lane's value at the cursor.
QString StepPlayer::memoryText(double seconds) const {
  const int pos = strip_->memoryDevice();
  if (pos < 0) return {};
  return tr(" · device %1 holds %2 of %3")
      .arg(analysis_->mesh.devices[static_cast<std::size_t>(pos)].id)
      .arg(formatBytes(strip_->memoryAt(seconds)), formatBytes(analysis_->memory.hbm_bytes));
}

} // namespace shardscope::ui
