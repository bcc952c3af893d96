// SPDX-License-Identifier: Apache-2.0
#include "charts/memory_chart.hpp"

#include "charts/chart_legend.hpp"
#include "views/device_overlay.hpp"
#include "views/view_selection.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QPen>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {
constexpr double kGiB = 1024.0 * 1024.0 * 1024.0;
}

MemoryChart::MemoryChart(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  stack_ = new QStackedWidget(this);
  placeholder_ =
      new QLabel(tr("No memory estimate yet.\nIt appears when the memory engine has run for this scenario."), stack_);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  stack_->addWidget(placeholder_);

  chartPage_ = new QWidget(stack_);
  auto* pageLayout = new QVBoxLayout(chartPage_);
  pageLayout->setContentsMargins(0, 0, 0, 0);
  auto* header = new QHBoxLayout;
  summary_ = new QLabel(chartPage_);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  oomBadge_ = new QLabel(tr("OUT OF MEMORY"), chartPage_);
  oomBadge_->setStyleSheet(
      "QLabel { background: #d73027; color: white; font-weight: bold; padding: 2px 8px; border-radius: 3px; }");
  oomBadge_->setToolTip(tr("The fullest device needs more than its HBM."));
  header->addWidget(summary_, 1);
  header->addWidget(oomBadge_);
  pageLayout->addLayout(header);
  view_ = new QChartView(chartPage_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(180);
  pageLayout->addWidget(view_, 1);
  legend_ = makeLegendLabel(chartPage_);
  pageLayout->addWidget(legend_);
  stack_->addWidget(chartPage_);
  layout->addWidget(stack_);
  setWhatsThis(tr("<b>Memory per device</b><br>Stacked bars: parameters, gradients, optimizer state, activations and "
                  "KV cache on each device, with the HBM capacity as a line. Large pods show a histogram of totals. "
                  "Click a bar to select that device."));
  connect(selection_, &ViewSelection::deviceChanged, this, &MemoryChart::highlightSelected);
}

bool MemoryChart::hasData() const { return analysis_ && !analysis_->memory.per_device.empty(); }

void MemoryChart::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  rebuild();
}

