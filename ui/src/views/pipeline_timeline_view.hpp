// SPDX-License-Identifier: Apache-2.0
// The pipeline timeline of an Analysis, custom-painted: one row per pipeline rank with every task
// of jaxpp's schedule where the list scheduler put it (F, B, I, W coloured; a fused group outlined;
// idle time shaded as bubbles), and below it, on the same time axis, each rank's memory over the
// schedule (what it holds for the whole step plus the activations of the micro-batches in flight)
// against the chip's HBM. Hovering a task says what it waited for and draws arrows from those
// tasks; clicking a rank's label selects that rank.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "views/analysis_view.hpp"

#include <QBrush>
#include <QPen>
#include <QWidget>

#include <map>
#include <memory>
#include <tuple>
#include <vector>

namespace shardscope::ui {

class PipelineTimelineView : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit PipelineTimelineView(QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  QWidget* asWidget() override { return this; }
  // The rank drawn emphasised (its row and memory line), -1 for none.
  void setSelectedRank(int rank);
  int selectedRank() const { return selectedRank_; }

  // The instant of the played step (ViewSelection::playTime, seconds): a cursor over the rows and
  // the memory plot while it is inside the schedule and the timeline is in seconds; negative: none.
  void setPlayTime(double seconds);
  double playTime() const { return playTime_; }

  // Draws everything into `target` of any painter (screen, image, SVG export).
  void render(QPainter& painter, const QRectF& target) override;

  // Geometry and texts, for tests and tools (widget coordinates of the current size).
  bool hasTimeline() const;
  // How many rows the key above the timeline takes at the current width (it wraps, never cuts).
  int legendRows() const;
  int eventAt(QPointF point) const; // index into the timeline's events, -1 for none
  int rankAt(QPointF point) const;  // the rank whose label or row is there, -1 for none
  QRectF eventRect(int event) const;
  QRectF rankLabelRect(int rank) const;
  // What the hover tooltip says about an event: the rank, its tasks, when it runs and what it
  // waited for (its rank or the dependency that finished last).
  QString describeEvent(int event) const;
  // What the hover tooltip says about a rank: its layers and devices, and its memory at the peak
  // with the backward's moment (PipelineRankSummary::transient_bytes) that the curve leaves out.
  QString describeRank(int rank) const;
  // The events the given event waited for (its dependencies in other events), for the arrows.
  std::vector<int> waitedFor(int event) const;
  QSize sizeHint() const override;
  QSize minimumSizeHint() const override;

signals:
  void rankClicked(int rank);

protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseMoveEvent(QMouseEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  void leaveEvent(QEvent* event) override;
  bool event(QEvent* event) override;

private:
  struct Geometry {
    QRectF legend;   // the key above everything
    QRectF timeline; // the rows' area (time axis inside it)
    QRectF memory;   // the memory plot's area
    double rowHeight = 0;
    double timeScale = 0; // pixels per time unit
    double memoryMax = 0; // bytes at the top of the memory plot
    double labelWidth = 0;
  };
  Geometry geometry(const QRectF& target) const;
  QRectF eventRectIn(const Geometry& g, int event) const;
  double xOf(const Geometry& g, double time) const;
  void paintPlayCursor(QPainter& painter, const Geometry& g) const;
  void paintTimeline(QPainter& painter, const Geometry& g) const;
  void paintMemory(QPainter& painter, const Geometry& g) const;
  void paintLegend(QPainter& painter, const Geometry& g) const;
  // The key's swatches (brush, outline, words) and the closing note, as painted.
  struct LegendSwatch {
    QBrush brush;
    QPen pen;
    QString label;
  };
  std::vector<LegendSwatch> legendSwatches() const;
  // Each key entry's row and left edge in a key `width` wide (the note last), flowing onto the next
  // row when the next would not fit: a narrow dock wraps the key instead of cutting it.
  std::vector<std::pair<int, double>> legendPlaces(double width) const;
  QString timeText(double t) const;

  std::shared_ptr<const Analysis> analysis_;
  // (type, stage, micro-batch) -> (event index, the member's end time).
  std::map<std::tuple<int, int, int>, std::pair<int, double>> taskEnds_;
  std::vector<int> previousOnRank_; // per event: the rank's previous event, -1 for its first
  int hover_ = -1;
  int selectedRank_ = -1;
  double playTime_ = -1;
};

} // namespace shardscope::ui
