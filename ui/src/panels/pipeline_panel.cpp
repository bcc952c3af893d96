// SPDX-License-Identifier: Apache-2.0
#include "panels/pipeline_panel.hpp"

#include "panels/flow_layout.hpp"
#include "document/scenario_document.hpp"
#include "views/device_overlay.hpp"
#include "views/pipeline_timeline_view.hpp"
#include "views/view_selection.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QSignalBlocker>
#include <QSpinBox>
#include <QVBoxLayout>

#include <algorithm>
#include <cmath>

namespace shardscope::ui {

namespace {

QString kindName(PipelineScheduleKind kind) {
  const auto name = pipelineScheduleKindName(kind);
  return QString::fromLatin1(name.data(), static_cast<qsizetype>(name.size()));
}

QString scheduleTip(PipelineScheduleKind kind) {
  switch (kind) {
  case PipelineScheduleKind::GPipe:
    return QObject::tr("All forwards, then all backwards: every rank holds all M micro-batches.");
  case PipelineScheduleKind::Std1F1B:
    return QObject::tr("One forward, one backward: rank r holds at most S - r micro-batches.");
  case PipelineScheduleKind::Eager1F1B:
    return QObject::tr("1F1B with a longer warm-up (2S - 1 - 2r forwards): more in flight, earlier backwards.");
  case PipelineScheduleKind::ZeroBubble:
    return QObject::tr("ZB-H1: backward split into input-grad (I) and weight-grad (W) to fill the bubbles; M >= S.");
  case PipelineScheduleKind::Interleaved1F1B:
    return QObject::tr("Virtual stages placed round robin (stage s on rank s % D): a smaller bubble, more transfers.");
  case PipelineScheduleKind::KimiK2:
    return QObject::tr("Interleaved 1F1B with one more warm-up forward per rank (Kimi K2).");
  case PipelineScheduleKind::DualPipeV:
    return QObject::tr("DeepSeek's DualPipeV: 2D stages in a V (rank r holds stages r and 2D-1-r), "
                       "forward and backward of two micro-batches overlapped; M >= 2D.");
  case PipelineScheduleKind::InterleavedGPipe:
    break;
  }
  return {};
}

} // namespace

PipelinePanel::PipelinePanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent)
    : QWidget(parent), document_(document), selection_(selection) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(4, 4, 4, 4);
  enabled_ = new QCheckBox(tr("Pipeline on axis"), this);
  enabled_->setToolTip(tr("Run one mesh axis as jaxpp's MPMD pipeline: each index along it is a pipeline rank "
                          "holding only its stages' layers. Off: every device holds every layer."));
  axis_ = new QComboBox(this);
  axis_->setToolTip(tr("The pipeline (MPMD) axis: MpmdMesh(mesh, axis)"));
  schedule_ = new QComboBox(this);
  schedule_->setObjectName("pipelineSchedule");
  for (const auto kind : allPipelineScheduleKinds()) {
    if (!isExportedByJaxpp(kind)) continue;
    schedule_->addItem(kindName(kind), static_cast<int>(kind));
    schedule_->setItemData(schedule_->count() - 1, scheduleTip(kind), Qt::ToolTipRole);
  }
  schedule_->setToolTip(tr("jaxpp's schedule: the order each rank runs its tasks in"));
  stages_ = new QSpinBox(this);
  stages_->setObjectName("pipelineStages");
  stages_->setRange(0, static_cast<int>(kMaxPipelineStages));
  stages_->setSpecialValueText(tr("auto"));
  stages_->setKeyboardTracking(false);
  stages_->setToolTip(tr("Pipeline stages; auto: the axis size (twice it for DualPipeV). Interleaved schedules take "
                         "multiples of the axis size."));
  microbatches_ = new QSpinBox(this);
  microbatches_->setRange(0, 4096);
  microbatches_->setSpecialValueText(tr("auto"));
  microbatches_->setKeyboardTracking(false);
  microbatches_->setToolTip(tr("M, micro-batches per step, each of the Workload's micro-batch size; auto: twice the "
                               "stages. More micro-batches shrink the bubble and cost in-flight activations."));
  // Room for what "auto" resolves to ("auto (1024)").
  for (QSpinBox* box : {stages_, microbatches_})
    box->setMinimumWidth(box->fontMetrics().horizontalAdvance(QStringLiteral("auto (1024)")) + 28);
  fuse_ = new QCheckBox(tr("fuse steady state"), this);
  fuse_->setObjectName("pipelineFuse");
  fuse_->setToolTip(tr("Interleaved1F1B and KimiK2: run every steady-state forward with its backward as one task"));
  // The controls flow onto a second row in a narrow dock (1366x768) rather than cutting the
  // header and the timeline behind a horizontal scroll bar; each label stays with its field.
  auto* controls = new QWidget(this);
  auto* flow = new FlowLayout(controls);
  flow->setContentsMargins(0, 0, 0, 0);
  const auto pair = [&](QWidget* label, QWidget* field) {
    auto* both = new QWidget(controls);
    auto* h = new QHBoxLayout(both);
    h->setContentsMargins(0, 0, 0, 0);
    h->addWidget(label);
    h->addWidget(field);
    flow->addWidget(both);
  };
  pair(enabled_, axis_);
  pair(new QLabel(tr("Schedule"), this), schedule_);
  pair(new QLabel(tr("Stages"), this), stages_);
  pair(new QLabel(tr("Micro-batches M"), this), microbatches_);
  flow->addWidget(fuse_);
  layout->addWidget(controls);
  summary_ = new QLabel(this);
  summary_->setWordWrap(true);
  summary_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  layout->addWidget(summary_);
  timeline_ = new PipelineTimelineView(this);
  layout->addWidget(timeline_, 1);

  auto edit = [this](const QString& text, const QString& key, auto change) { document_->edit(text, change, key); };
  connect(enabled_, &QCheckBox::toggled, this, [=, this](bool on) {
    const std::string axis = guessAxis();
    edit(on ? tr("Turn the pipeline on") : tr("Turn the pipeline off"), "pipeline.enabled", [on, axis](Scenario& s) {
      if (!on) {
        s.pipeline.reset();
      } else if (!s.pipeline) {
        PipelineConfig c;
        c.axis = axis;
        s.pipeline = c;
      }
    });
  });
  connect(axis_, &QComboBox::activated, this, [=, this](int i) {
    const std::string name = axis_->itemText(i).toStdString();
    edit(tr("Pipeline axis %1").arg(axis_->itemText(i)), "pipeline.axis", [name](Scenario& s) {
      if (s.pipeline) s.pipeline->axis = name;
    });
  });
  connect(schedule_, &QComboBox::activated, this, [=, this](int i) {
    const auto kind = static_cast<PipelineScheduleKind>(schedule_->itemData(i).toInt());
    // A stage count the new schedule cannot take goes back to following the axis.
    const std::int64_t ranks = analysis_ && analysis_->pipeline ? analysis_->pipeline->rank_count : 0;
    edit(tr("Pipeline schedule %1").arg(kindName(kind)), "pipeline.schedule", [kind, ranks](Scenario& s) {
      if (!s.pipeline) return;
      s.pipeline->schedule = kind;
      if (!s.pipeline->num_stages || ranks <= 0) return;
      const std::int64_t n = *s.pipeline->num_stages;
      const bool interleaved = kind == PipelineScheduleKind::Interleaved1F1B || kind == PipelineScheduleKind::KimiK2;
      const bool fits = kind == PipelineScheduleKind::DualPipeV ? n == 2 * ranks
                        : interleaved                           ? n % ranks == 0
                                                                : n == ranks;
      if (!fits) s.pipeline->num_stages.reset();
    });
  });
  connect(stages_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Pipeline stages"), "pipeline.num_stages", [v](Scenario& s) {
      if (!s.pipeline) return;
      if (v <= 0)
        s.pipeline->num_stages.reset();
      else
        s.pipeline->num_stages = v;
    });
  });
  connect(microbatches_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Pipeline micro-batches"), "pipeline.microbatches", [v](Scenario& s) {
      if (!s.pipeline) return;
      if (v <= 0)
        s.pipeline->microbatches.reset();
      else
        s.pipeline->microbatches = v;
    });
  });
  connect(fuse_, &QCheckBox::toggled, this, [=, this](bool on) {
    edit(tr("Fuse steady state"), "pipeline.fuse", [on](Scenario& s) {
      if (s.pipeline) s.pipeline->fuse_steady_state = on;
    });
  });
  connect(timeline_, &PipelineTimelineView::rankClicked, this, &PipelinePanel::selectRank);
  // A click elsewhere (one device) ends the rank's selection.
  connect(selection_, &ViewSelection::devicesChanged, this, [this] {
    if (selection_->devices().empty()) timeline_->setSelectedRank(-1);
  });

  setWhatsThis(tr("<b>Pipeline</b><br>One mesh axis run as jaxpp's MPMD pipeline. The timeline shows where jaxpp's "
                  "list scheduler puts every task of the chosen schedule (one row per rank; F forward, B backward, "
                  "I input-grad, W weight-grad; hatched: idle), and below it each rank's memory over the step "
                  "against the HBM. Times are jaxpp's unit task costs scaled by each stage's layers until the "
                  "step-time model gives seconds."));
  connect(document_, &ScenarioDocument::scenarioChanged, this, &PipelinePanel::syncFromScenario);
  syncFromScenario();
}

