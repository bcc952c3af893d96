// SPDX-License-Identifier: Apache-2.0
#include "panels/step_panel.hpp"

#include "charts/chart_legend.hpp"
#include "charts/step_bar.hpp"
#include "panels/table_export.hpp"
#include "views/device_overlay.hpp"

#include "shardscope/base/units.hpp"

#include <QEvent>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QStackedLayout>
#include <QTableWidget>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

QString sourceName(FigureSource source) {
  const auto name = figureSourceName(source);
  return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QString sourced(const QString& text, FigureSource source) {
  // The user's own figures stand out: they are what moves the estimate away from the defaults.
  const QString name = sourceName(source);
  return source == FigureSource::User ? QStringLiteral("%1 <b>(%2)</b>").arg(text, name)
                                      : QStringLiteral("%1 (%2)").arg(text, name);
}

QString fraction(const SourcedValue& v) { return sourced(QString::number(v.value, 'g', 3), v.source); }

QLabel* bigFigure(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setTextFormat(Qt::RichText);
  label->setAlignment(Qt::AlignCenter);
  label->setTextInteractionFlags(Qt::TextSelectableByMouse);
  return label;
}

QString figureHtml(const QString& value, const QString& caption) {
  return QStringLiteral("<span style='font-size:17pt; font-weight:600'>%1</span><br><span style='color:gray'>%2</span>")
      .arg(value.toHtmlEscaped(), caption.toHtmlEscaped());
}

} // namespace

StepPanel::StepPanel(ViewSelection* selection, QWidget* parent) : QWidget(parent), selection_(selection) {
  auto* stack = new QStackedLayout(this);
  page_ = new QWidget(this);
  auto* layout = new QVBoxLayout(page_);
  layout->setContentsMargins(6, 4, 6, 4);
  layout->setSpacing(4);

  auto* figures = new QHBoxLayout;
  figures->setSpacing(16); // "456 ms" and "39.4%" never run together
  time_ = bigFigure(page_);
  time_->setToolTip(tr("Seconds per optimizer step: every micro-batch's forward and backward, the optimizer update, "
                       "the exposed communication (and the pipeline bubble under a pipeline)"));
  mfu_ = bigFigure(page_);
  mfu_->setToolTip(tr("Model FLOPs utilisation: the model's FLOPs per step (PaLM's 6 N T plus causal attention) "
                      "over step time × devices × the chip's peak bf16 FLOP/s"));
  tokens_ = bigFigure(page_);
  tokens_->setToolTip(tr("Tokens per second: micro-batch × micro-batches × sequence length per step, over the "
                         "step time"));
  figures->addWidget(time_, 1);
  figures->addWidget(mfu_, 1);
  figures->addWidget(tokens_, 1);
  layout->addLayout(figures);

  bar_ = new StepBar(page_);
  layout->addWidget(bar_);
  legend_ = makeLegendLabel(page_);
  layout->addWidget(legend_);

  summary_ = new QLabel(page_);
  summary_->setTextFormat(Qt::PlainText);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  batchAxes_ = new QPushButton(page_);
  batchAxes_->setObjectName("stepBatchAxesButton");
  batchAxes_->setToolTip(tr("Split the batch over these axes too (training.batch_axes), so the devices along them "
                            "stop repeating each other's work; one undoable edit"));
  batchAxes_->hide();
  connect(batchAxes_, &QPushButton::clicked, this, [this] {
    if (!idleAxes_.isEmpty()) emit batchAxesWanted(idleAxes_);
  });
  layout->addWidget(batchAxes_, 0, Qt::AlignLeft);
  sources_ = new QLabel(page_);
  sources_->setWordWrap(true);
  sources_->setTextFormat(Qt::RichText);
  QFont small = sources_->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  sources_->setFont(small);
  sources_->setToolTip(tr("The figures the estimate used: chip = the catalogue's published value, default = "
                          "Shardscope's assumption (docs/step-time.md gives the runs behind it), user = your edit in "
                          "the Workload dock's Performance section"));
  layout->addWidget(sources_);
  checks_ = new QLabel(page_);
  checks_->setWordWrap(true);
  checks_->setTextFormat(Qt::RichText);
  checks_->setToolTip(tr("The scaling book's checks (C = peak FLOP/s, W = the axis' bandwidth): a batch axis hides "
                         "its weight gathers and gradient reductions when each device works on at least C/W "
                         "tokens; a tensor axis stays compute-bound up to n F / (C/W) ways"));
  layout->addWidget(checks_);

  table_ = new QTableWidget(0, 6, page_);
  table_->setHorizontalHeaderLabels(
      {tr("Axis"), tr("Size"), tr("Bytes"), tr("Comm time"), tr("Hidden"), tr("Exposed")});
  table_->horizontalHeaderItem(2)->setToolTip(tr("Bytes each device sends over the axis per step, all collectives"));
  table_->horizontalHeaderItem(3)->setToolTip(tr("Seconds of collectives on the axis per step"));
  table_->horizontalHeaderItem(4)->setToolTip(tr("What hides behind compute"));
  table_->horizontalHeaderItem(5)->setToolTip(tr("What adds to the step"));
  table_->verticalHeader()->hide();
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->setSelectionMode(QAbstractItemView::NoSelection);
  // Columns as wide as their header and values (the table scrolls sideways in a narrow dock rather
  // than cutting "239 ms" to "239 …"), resizable by the user, the last one taking what is left.
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Interactive);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setTextElideMode(Qt::ElideRight);
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->setMinimumHeight(60);
  addTableExportActions(table_, QStringLiteral("step-per-axis.csv"));
  layout->addWidget(table_, 1);
  stack->addWidget(page_);

  reason_ = new QLabel(this);
  reason_->setWordWrap(true);
  reason_->setAlignment(Qt::AlignCenter);
  reason_->setTextFormat(Qt::RichText);
  stack->addWidget(reason_);

  connect(bar_, &StepBar::hoveredChanged, this, &StepPanel::onHovered);
  // A row of the table highlights its axis as its piece of the bar does.
  table_->setMouseTracking(true);
  table_->viewport()->installEventFilter(this);
  connect(table_, &QTableWidget::cellEntered, this, [this](int row, int) {
    const QTableWidgetItem* item = table_->item(row, 0);
    highlightAxis(item ? item->text() : QString());
  });
  setWhatsThis(tr("<b>Step</b><br>How long one training step takes on this layout: compute at the chip's peak × "
                  "flops_fraction, time waiting on HBM, the optimizer update, the pipeline bubble and the "
                  "communication each mesh axis cannot hide behind compute. Hover a piece of the bar for what it "
                  "is; hovering an axis colours the physical view by that axis' groups. The calibration is in the "
                  "Workload dock (Performance)."));
  setAnalysis(nullptr);
}

void StepPanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  auto* stack = static_cast<QStackedLayout*>(layout());
  const StepEstimate* step = analysis_ ? &analysis_->step : nullptr;
  idleAxes_.clear();
  batchAxes_->hide();
  if (!step || !step->estimated) {
    bar_->setSegments({});
    highlightAxis({});
    QString why = tr("No step estimate yet: the analysis is running.");
    if (step) {
      QStringList reasons;
      for (const auto& r : step->not_estimated) reasons << QString::fromStdString(r).toHtmlEscaped();
      why = tr("<b>No step time for this scenario.</b><br>%1")
                .arg(reasons.isEmpty() ? tr("The estimate needs a training workload, a model with an architecture "
                                            "config and a chip with published figures.")
                                       : reasons.join("<br>"));
    }
    reason_->setText(why);
    stack->setCurrentWidget(reason_);
    return;
  }
  stack->setCurrentWidget(page_);

  time_->setText(figureHtml(formatSeconds(step->time_s), tr("per step")));
  mfu_->setText(figureHtml(formatPercent(step->mfu), tr("MFU")));
  // What the chips execute beside what the model needs: recompute and repeated work.
  if (step->model_flops > 0)
    mfu_->setToolTip(
        tr("Model FLOPs utilisation: the model's FLOPs per second over the devices' peak. Each device "
           "executes %1 per step, %2 of it re-run by the remat policy: %3 of peak on the FLOPs "
           "executed (hardware FLOPs utilisation).")
            .arg(QString::fromStdString(
                formatCount(step->hardware_flops / std::max<double>(1.0, double(step->devices)), "FLOP")))
            .arg(formatPercent(step->hardware_flops > 0 ? step->recompute_flops / step->hardware_flops : 0.0))
            .arg(formatPercent(step->mfu * step->hardware_flops / step->model_flops)));
  tokens_->setText(
      figureHtml(QString::fromStdString(formatCount(step->tokens_per_s, "")),
                 tr("tokens/s (%1 per step)").arg(QString::fromStdString(formatCount(step->tokens_per_step, "")))));

  std::vector<StepBarSegment> segments = stepBarSegments(*analysis_);
  std::vector<LegendEntry> legend;
  for (const auto& s : segments) legend.push_back({s.color, s.label + " " + formatSeconds(s.seconds)});
  legend_->setText(legendHtml(legend));
  bar_->setSegments(std::move(segments));
  // A hovered axis that is gone from the new estimate gives the overlay back.
  if (!highlighted_.isEmpty()) {
    const int h = bar_->hovered();
    if (h < 0 || bar_->segments()[static_cast<std::size_t>(h)].axis != highlighted_) highlightAxis({});
  }

  // The sentence without its leading "<time> per step, <mfu>% MFU, " (or ": " under a pipeline):
  // the big figures say that.
  // The sentence without the figures the dock shows above it.
  QString summary = QString::fromStdString(step->verdict.empty() ? step->summary : step->verdict);
  summary_->setText(summary);
  summary_->setToolTip(tr("Bound by %1 (the largest of compute, HBM and each axis' exposed communication)")
                           .arg(QString::fromStdString(boundText(step->bound_by))));
  for (const auto& axis : step->idle_axes) idleAxes_ << QString::fromStdString(axis);
  if (!idleAxes_.isEmpty()) {
    batchAxes_->setText(tr("Add %1 to the batch axes").arg(idleAxes_.join(tr(" and "))));
    batchAxes_->show();
  }

  const StepCalibration& c = step->calibration;
  QStringList figures;
  // On a chip of several devices (TensorCores) a device has the chip's figure over that many.
  const auto perDevice = [&](const QString& text, FigureSource source) {
    return step->devices_per_chip > 1 ? QStringLiteral("%1 (%2 / %3)")
                                            .arg(text, sourceName(source), tr("%n devices", "", step->devices_per_chip))
                                      : sourced(text, source);
  };
  figures << tr("peak %1 × %2")
                 .arg(
                     perDevice(QString::fromStdString(formatFlopRate(step->peak_flops.value)), step->peak_flops.source),
                     fraction(c.flops_fraction));
  figures << tr("HBM %1 × %2")
                 .arg(perDevice(QString::fromStdString(formatRate(step->hbm_bandwidth.value)),
                                step->hbm_bandwidth.source),
                      fraction(c.hbm_fraction));
  figures << tr("attention %1 × %2")
                 .arg(
                     perDevice(QString::fromStdString(formatFlopRate(step->peak_flops.value)), step->peak_flops.source),
                     fraction(c.attention_fraction));
  figures << tr("links %1 × %2")
                 .arg(sourced(QString::fromStdString(formatRate(step->link_bandwidth.value)),
                              step->link_bandwidth.source),
                      fraction(c.link_fraction));
  figures << tr("hop %1").arg(sourced(formatSeconds(c.hop_latency.value), c.hop_latency.source));
  sources_->setText(figures.join(QStringLiteral(" · ")));
  fillChecks(*step);

  fillAxisTable(*step);
}

