// SPDX-License-Identifier: Apache-2.0
#include "charts/memory_chart.hpp"

#include "views/color_scales.hpp"

#include "charts/chart_legend.hpp"
#include "views/device_overlay.hpp"
#include "views/view_selection.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QEvent>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineSeries>
#include <QResizeEvent>
#include <QPen>
#include <QPushButton>
#include <QStackedBarSeries>
#include <QStackedWidget>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>
#include <array>
#include <cmath>
#include <map>

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
  summary_->setWordWrap(true); // "max 465 GiB (device 0, …)" wraps in a narrow dock, never cut
  oomBadge_ = new QLabel(tr("OUT OF MEMORY"), chartPage_);
  oomBadge_->setStyleSheet(
      "QLabel { background: #d73027; color: white; font-weight: bold; padding: 2px 8px; border-radius: 3px; }");
  oomBadge_->setToolTip(tr("The fullest device needs more than its HBM."));
  oomBadge_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed); // always whole
  header->addWidget(summary_, 1);
  header->addWidget(oomBadge_);
  pageLayout->addLayout(header);
  // An absurd figure never stands without its reason: idle axes repeat the batch on every device.
  auto* reasonRow = new QHBoxLayout;
  reason_ = new QLabel(chartPage_);
  reason_->setObjectName("memoryReasonLabel");
  reason_->setWordWrap(true);
  reason_->setTextFormat(Qt::RichText);
  batchAxes_ = new QPushButton(chartPage_);
  batchAxes_->setObjectName("memoryBatchAxesButton");
  batchAxes_->setToolTip(tr("Split the batch over these axes too (training.batch_axes): one undo step"));
  batchAxes_->setSizePolicy(QSizePolicy::Fixed, QSizePolicy::Fixed);
  connect(batchAxes_, &QPushButton::clicked, this, [this] {
    if (!idleAxes_.isEmpty()) emit batchAxesWanted(idleAxes_);
  });
  reasonRow->addWidget(reason_, 1);
  reasonRow->addWidget(batchAxes_, 0, Qt::AlignTop);
  pageLayout->addLayout(reasonRow);
  reason_->hide();
  batchAxes_->hide();
  view_ = new QChartView(chartPage_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(180);
  view_->viewport()->setMouseTracking(true);   // tooltip events follow the pointer
  view_->viewport()->installEventFilter(this); // a bar's tooltip: barToolTip
  pageLayout->addWidget(view_, 1);
  legend_ = makeLegendLabel(chartPage_);
  pageLayout->addWidget(legend_);
  stack_->addWidget(chartPage_);
  layout->addWidget(stack_);
  setWhatsThis(tr("<b>Memory per device</b><br>Stacked bars: parameters, gradients, optimizer state, activations and "
                  "KV cache on each device, with the HBM capacity as a line. Activations are at the backward's "
                  "peak: what the layers keep, plus the loss's gradient beside its logits or one re-run layer, "
                  "whichever is larger (docs/formats.md, At the peak). When there are more devices than bars "
                  "fit, each bar is a memory class (devices holding the same bytes), fullest first, labelled with "
                  "how many devices it stands for. Click a bar to select its device."));
  connect(selection_, &ViewSelection::deviceChanged, this, &MemoryChart::highlightSelected);
}

bool MemoryChart::hasData() const { return analysis_ && !analysis_->memory.per_device.empty(); }

void MemoryChart::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  rebuild();
}

namespace {
// Devices holding the same bytes in every category (to the byte) form one memory class.
using MemoryKey = std::array<long long, 5>;
MemoryKey memoryKey(const DeviceMemory& d) {
  return {std::llround(d.params), std::llround(d.grads), std::llround(d.optimizer), std::llround(d.activations),
          std::llround(d.kv_cache)};
}
} // namespace

int MemoryChart::barCapacity() const {
  // A rotated label needs one text line of width; 16 px a bar keeps them apart. The 70 px are the
  // value axis and the margins.
  const int perBar = std::max(16, fontMetrics().height() + 4);
  return std::clamp((width() - 80) / perBar, 4, 96);
}

void MemoryChart::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  // Another width holds another number of bars: choose them again (labels never elide to "…").
  if (hasData() && barCapacity() != builtCapacity_) rebuild();
}

void MemoryChart::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange && hasData()) rebuild();
}

QStringList MemoryChart::categoryNames() const {
  QStringList names;
  for (const auto* set : sets_) names << set->label();
  return names;
}

