// SPDX-License-Identifier: Apache-2.0
#include "charts/comm_chart.hpp"

#include "charts/chart_legend.hpp"
#include "views/device_overlay.hpp"

#include <QBarCategoryAxis>
#include <QBarSet>
#include <QStackedBarSeries>
#include <QChart>
#include <QChartView>
#include <QEvent>
#include <QLabel>
#include <QStackedWidget>
#include <QToolTip>
#include <QValueAxis>
#include <QVBoxLayout>

#include <algorithm>

namespace shardscope::ui {

namespace {
// Seconds in the unit that reads best for the largest value.
struct TimeUnit {
  double scale;
  const char* name;
};
TimeUnit unitFor(double maxSeconds) {
  if (maxSeconds >= 1) return {1, "s"};
  if (maxSeconds >= 1e-3) return {1e3, "ms"};
  return {1e6, "µs"};
}
} // namespace

CommChart::CommChart(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  stack_ = new QStackedWidget(this);
  placeholder_ = new QLabel(tr("No communication estimate yet.\nIt appears when the comm engine has run."), stack_);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  stack_->addWidget(placeholder_);
  page_ = new QWidget(stack_);
  auto* pageLayout = new QVBoxLayout(page_);
  pageLayout->setContentsMargins(0, 0, 0, 0);
  details_ = new QLabel(page_);
  details_->setWordWrap(true);
  details_->setAlignment(Qt::AlignLeft | Qt::AlignTop);
  QFont small = details_->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  details_->setFont(small);
  pageLayout->addWidget(details_);
  view_ = new QChartView(page_);
  view_->setRenderHint(QPainter::Antialiasing);
  view_->setMinimumHeight(160);
  pageLayout->addWidget(view_, 1);
  legend_ = makeLegendLabel(page_);
  pageLayout->addWidget(legend_);
  stack_->addWidget(page_);
  layout->addWidget(stack_);
  setWhatsThis(tr("<b>Communication per axis</b><br>Seconds per training step each logical axis spends in collectives, "
                  "split into what hides behind compute and what is exposed, from the step estimate (link bandwidths, "
                  "hop counts, whether the ring leaves the host or slice)."));
}

void CommChart::changeEvent(QEvent* event) {
  QWidget::changeEvent(event);
  if (event->type() == QEvent::PaletteChange && hasData()) rebuild();
}

bool CommChart::showsTimes() const { return hasData() && !view_->isHidden(); }

void CommChart::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  rebuild();
}