// The scaling book's checks: a batch axis' tokens per device against C/W, a tensor axis' width.
void StepPanel::fillChecks(const StepEstimate& step) {
  QStringList checks;
  // Whether an axis' tensor-parallel collectives hide behind the matmuls in this estimate.
  const auto tensorHidden = [&](const std::string& axis) {
    for (const StepAxis& a : step.per_axis)
      if (a.axis == axis)
        for (const auto& c : a.collectives)
          if (c.purpose == "tp_activations") return c.overlappable;
    return false;
  };
  for (const StepCritical& k : step.critical) {
    const QString verdict = k.ok ? tr("ok") : tr("<b>no</b>");
    if (k.role == StepCritical::Role::Batch)
      checks << tr("<b>%1</b> (batch, %2): %3 tokens per device, needs ≥ C/W = %4: %5")
                    .arg(QString::fromStdString(k.axis).toHtmlEscaped())
                    .arg(k.size)
                    .arg(k.tokens_per_device, 0, 'f', 0)
                    .arg(k.flops_per_byte, 0, 'f', 0)
                    .arg(verdict);
    else
      checks << tr("<b>%1</b> (tensor, %2): MLP width %3, compute-bound up to n·F/(C/W) = %4 ways: %5 (%6)")
                    .arg(QString::fromStdString(k.axis).toHtmlEscaped())
                    .arg(k.size)
                    .arg(k.ffn, 0, 'f', 0)
                    .arg(k.limit, 0, 'f', 1)
                    .arg(verdict, tensorHidden(k.axis)
                                      ? tr("its collectives hidden behind the matmuls: performance.overlap_tensor_comm")
                                      : tr("a check of the ratio only: its collectives sit on the critical path here, "
                                           "exposed whole, unless performance.overlap_tensor_comm"));
  }
  checks_->setVisible(!checks.isEmpty());
  checks_->setText(tr("Scaling-book checks: %1").arg(checks.join(QStringLiteral(" · "))));
}