QStringList MemoryChart::barLabels() const {
  const QChart* chart = view_->chart();
  if (!chart) return {};
  for (auto* axis : chart->axes(Qt::Horizontal))
    if (auto* categories = qobject_cast<QBarCategoryAxis*>(axis)) return categories->categories();
  return {};
}

void MemoryChart::rebuild() {
  sets_.clear();
  barDevices_.clear();
  shownMax_ = 0;
  classes_ = false;
  builtCapacity_ = barCapacity();
  if (!hasData()) {
    stack_->setCurrentWidget(placeholder_);
    return;
  }
  stack_->setCurrentWidget(chartPage_);
  QStringList categories;
  QString barsNote;
  chooseBars(categories, barsNote);
  QChart* chart = buildChart(categories, barsNote);
  QChart* previous = view_->chart();
  view_->setChart(chart);
  delete previous;
  showSummary();
  showReason();
  oomBadge_->setVisible(analysis_->memory.out_of_memory);
  highlightSelected();
}

// Which devices each bar stands for (barDevices_) and its label: every device in id order when they
// fit, else memory classes (devices holding exactly the same bytes), the fullest, the least full
// and evenly between.
void MemoryChart::chooseBars(QStringList& categories, QString& barsNote) {
  const MemorySummary& mem = analysis_->memory;
  const auto& devices = analysis_->mesh.devices;
  // One entry per device is the contract; never index past either list if a stage disagrees.
  const int n = static_cast<int>(std::min(mem.per_device.size(), devices.size()));
  const auto memoryOf = [&](int p) -> const DeviceMemory& { return mem.per_device[static_cast<std::size_t>(p)]; };
  for (int p = 0; p < n; ++p) shownMax_ = std::max(shownMax_, memoryOf(p).total());

  if (n <= builtCapacity_) {
    std::vector<int> order(static_cast<std::size_t>(n));
    for (int p = 0; p < n; ++p) order[static_cast<std::size_t>(p)] = p;
    // In id order (mesh order is 0, 1, 4, 5, 2, 3, ... on a torus).
    std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
      return devices[static_cast<std::size_t>(a)].id < devices[static_cast<std::size_t>(b)].id;
    });
    for (int p : order) {
      barDevices_.push_back({p});
      categories << QString::number(devices[static_cast<std::size_t>(p)].id);
    }
  } else {
    classes_ = true;
    std::map<MemoryKey, std::vector<int>> byKey;
    for (int p = 0; p < n; ++p) byKey[memoryKey(memoryOf(p))].push_back(p);
    std::vector<std::vector<int>> classes;
    classes.reserve(byKey.size());
    for (auto& [key, members] : byKey) classes.push_back(std::move(members));
    // Fullest first; equal totals by their first device id.
    std::stable_sort(classes.begin(), classes.end(), [&](const auto& a, const auto& b) {
      const double ta = memoryOf(a.front()).total(), tb = memoryOf(b.front()).total();
      if (ta != tb) return ta > tb;
      return devices[static_cast<std::size_t>(a.front())].id < devices[static_cast<std::size_t>(b.front())].id;
    });
    const int k = static_cast<int>(classes.size());
    const int shown = std::min(k, builtCapacity_);
    // The fullest, the least full and classes evenly spaced between (by rank of total).
    int previous = -1;
    for (int i = 0; i < shown; ++i) {
      const int c = shown == 1 ? 0 : static_cast<int>(std::lround(static_cast<double>(i) * (k - 1) / (shown - 1)));
      if (c == previous) continue;
      previous = c;
      auto& members = classes[static_cast<std::size_t>(c)];
      std::sort(members.begin(), members.end(), [&](int a, int b) {
        return devices[static_cast<std::size_t>(a)].id < devices[static_cast<std::size_t>(b)].id;
      });
      // The class' first device id and its size: unique (a category axis merges equal labels).
      categories
          << QStringLiteral("%1 (×%2)").arg(devices[static_cast<std::size_t>(members.front())].id).arg(members.size());
      barDevices_.push_back(std::move(members));
    }
    barsNote = static_cast<int>(barDevices_.size()) < k
                   ? tr("%1 of %2 memory classes: the fullest, the least full and evenly between; \"id (×N)\": the "
                        "first device of a class of N")
                         .arg(barDevices_.size())
                         .arg(k)
                   : (k == 1 ? tr("1 memory class") : tr("%1 memory classes, fullest first").arg(k)) +
                         tr("; \"id (×N)\": the first of N devices holding exactly these bytes");
  }
}