std::string PipelinePanel::guessAxis() const {
  const auto& axes = document_->scenario().mesh.axes;
  for (const char* name : {"pp", "pipeline", "stage", "stages", "mpmd"})
    for (const auto& a : axes)
      if (a.name == name) return a.name;
  return axes.empty() ? std::string("pp") : axes.front().name;
}

void PipelinePanel::syncFromScenario() {
  const Scenario& s = document_->scenario();
  const QSignalBlocker b1(enabled_), b2(axis_), b3(schedule_), b4(stages_), b5(microbatches_), b6(fuse_);
  const bool on = s.pipeline.has_value();
  enabled_->setChecked(on);
  axis_->clear();
  for (const auto& a : s.mesh.axes) axis_->addItem(QString::fromStdString(a.name));
  if (on) {
    const QString name = QString::fromStdString(s.pipeline->axis);
    if (axis_->findText(name) < 0) axis_->addItem(name); // not in the mesh: shown, and the analysis says why
    axis_->setCurrentText(name);
    schedule_->setCurrentIndex(std::max(0, schedule_->findData(static_cast<int>(s.pipeline->schedule))));
    stages_->setValue(static_cast<int>(s.pipeline->num_stages.value_or(0)));
    microbatches_->setValue(
        static_cast<int>(std::min<std::int64_t>(s.pipeline->microbatches.value_or(0), microbatches_->maximum())));
    fuse_->setChecked(s.pipeline->fuse_steady_state);
    // Shown only for the schedules that take it: a greyed box would cost a narrow dock a row.
    fuse_->setVisible(takesFuseSteadyState(s.pipeline->schedule));
  }
  for (QWidget* w : {static_cast<QWidget*>(axis_), static_cast<QWidget*>(schedule_), static_cast<QWidget*>(stages_),
                     static_cast<QWidget*>(microbatches_)})
    w->setEnabled(on);
  if (!on) fuse_->setVisible(false);
}

void PipelinePanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  analysis_ = std::move(analysis);
  timeline_->setAnalysis(analysis_);
  const PipelineAnalysis* p = analysis_ && analysis_->pipeline ? &*analysis_->pipeline : nullptr;
  // What "auto" resolves to, next to the pickers.
  const auto& config = document_->scenario().pipeline;
  stages_->setSpecialValueText(
      p && config && p->num_stages > 0 && !config->num_stages ? tr("auto (%1)").arg(p->num_stages) : tr("auto"));
  microbatches_->setSpecialValueText(
      p && config && p->microbatches > 0 && !config->microbatches ? tr("auto (%1)").arg(p->microbatches) : tr("auto"));
  if (!p) {
    summary_->setText(tr("No pipeline: every device holds every layer."));
    return;
  }
  QStringList parts;
  parts << tr("<b>%1</b> on '%2': %3 ranks, %4 stages, M = %5")
               .arg(kindName(p->schedule), QString::fromStdString(p->axis).toHtmlEscaped())
               .arg(p->rank_count)
               .arg(p->num_stages)
               .arg(p->microbatches);
  if (p->scheduled) {
    if (p->time_unit == PipelineTimeUnit::Seconds)
      parts << tr("makespan %1 (from the step estimate)").arg(formatSeconds(p->makespan));
    else
      parts << tr("makespan %1 task units").arg(QString::number(std::round(p->makespan * 100) / 100, 'g', 12));
    parts << tr("bubble %1").arg(formatPercent(p->bubble_overall));
  }
  if (p->has_memory && p->worst_rank >= 0) {
    const auto& worst = p->ranks[static_cast<std::size_t>(p->worst_rank)];
    const bool over = p->hbm_bytes > 0 && worst.totalBytes() > p->hbm_bytes;
    parts << tr("fullest: <b>rank %1</b>, %2 of %3 HBM%4")
                 .arg(worst.rank)
                 .arg(formatBytes(worst.totalBytes()), formatBytes(p->hbm_bytes),
                      over ? tr(" <span style='color:#d73027'><b>OUT OF MEMORY</b></span>") : QString());
  }
  QString text = parts.join(QStringLiteral(" · "));
  QStringList problems;
  for (const auto& d : analysis_->diagnostics)
    if (d.section == DiagnosticSection::Pipeline && d.severity != Diagnostic::Severity::Info)
      problems << QString::fromStdString(d.message).toHtmlEscaped();
  if (!problems.isEmpty())
    text += QStringLiteral("<br><span style='color:#d73027'>%1</span>")
                .arg(problems.size() > 2
                         ? problems.mid(0, 2).join("<br>") + tr("<br>… and %1 more").arg(problems.size() - 2)
                         : problems.join("<br>"));
  summary_->setText(text);
}

void PipelinePanel::selectRank(int rank) {
  timeline_->setSelectedRank(rank);
  if (!analysis_ || !analysis_->pipeline || rank < 0 || rank >= static_cast<int>(analysis_->pipeline->ranks.size())) {
    selection_->setDevices({});
    return;
  }
  const auto& p = *analysis_->pipeline;
  const auto& devices = p.ranks[static_cast<std::size_t>(rank)].device_positions;
  selection_->setMode(OverlayMode::Pipeline);
  if (p.axis_index >= 0) selection_->setAxis(p.axis_index);
  selection_->setDevice(devices.empty() ? -1 : devices.front());
  selection_->setDevices(devices);
}

} // namespace shardscope::ui
