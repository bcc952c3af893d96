// SPDX-License-Identifier: Apache-2.0
// The step bar of the Step dock: one horizontal stacked bar whose pieces are where a training
// step's seconds go (compute, HBM-bound time, the optimizer update, the pipeline bubble, and the
// communication each mesh axis leaves exposed), summing to the step time. The pieces are built
// from the analysis by stepBarSegments() (a pure function, so tests check the sums), the bar is
// custom-painted, explains each piece in a tooltip and reports which piece the mouse is over.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QColor>
#include <QString>
#include <QWidget>

#include <vector>

namespace shardscope::ui {

struct StepBarSegment {
  using Kind = StepPart; // core's parts of a step, one to one
  Kind kind = Kind::Compute;
  QString axis; // the mesh axis, for Comm
  double seconds = 0;
  QString label;   // short name: "compute", "comm tp"
  QString tooltip; // rich text: what the piece is and where its figure comes from
  QColor color;
};

// The pieces of the step: core's step.segments in its order, each with a label, a tooltip and its
// part's colour (stepPartColor); they sum to analysis.step.time_s. Empty when the step was not
// estimated.
std::vector<StepBarSegment> stepBarSegments(const Analysis& analysis);

class StepBar : public QWidget {
  Q_OBJECT
public:
  explicit StepBar(QWidget* parent = nullptr);

  void setSegments(std::vector<StepBarSegment> segments);
  const std::vector<StepBarSegment>& segments() const { return segments_; }
  // Where piece `index` is drawn in widget coordinates (empty when out of range or too thin).
  QRectF segmentRect(int index) const;
  int segmentAt(QPointF point) const;
  int hovered() const { return hovered_; }
  // Makes `index` the hovered piece as the mouse does (-1: none), emitting hoveredChanged.
  void setHovered(int index);

  QSize sizeHint() const override { return {400, 44}; }
  QSize minimumSizeHint() const override { return {120, 36}; }

signals:
  void hoveredChanged(int index);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  QRectF barRect() const;

  std::vector<StepBarSegment> segments_;
  double total_ = 0;
  int hovered_ = -1;
};

} // namespace shardscope::ui