void MemoryChart::rebuild() {
  sets_.clear();
  binDevices_.clear();
  shownMax_ = 0;
  histogram_ = false;
  if (!hasData()) {
    stack_->setCurrentWidget(placeholder_);
    return;
  }
  stack_->setCurrentWidget(chartPage_);
  const MemorySummary& mem = analysis_->memory;
  const auto& devices = analysis_->mesh.devices;
  // One entry per device is the contract; never index past either list if a stage disagrees.
  const int n = static_cast<int>(std::min(mem.per_device.size(), devices.size()));
  for (int p = 0; p < n; ++p) shownMax_ = std::max(shownMax_, mem.per_device[static_cast<std::size_t>(p)].total());

  const bool dark = palette().color(QPalette::Window).lightnessF() < 0.5;
  auto* chart = new QChart;
  chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->hide(); // legend_ below wraps where QLegend would elide
  std::vector<LegendEntry> legend;
  auto* axisX = new QBarCategoryAxis;
  auto* axisY = new QValueAxis;
  auto* series = new QStackedBarSeries;
  histogram_ = n > maxBars;

  if (!histogram_) {
    const char* names[] = {"Parameters", "Gradients", "Optimizer", "Activations", "KV cache"};
    const QColor colors[] = {QColor(0x4e79a7), QColor(0xf28e2b), QColor(0x59a14f), QColor(0xe15759), QColor(0xb07aa1)};
    for (int k = 0; k < 5; ++k) {
      auto* set = new QBarSet(tr(names[k]));
      set->setColor(colors[k]);
      set->setBorderColor(colors[k]);
      set->setSelectedColor(colors[k].lighter(150));
      sets_.push_back(set);
    }
    QStringList categories;
    for (int p = 0; p < n; ++p) {
      const DeviceMemory& d = mem.per_device[static_cast<std::size_t>(p)];
      const double v[] = {d.params, d.grads, d.optimizer, d.activations, d.kv_cache};
      for (int k = 0; k < 5; ++k) *sets_[static_cast<std::size_t>(k)] << v[k] / kGiB;
      categories << QString::number(devices[static_cast<std::size_t>(p)].id);
    }
    // Drop categories nobody uses (serving has no gradients, training no KV cache).
    for (auto* set : sets_) {
      double sum = 0;
      for (int i = 0; i < set->count(); ++i) sum += set->at(i);
      if (sum > 0)
        series->append(set);
      else
        delete set;
    }
    const QList<QBarSet*> kept = series->barSets();
    sets_.assign(kept.begin(), kept.end());
    for (auto* set : sets_) legend.push_back({set->color(), set->label()});
    axisX->append(categories);
    // Ids are readable up to a few dozen bars; beyond that the axis stays bare (hover tells).
    if (n > 32)
      axisX->setLabelsVisible(false);
    else
      axisX->setTitleText(tr("device id"));
    series->setBarWidth(n > 64 ? 1.0 : 0.8);
    connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) { selection_->setDevice(index); });
  } else {
    // Histogram of totals over [least, fullest] device; one bar when every device holds the same.
    double lo = shownMax_;
    for (int p = 0; p < n; ++p) lo = std::min(lo, mem.per_device[static_cast<std::size_t>(p)].total());
    const double span = shownMax_ - lo;
    const int bins = span <= 1e-9 * std::max(shownMax_, 1.0) ? 1 : 16;
    binDevices_.assign(static_cast<std::size_t>(bins), {});
    for (int p = 0; p < n; ++p) {
      const double t = mem.per_device[static_cast<std::size_t>(p)].total();
      const int b = bins == 1 ? 0 : std::min(bins - 1, static_cast<int>((t - lo) / span * bins));
      binDevices_[static_cast<std::size_t>(b)].push_back(p);
    }
    auto* set = new QBarSet(tr("Devices"));
    set->setColor(QColor(0x4e79a7));
    set->setSelectedColor(QColor(0xd62728));
    QStringList categories;
    for (int b = 0; b < bins; ++b) {
      *set << static_cast<double>(binDevices_[static_cast<std::size_t>(b)].size());
      categories << QString::number((bins == 1 ? shownMax_ : lo + (b + 0.5) * span / bins) / kGiB, 'f', 1);
    }
    series->append(set);
    sets_.push_back(set);
    legend.push_back({set->color(), tr("devices per bin of total memory")});
    axisX->append(categories);
    axisX->setTitleText(tr("GiB per device (bin centre)"));
    series->setBarWidth(1.0);
    connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
      const auto& devs = binDevices_[static_cast<std::size_t>(index)];
      if (!devs.empty()) selection_->setDevice(devs.front());
    });
  }
  chart->addSeries(series);
  chart->addAxis(axisX, Qt::AlignBottom);
  chart->addAxis(axisY, Qt::AlignLeft);
  series->attachAxis(axisX);
  series->attachAxis(axisY);

  if (!histogram_ && mem.hbm_bytes > 0) {
    auto* hbm = new QLineSeries;
    hbm->setName(tr("HBM %1").arg(formatBytes(mem.hbm_bytes)));
    hbm->setPen(QPen(QColor(0xd62728), 2, Qt::DashLine));
    hbm->append(-0.5, mem.hbm_bytes / kGiB);
    hbm->append(n - 0.5, mem.hbm_bytes / kGiB);
    chart->addSeries(hbm);
    hbm->attachAxis(axisX);
    hbm->attachAxis(axisY);
    legend.push_back({QColor(0xd62728), hbm->name(), true});
  }
  legend_->setText(legendHtml(legend));
  if (histogram_) {
    axisY->setTitleText(tr("devices"));
    axisY->setLabelFormat("%d");
  } else {
    axisY->setTitleText(tr("GiB"));
    axisY->setRange(0, std::max(shownMax_, mem.hbm_bytes) / kGiB * 1.08);
    axisY->applyNiceNumbers();
  }

  QChart* previous = view_->chart();
  view_->setChart(chart);
  delete previous;

  const int argmax = mem.argmax;
  QString argmaxText = argmax >= 0 && argmax < static_cast<int>(devices.size())
                           ? tr("device %1").arg(devices[static_cast<std::size_t>(argmax)].id)
                           : tr("–");
  // Under a pipeline the devices differ by rank: name the fullest device's rank.
  if (const auto& pipe = analysis_->pipeline; pipe && pipe->has_memory && argmax >= 0)
    for (const auto& rank : pipe->ranks)
      if (std::find(rank.device_positions.begin(), rank.device_positions.end(), argmax) != rank.device_positions.end())
        argmaxText += tr(", pipeline rank %1 of %2").arg(rank.rank).arg(pipe->ranks.size());
  summary_->setText(
      tr("max <b>%1</b> (%2) · mean %3 · HBM %4")
          .arg(formatBytes(mem.max_bytes), argmaxText, formatBytes(mem.mean_bytes), formatBytes(mem.hbm_bytes)));
  oomBadge_->setVisible(mem.out_of_memory);
  highlightSelected();
}

void MemoryChart::highlightSelected() {
  if (sets_.empty()) return;
  const int sel = selection_->device();
  int index = sel;
  if (histogram_) {
    index = -1;
    for (std::size_t b = 0; b < binDevices_.size(); ++b)
      if (std::find(binDevices_[b].begin(), binDevices_[b].end(), sel) != binDevices_[b].end())
        index = static_cast<int>(b);
  }
  for (auto* set : sets_) {
    set->deselectAllBars();
    if (index >= 0 && index < set->count()) set->selectBar(index);
  }
}

} // namespace shardscope::ui