// The stacked bars by memory part (parts nobody uses dropped), the HBM line, the axes and legend.
QChart* MemoryChart::buildChart(const QStringList& categories, const QString& barsNote) {
  const MemorySummary& mem = analysis_->memory;
  const auto memoryOf = [&](int p) -> const DeviceMemory& { return mem.per_device[static_cast<std::size_t>(p)]; };
  const int bars = static_cast<int>(barDevices_.size());
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

  const char* names[] = {"Parameters", "Gradients", "Optimizer", "Activations", "KV cache"};
  const QColor colors[] = {memoryPartColor(MemoryPart::Parameters), memoryPartColor(MemoryPart::Gradients),
                           memoryPartColor(MemoryPart::Optimizer), memoryPartColor(MemoryPart::Activations),
                           memoryPartColor(MemoryPart::KvCache)};
  for (int c = 0; c < 5; ++c) {
    auto* set = new QBarSet(tr(names[c]));
    set->setColor(colors[c]);
    set->setBorderColor(colors[c]);
    set->setSelectedColor(colors[c].lighter(150));
    sets_.push_back(set);
  }
  for (const auto& members : barDevices_) {
    const DeviceMemory& d = memoryOf(members.front());
    const double v[] = {d.params, d.grads, d.optimizer, d.activations, d.kv_cache};
    for (int c = 0; c < 5; ++c) *sets_[static_cast<std::size_t>(c)] << v[c] / kGiB;
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
  // Labels turn upright-to-vertical when they would not fit side by side: never elided.
  int widest = 0;
  for (const QString& c : categories) widest = std::max(widest, fontMetrics().horizontalAdvance(c));
  if (bars > 0 && widest + 6 > (width() - 80) / bars) axisX->setLabelsAngle(-90);
  axisX->setTitleText(classes_ ? tr("memory class") : tr("device id"));
  series->setBarWidth(bars > 32 ? 0.9 : 0.7);
  connect(series, &QStackedBarSeries::clicked, this, [this](int index, QBarSet*) {
    if (index >= 0 && index < static_cast<int>(barDevices_.size()))
      selection_->setDevice(barDevices_[static_cast<std::size_t>(index)].front());
  });
  chart->addSeries(series);
  chart->addAxis(axisX, Qt::AlignBottom);
  chart->addAxis(axisY, Qt::AlignLeft);
  series->attachAxis(axisX);
  series->attachAxis(axisY);

  if (mem.hbm_bytes > 0) {
    auto* hbm = new QLineSeries;
    hbm->setName(tr("HBM %1").arg(formatBytes(mem.hbm_bytes)));
    hbm->setPen(QPen(QColor(0xd62728), 2, Qt::DashLine));
    hbm->append(-0.5, mem.hbm_bytes / kGiB);
    hbm->append(bars - 0.5, mem.hbm_bytes / kGiB);
    chart->addSeries(hbm);
    hbm->attachAxis(axisX);
    hbm->attachAxis(axisY);
    legend.push_back({QColor(0xd62728), hbm->name(), true});
  }
  legend_->setText(legendHtml(legend) +
                   (barsNote.isEmpty() ? QString() : QStringLiteral("<br><i>%1</i>").arg(barsNote.toHtmlEscaped())));
  axisY->setTitleText(tr("GiB"));
  axisY->setRange(0, std::max(shownMax_, mem.hbm_bytes) / kGiB * 1.08);
  axisY->applyNiceNumbers();

  return chart;
}

int MemoryChart::barAt(QPoint viewportPos) const {
  QChart* chart = view_->chart();
  if (!chart || chart->series().isEmpty() || barDevices_.empty()) return -1;
  const QPointF at = chart->mapFromScene(view_->mapToScene(viewportPos));
  if (!chart->plotArea().contains(at)) return -1;
  // On a category axis bar i is centred on x = i; the stack runs from 0 up to the bar's total.
  const QPointF value = chart->mapToValue(at, chart->series().front());
  const long index = std::lround(value.x());
  if (index < 0 || index >= static_cast<long>(barDevices_.size())) return -1;
  const auto* bars = qobject_cast<QStackedBarSeries*>(chart->series().front());
  if (bars && std::abs(value.x() - static_cast<double>(index)) > bars->barWidth() / 2) return -1;
  const DeviceMemory& d =
      analysis_->memory.per_device[static_cast<std::size_t>(barDevices_[static_cast<std::size_t>(index)].front())];
  if (value.y() < 0 || value.y() > d.total() / kGiB) return -1;
  return static_cast<int>(index);
}

bool MemoryChart::eventFilter(QObject* watched, QEvent* event) {
  if (watched == view_->viewport() && event->type() == QEvent::ToolTip) {
    const auto* help = static_cast<QHelpEvent*>(event);
    const int index = barAt(help->pos());
    if (index >= 0)
      QToolTip::showText(help->globalPos(), barToolTip(index), view_);
    else
      QToolTip::hideText();
    return true;
  }
  return QWidget::eventFilter(watched, event);
}

QString MemoryChart::barToolTip(int index) const {
  if (!analysis_ || index < 0 || index >= static_cast<int>(barDevices_.size())) return {};
  const std::vector<int>& members = barDevices_[static_cast<std::size_t>(index)];
  const DeviceMemory& d = analysis_->memory.per_device[static_cast<std::size_t>(members.front())];
  const auto& devices = analysis_->mesh.devices;
  QString head = members.size() > 1 ? tr("<b>%1 devices</b> (first: device %2)")
                                          .arg(members.size())
                                          .arg(devices[static_cast<std::size_t>(members.front())].id)
                                    : tr("<b>Device %1</b>").arg(devices[static_cast<std::size_t>(members.front())].id);
  QString rows;
  auto row = [&rows](const QString& name, double bytes) {
    if (bytes > 0) rows += QStringLiteral("<tr><td>%1</td><td align=right>%2</td></tr>").arg(name, formatBytes(bytes));
  };
  row(tr("Parameters"), d.params);
  row(tr("Gradients"), d.grads);
  row(tr("Optimizer"), d.optimizer);
  row(tr("Activations"), d.activations);
  // The activations' parts (the same on every device; a pipeline's ranks differ, see its view).
  const ActivationBreakdown& a = analysis_->memory.activations;
  if (d.activations > 0 && a.layers > 0 && !analysis_->pipeline) {
    row(tr("&nbsp;&nbsp;kept by %1 layers").arg(a.layers), a.keptByLayers());
    if (a.lossMomentIsPeak())
      row(tr("&nbsp;&nbsp;output layer and the loss's backward"), a.lossMoment());
    else
      row(tr("&nbsp;&nbsp;one layer re-run in its backward"), a.recompute_layer);
  }
  row(tr("KV cache"), d.kv_cache);
  row(tr("Total"), d.total());
  return head + QStringLiteral("<table>") + rows + QStringLiteral("</table>");
}

// The line under the chart: the fullest device (and its pipeline rank), the mean, the HBM.
void MemoryChart::showSummary() {
  const MemorySummary& mem = analysis_->memory;
  const auto& devices = analysis_->mesh.devices;
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
}

void MemoryChart::showReason() {
  idleAxes_.clear();
  QStringList named;
  const auto& mesh = analysis_->mesh;
  for (const auto& axis : analysis_->step.idle_axes) {
    idleAxes_ << QString::fromStdString(axis);
    QString text = QString::fromStdString(axis).toHtmlEscaped();
    if (const std::int64_t size = mesh.axisSize(axis); size > 0) text += QStringLiteral(" (%1)").arg(size);
    named << text;
  }
  const bool idle = !idleAxes_.isEmpty();
  reason_->setVisible(idle);
  batchAxes_->setVisible(idle);
  if (!idle) return;
  reason_->setText(tr("<b>Why so much:</b> %1 split neither the batch nor any weight, so every device along "
                      "them holds the activations of the whole batch and repeats its work.")
                       .arg(named.join(tr(" and "))));
  batchAxes_->setText(tr("Add %1 to the batch axes").arg(idleAxes_.join(tr(" and "))));
}

void MemoryChart::highlightSelected() {
  if (sets_.empty()) return;
  const int sel = selection_->device();
  int index = -1;
  for (std::size_t b = 0; b < barDevices_.size() && sel >= 0; ++b)
    if (std::find(barDevices_[b].begin(), barDevices_[b].end(), sel) != barDevices_[b].end())
      index = static_cast<int>(b);
  for (auto* set : sets_) {
    set->deselectAllBars();
    if (index >= 0 && index < set->count()) set->selectBar(index);
  }
}

} // namespace shardscope::ui