// One row per axis that moves something, its collectives in the tooltip.
void StepPanel::fillAxisTable(const StepEstimate& step) {
  // Axes of size 1 move nothing: no row each (an imported MaxText mesh has a dozen of them).
  std::vector<const StepAxis*> shown;
  for (const StepAxis& a : step.per_axis)
    if (a.size > 1 || a.seconds > 0) shown.push_back(&a);
  table_->setRowCount(static_cast<int>(shown.size()));
  int row = 0;
  for (const StepAxis* axis : shown) {
    const StepAxis& a = *axis;
    QStringList lines;
    for (const auto& col : a.collectives) {
      lines << QStringLiteral("%1 %2: %3, %4")
                   .arg(QString::fromStdString(collectiveLabel(col.kind, col.purpose)),
                        QString::fromStdString(col.purpose), formatBytes(col.bytes), formatSeconds(col.seconds));
    }
    QString cells[] = {QString::fromStdString(a.axis), QString::number(a.size),     formatBytes(a.bytes),
                       formatSeconds(a.seconds),       formatSeconds(a.overlapped), formatSeconds(a.exposed)};
    // The pipeline axis runs no collective: its traffic is the hand-overs between ranks, point to
    // point, which the bar shows as a segment of their own. Its row says so instead of "0 B · 0 s".
    if (analysis_->pipeline && a.axis == analysis_->pipeline->axis && a.collectives.empty()) {
      double handover = 0;
      for (const auto& seg : step.segments)
        if (seg.kind == StepPart::Handover) handover += seg.seconds;
      for (int c = 2; c < 5; ++c) cells[c] = QStringLiteral("—");
      cells[5] = formatSeconds(handover);
      lines << tr("No collectives: the pipeline axis hands activations and their gradients from rank to rank, point "
                  "to point (the Pipeline dock's hand-overs). Exposed: the bar's hand-overs, %1.")
                   .arg(formatSeconds(handover));
    }
    for (int col = 0; col < 6; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setTextAlignment(col == 0 ? Qt::AlignLeft | Qt::AlignVCenter : Qt::AlignRight | Qt::AlignVCenter);
      item->setToolTip(lines.isEmpty() ? tr("No collectives on this axis") : lines.join("\n"));
      table_->setItem(row, col, item);
    }
    ++row;
  }
  table_->resizeColumnsToContents();
}

bool StepPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == table_->viewport() && event->type() == QEvent::Leave) highlightAxis({});
  return QWidget::eventFilter(watched, event);
}

void StepPanel::onHovered(int index) {
  const auto& segments = bar_->segments();
  const bool comm = index >= 0 && index < static_cast<int>(segments.size()) &&
                    segments[static_cast<std::size_t>(index)].kind == StepBarSegment::Kind::Comm;
  highlightAxis(comm ? segments[static_cast<std::size_t>(index)].axis : QString());
}

void StepPanel::highlightAxis(const QString& axis) {
  int index = -1;
  if (analysis_ && !axis.isEmpty()) {
    const auto& names = analysis_->mesh.axis_names;
    const auto it = std::find(names.begin(), names.end(), axis.toStdString());
    if (it != names.end()) index = static_cast<int>(it - names.begin());
  }
  if (index < 0) {
    if (highlighted_.isEmpty()) return;
    // The hover ends: the overlay the user had comes back.
    highlighted_.clear();
    selection_->setMode(savedMode_);
    selection_->setAxis(savedAxis_);
    return;
  }
  if (highlighted_.isEmpty()) {
    savedMode_ = selection_->mode();
    savedAxis_ = selection_->axis();
  }
  highlighted_ = axis;
  // The groups along the axis are the rings its collectives run on: each its own colour.
  selection_->setAxis(index);
  selection_->setMode(OverlayMode::Group);
}

} // namespace shardscope::ui