void CommChart::rebuild() {
  if (!hasData()) {
    stack_->setCurrentWidget(placeholder_);
    return;
  }
  stack_->setCurrentWidget(page_);
  const auto& comm = analysis_->comm;
  // What each axis carries in the step (zero when the step was not estimated).
  std::vector<StepAxis> perStep(comm.size());
  for (std::size_t i = 0; i < comm.size(); ++i)
    if (const StepAxis* s = analysis_->stepAxis(i)) perStep[i] = *s;
  double maxT = 0;
  for (const auto& s : perStep) maxT = std::max(maxT, s.seconds);
  // Axes of size 1 move nothing: they get one line of their own, no bar (an imported MaxText mesh
  // has a dozen of them).
  std::vector<std::size_t> shown;
  QStringList single;
  for (std::size_t i = 0; i < comm.size(); ++i) {
    if (comm[i].size <= 1 && perStep[i].seconds <= 0)
      single << QString::fromStdString(comm[i].name).toHtmlEscaped();
    else
      shown.push_back(i);
  }
  const TimeUnit unit = unitFor(maxT);

  auto* chart = new QChart;
  const bool dark = palette().color(QPalette::Window).lightnessF() < 0.5;
  chart->setTheme(dark ? QChart::ChartThemeDark : QChart::ChartThemeLight);
  chart->setBackgroundRoundness(0);
  chart->setMargins(QMargins(4, 4, 4, 4));
  chart->legend()->hide(); // legend_ below wraps where QLegend would elide
  // Per training step: the part of each axis' collectives that hides behind compute, and the part
  // that does not (Analysis::step).
  auto* series = new QStackedBarSeries;
  const char* names[] = {"overlapped", "exposed"};
  const QColor colors[] = {QColor(0x59a14f), QColor(0xe15759)};
  QStringList categories;
  QStringList lines;
  std::vector<LegendEntry> legend;
  for (int k = 0; k < 2; ++k) {
    legend.push_back({colors[k], tr(names[k])});
    auto* set = new QBarSet(tr(names[k]));
    set->setColor(colors[k]);
    for (std::size_t i : shown) *set << (k == 0 ? perStep[i].overlapped : perStep[i].exposed) * unit.scale;
    series->append(set);
  }
  for (std::size_t i : shown) {
    const auto& a = comm[i];
    // The axis label stays short enough for a narrow dock; its size is in the line above the chart.
    categories << QString::fromStdString(a.name);
    QStringList facts;
    facts << (a.ring_closed ? tr("closed ring") : tr("open ring"));
    facts << tr("dilation max %1, mean %2").arg(a.max_hops).arg(a.mean_hops, 0, 'f', 2);
    if (a.max_link_load > 0) facts << tr("max link load %1").arg(a.max_link_load);
    if (a.in_slice > 0)
      facts << tr("crosses %1 slices in two levels (%2 devices in each slice, then the slices on their share)")
                   .arg(a.size / a.in_slice)
                   .arg(a.in_slice);
    else if (a.crosses_slices)
      facts << tr("crosses slices");
    else if (a.crosses_hosts)
      facts << tr("crosses hosts");
    if (!a.slowest_link.empty()) facts << tr("slowest link %1").arg(QString::fromStdString(a.slowest_link));
    lines << QStringLiteral("<b>%1</b> (%2): %3")
                 .arg(QString::fromStdString(a.name).toHtmlEscaped())
                 .arg(a.size)
                 .arg(facts.join(", "));
  }
  if (!single.isEmpty())
    lines << tr("<b>%1</b> (1 each): a single device, nothing to move").arg(single.join(QStringLiteral(", ")));
  legend_->setText(legendHtml(legend));
  // No step estimate (a serving workload, a model without its architecture): no time to chart.
  // Say so in words, with the reason, instead of an empty 0-1 µs plot titled "per training step".
  const bool timed = analysis_->step.estimated && maxT > 0;
  view_->setVisible(timed);
  legend_->setVisible(timed);
  if (!timed) {
    QStringList reasons;
    for (const auto& r : analysis_->step.not_estimated) reasons << QString::fromStdString(r).toHtmlEscaped();
    const QString why = !analysis_->step.estimated
                            ? (reasons.isEmpty() ? tr("there is no step estimate for this scenario")
                                                 : reasons.join(QStringLiteral("; ")))
                            : tr("the collectives of this step move no bytes");
    details_->setText(tr("<b>No communication time to show</b>: %1. Shardscope times collectives per training step; "
                         "per-token and per-request communication of serving is not estimated.<br>How each axis "
                         "lies on the links:<br>%2")
                          .arg(why, lines.join("<br>")));
  } else {
    details_->setText(tr("Communication per training step.<br>%1").arg(lines.join("<br>")));
  }
  auto* axisX = new QBarCategoryAxis;
  axisX->append(categories);
  auto* axisY = new QValueAxis;
  axisY->setTitleText(QString::fromUtf8(unit.name));
  chart->addSeries(series);
  chart->addAxis(axisX, Qt::AlignBottom);
  chart->addAxis(axisY, Qt::AlignLeft);
  series->attachAxis(axisX);
  series->attachAxis(axisY);
  // With no step estimate (serving) every bar is 0, and a 0..0 range is invalid for Qt Charts.
  if (!(maxT > 0)) axisY->setRange(0, 1);
  axisY->applyNiceNumbers();
  connect(series, &QStackedBarSeries::hovered, this, [this, unit](bool status, int index, QBarSet* set) {
    if (!status || !set) return;
    QToolTip::showText(
        QCursor::pos(),
        QStringLiteral("%1: %2 %3").arg(set->label()).arg(set->at(index), 0, 'g', 4).arg(QString::fromUtf8(unit.name)),
        this);
  });
  QChart* previous = view_->chart();
  view_->setChart(chart);
  delete previous;
}

} // namespace shardscope::ui
