// SPDX-License-Identifier: Apache-2.0
// The Play dock: one training step played in time. A strip of lanes (compute, then each mesh
// axis' collectives: dashed where they hide behind compute, solid where they are exposed) with a
// cursor to scrub, and play / pause, step to the previous or next event, stop, and how long the
// whole step takes to play. The instant goes to ViewSelection::playTime, which the physical view
// draws (chips computing, chunks moving on the rings). The spans are Analysis::step.timeline.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QElapsedTimer>
#include <QTimer>
#include <QWidget>

#include <memory>

class QComboBox;
class QPainter;
class QLabel;
class QToolButton;

namespace shardscope::ui {

class ViewSelection;

// The lanes of the played step, with the cursor; click or drag to move it.
class StepTimelineStrip : public QWidget {
  Q_OBJECT
public:
  explicit StepTimelineStrip(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  void setCursor(double seconds); // negative: none
  // The device whose memory the bottom lane follows through the step (its static bytes plus the
  // share of a micro-batch's activations it holds: activationShareAt); -1 for the fullest.
  void setMemoryDevice(int position);
  // That device's position and bytes at `seconds` (0 without an estimate or under a pipeline,
  // whose dock shows each rank's memory over the schedule).
  int memoryDevice() const;
  double memoryAt(double seconds) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;
  // Seconds at a widget x (clamped to the step); the lane area's left edge and width.
  double secondsAt(double x) const;

signals:
  void scrubbed(double seconds);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mousePressEvent(QMouseEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;

private:
  QRectF laneArea() const;
  bool showsMemory() const;
  void paintMemoryLane(QPainter& p, const QRectF& lane, double end) const;
  std::shared_ptr<const Analysis> analysis_;
  double cursor_ = -1;
  int memoryDevice_ = -1;
};

class StepPlayer : public QWidget {
  Q_OBJECT
public:
  explicit StepPlayer(ViewSelection* selection, QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const Analysis> analysis);

  bool isPlaying() const { return timer_.isActive(); }
  // Wall-clock seconds the whole step takes to play (5, 10, 20 or 60).
  double playSeconds() const;
  const StepTimelineStrip* strip() const { return strip_; }
  QString momentText() const;

public slots:
  void togglePlay();
  void stop(); // back to the start, and the views back to their own colours
  void nextEvent();
  void previousEvent();
  void seek(double seconds);

private:
  void advance();
  void refresh();
  QString memoryText(double seconds) const;
  double end() const;

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  StepTimelineStrip* strip_;
  QToolButton* play_;
  QToolButton* stop_;
  QToolButton* previous_;
  QToolButton* next_;
  QComboBox* speed_;
  QLabel* moment_;
  QTimer timer_;
  QElapsedTimer clock_;
};

} // namespace shardscope::ui
