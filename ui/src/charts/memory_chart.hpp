// SPDX-License-Identifier: Apache-2.0
// Per-device memory (Qt Charts): stacked bars of parameters, gradients, optimizer state,
// activations and KV cache against the HBM line, at any device count. While one bar per device
// fits the chart's width, one bar per device in id order; beyond that one bar per memory class
// (the devices holding exactly the same bytes in every category), fullest first, labelled with
// how many devices it stands for; past the width's worth of classes, the fullest, the least full
// and classes evenly spaced between. Shows max/mean/argmax and an out-of-memory badge; clicking a
// bar selects its (first) device everywhere; resting on a bar shows its bytes by category and what
// its activations are made of.
#pragma once

#include "views/analysis_view.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QPoint>
#include <QWidget>

#include <memory>
#include <vector>

class QLabel;
class QPushButton;
class QStackedWidget;
QT_BEGIN_NAMESPACE
class QChart;
class QChartView;
class QBarSet;
QT_END_NAMESPACE

namespace shardscope::ui {

class ViewSelection;

class MemoryChart : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit MemoryChart(ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  // Draws the chart as laid out at the target's size (see renderWidget).
  void render(QPainter& painter, const QRectF& target) override { renderWidget(*this, painter, target); }
  QWidget* asWidget() override { return this; }
  // The largest per-device total the chart shows, in bytes (0 when there is no memory data).
  double shownMaxBytes() const { return shownMax_; }
  // True when the bars are memory classes rather than single devices.
  bool showsClasses() const { return classes_; }
  bool hasData() const;
  QLabel* summaryLabel() const { return summary_; }
  QLabel* legendLabel() const { return legend_; }
  // Why the figures are what they are when an edit left axes idle (they split neither the batch
  // nor any weight, so every device along them holds the whole batch's activations), and the fix.
  QLabel* reasonLabel() const { return reason_; }
  QPushButton* batchAxesButton() const { return batchAxes_; }
  // Each bar: the device positions it stands for (one, or a memory class), in bar order.
  const std::vector<std::vector<int>>& barDevices() const { return barDevices_; }
  // The categories drawn (bar sets), in stacking order: "Parameters", "Gradients", ...
  QStringList categoryNames() const;
  // The category axis' labels, in bar order.
  QStringList barLabels() const;
  // How many bars fit the chart's width with a label each (rotated labels, one text line apart).
  int barCapacity() const;
  // What bar `index` holds, by category, with what the activations are made of (the tooltip shown
  // when the pointer rests on the bar); empty for an index outside the bars.
  QString barToolTip(int index) const;
  // The bar under a point of the chart view's viewport, or -1 (between bars, above the stack).
  int barAt(QPoint viewportPos) const;

protected:
  void resizeEvent(QResizeEvent* event) override;
  // A palette switch (View > Dark Theme) redraws the chart in the new theme at once.
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

signals:
  // The reason row's fix: add these axes to training.batch_axes (the Step dock offers the same).
  void batchAxesWanted(const QStringList& axes);

private:
  void rebuild();
  // rebuild()'s stages.
  void chooseBars(QStringList& categories, QString& barsNote);
  QChart* buildChart(const QStringList& categories, const QString& barsNote);
  void showSummary();
  void showReason();
  void highlightSelected();

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  QStackedWidget* stack_;
  QLabel* placeholder_;
  QWidget* chartPage_;
  QLabel* summary_;
  QLabel* oomBadge_;
  QLabel* reason_;
  QPushButton* batchAxes_;
  QStringList idleAxes_;
  QChartView* view_;
  QLabel* legend_; // wraps where QLegend would elide
  std::vector<QBarSet*> sets_;
  std::vector<std::vector<int>> barDevices_; // bar -> device positions
  double shownMax_ = 0;
  bool classes_ = false;
  int builtCapacity_ = 0; // barCapacity() when the bars were last chosen
};

} // namespace shardscope::ui
