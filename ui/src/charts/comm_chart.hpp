// SPDX-License-Identifier: Apache-2.0
// Per-axis communication per training step (Qt Charts): overlapped and exposed seconds for each
// logical axis, with the ring facts (closed ring, dilation, slowest link) above the chart.
#pragma once

#include "views/analysis_view.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QWidget>

#include <memory>

class QLabel;
class QStackedWidget;
QT_BEGIN_NAMESPACE
class QChartView;
QT_END_NAMESPACE

namespace shardscope::ui {

class CommChart : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit CommChart(QWidget* parent = nullptr);
  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  // Draws the chart as laid out at the target's size (see renderWidget).
  void render(QPainter& painter, const QRectF& target) override { renderWidget(*this, painter, target); }
  QWidget* asWidget() override { return this; }
  bool hasData() const { return analysis_ && !analysis_->comm.empty(); }
  // Whether the chart shows times (false: a sentence says why there are none, e.g. serving).
  bool showsTimes() const;
  QLabel* detailsLabel() const { return details_; }

protected:
  // A palette switch (View > Dark Theme) redraws the chart in the new theme at once.
  void changeEvent(QEvent* event) override;

private:
  void rebuild();

  std::shared_ptr<const Analysis> analysis_;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QWidget* page_;
  QLabel* details_;
  QChartView* view_;
  QLabel* legend_; // wraps where QLegend would elide
};

} // namespace shardscope::ui
