// SPDX-License-Identifier: Apache-2.0
// Per-device memory (Qt Charts): stacked bars of parameters, gradients, optimizer state,
// activations and KV cache against the HBM line; a histogram of totals for big pods. Shows
// max/mean/argmax and an out-of-memory badge; clicking a bar selects that device everywhere.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QStackedWidget;
QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QBarSet;
QT_END_NAMESPACE

namespace shardscope::ui {

class ViewSelection;

class MemoryChart : public QWidget {
  Q_OBJECT
public:
  explicit MemoryChart(ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // The largest per-device total the chart shows, in bytes (0 when there is no memory data).
  double shownMaxBytes() const { return shownMax_; }
  bool showsHistogram() const { return histogram_; }
  bool hasData() const;
  QLabel* summaryLabel() const { return summary_; }
  // Devices above this count get a histogram instead of one bar each.
  static constexpr int maxBars = 256;

private:
  void rebuild();
  void highlightSelected();

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QWidget* chartPage_;
  QLabel* summary_;
  QLabel* oomBadge_;
  QChartView* view_;
  QLabel* legend_; // wraps where QLegend would elide
  std::vector<QBarSet*> sets_;
  std::vector<std::vector<int>> binDevices_; // histogram bins -> device positions
  double shownMax_ = 0;
  bool histogram_ = false;
};

} // namespace shardscope::ui
