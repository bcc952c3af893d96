// SPDX-License-Identifier: Apache-2.0
#include "panels/training_panel.hpp"

#include "document/scenario_document.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/base/dtype.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/hardware/chips.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QLabel>
#include <QRegularExpression>
#include <QLineEdit>
#include <QSpinBox>

namespace shardscope::ui {

namespace {
// The dtype pickers offer core's table of canonical dtypes (the names the analysis accepts).
void addDtypes(QComboBox* box) {
  for (const auto& name : knownDtypes()) box->addItem(QString::fromStdString(name));
}

// Shows `name` (an alias such as "bf16" shows as its canonical "bfloat16"); a name core does not
// know is added as it is, so the picker never hides what the workspace says.
void showDtype(QComboBox* box, const std::string& name) {
  const QString text = QString::fromStdString(canonicalDtype(name).value_or(name));
  if (box->findText(text) < 0) box->addItem(text);
  box->setCurrentText(text);
}

std::vector<std::string> splitAxes(const QString& text) {
  std::vector<std::string> out;
  for (const QString& part : text.split(QRegularExpression("[,\\s]+"), Qt::SkipEmptyParts))
    out.push_back(part.toStdString());
  return out;
}

QString joinAxes(const std::vector<std::string>& axes) {
  QStringList parts;
  for (const auto& a : axes) parts << QString::fromStdString(a);
  return parts.join(", ");
}

// A calibration knob: 0 is "unset" (shows the default it falls back to), any other value the
// user's own figure.
QDoubleSpinBox* calibrationSpin(QWidget* parent, double max, int decimals, double step, const QString& unit,
                                const QString& tip) {
  auto* box = new QDoubleSpinBox(parent);
  box->setRange(0, max);
  box->setDecimals(decimals);
  box->setSingleStep(step);
  box->setSuffix(unit + QObject::tr(" (user)"));
  box->setKeyboardTracking(false);
  box->setToolTip(tip + QObject::tr("<br>At the bottom of the range (0) the value is unset: the default shown "
                                    "applies, and the Step dock labels it \"default\" or \"chip\"."));
  return box;
}
} // namespace

TrainingPanel::TrainingPanel(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 6, 6, 6);
  addTrainingRows(form);
  addServingRows(form);
  addCalibrationRows(form);
  setWhatsThis(tr("<b>Workload</b><br>What the memory and communication estimates assume: training with an "
                  "optimizer, or serving with a KV cache."));
  connect(document_, &ScenarioDocument::scenarioChanged, this, &TrainingPanel::syncFromScenario);
  syncFromScenario();
}

void TrainingPanel::edit(const QString& text, const QString& key, const std::function<void(Scenario&)>& change) {
  document_->edit(text, change, key);
}

QSpinBox* TrainingPanel::countSpin(int lo, int hi, const QString& tip) {
  auto* box = new QSpinBox(this);
  box->setRange(lo, hi);
  box->setToolTip(tip);
  box->setKeyboardTracking(false); // one edit per value, not per keystroke
  return box;
}

// What a training step runs: workload, dtypes, optimizer and its sharding, batch, sequence,
// framework, recompute, attention kernel, batch and sequence axes, sequence parallelism.
void TrainingPanel::addTrainingRows(QFormLayout* form) {
  workload_ = new QComboBox(this);
  workload_->addItems({tr("Training"), tr("Serving")});
  workload_->setToolTip(tr("Training keeps gradients and optimizer state; serving keeps a KV cache"));
  connect(workload_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Workload"), "training.workload",
         [i](Scenario& s) { s.training.workload = i == 0 ? Workload::Training : Workload::Serving; });
  });
  form->addRow(tr("Workload"), workload_);

  dtype_ = new QComboBox(this);
  addDtypes(dtype_);
  connect(dtype_, &QComboBox::activated, this, [=, this](int i) {
    const std::string d = dtype_->itemText(i).toStdString();
    edit(tr("Parameter dtype"), "training.param_dtype", [d](Scenario& s) { s.training.param_dtype = d; });
  });
  form->addRow(tr("Parameter dtype"), dtype_);

  // Item 0 is the framework's default (training.grad_dtype absent); the others set it.
  gradDtype_ = new QComboBox(this);
  gradDtype_->addItem(tr("framework default"));
  addDtypes(gradDtype_);
  gradDtype_->setToolTip(tr("The dtype gradients are accumulated and reduced in (memory and the gradient "
                            "collectives). Default: the framework's; Megatron-LM keeps a bfloat16 model's "
                            "gradients in float32, the others in the parameters' dtype."));
  connect(gradDtype_, &QComboBox::activated, this, [=, this](int i) {
    const std::string d = i == 0 ? std::string() : gradDtype_->itemText(i).toStdString();
    edit(tr("Gradient dtype"), "training.grad_dtype", [d](Scenario& s) { s.training.grad_dtype = d; });
  });
  form->addRow(tr("Gradient dtype"), gradDtype_);

  optimizer_ = new QComboBox(this);
  optimizer_->addItems({"AdamW", "Adafactor", "SGD + momentum"});
  connect(optimizer_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Optimizer"), "training.optimizer", [i](Scenario& s) { s.training.optimizer = static_cast<Optimizer>(i); });
  });
  form->addRow(tr("Optimizer"), optimizer_);

  master_ = new QCheckBox(tr("fp32 master weights"), this);
  connect(master_, &QCheckBox::toggled, this, [=, this](bool on) {
    edit(tr("Master weights"), "training.master", [on](Scenario& s) { s.training.master_weights_fp32 = on; });
  });
  form->addRow(QString(), master_);

  zero_ = new QComboBox(this);
  zero_->addItems({tr("like the parameters"), tr("ZeRO-1: optimizer state"), tr("ZeRO-2: + gradients")});
  zero_->setToolTip(
      tr("ZeRO splits the optimizer state (stage 1) and the gradients (stage 2) over the batch axes a "
         "parameter is not already sharded on. Stage 3 shards the parameters too: pick the fsdp rule set."));
  connect(zero_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Optimizer sharding"), "training.zero", [i](Scenario& s) { s.training.zero_stage = i; });
  });
  form->addRow(tr("Optimizer sharding"), zero_);

  microBatch_ = countSpin(1, 1 << 20, tr("Global micro-batch, split over the batch axes"));
  connect(microBatch_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Micro-batch"), "training.micro_batch", [v](Scenario& s) { s.training.micro_batch = v; });
  });
  form->addRow(tr("Micro-batch"), microBatch_);
  seqLen_ = countSpin(1, 1 << 22, tr("Tokens per sequence"));
  connect(seqLen_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Sequence length"), "training.seq_len", [v](Scenario& s) { s.training.seq_len = v; });
  });
  form->addRow(tr("Sequence length"), seqLen_);
  microbatches_ = countSpin(1, 1 << 30,
                            tr("Gradient accumulation: micro-batches per optimizer step (the global batch is "
                               "micro-batch × this). Memory holds one; the step time runs them all."));
  connect(microbatches_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Micro-batches per step"), "training.microbatches", [v](Scenario& s) { s.training.microbatches = v; });
  });
  form->addRow(tr("Micro-batches / step"), microbatches_);

  framework_ = new QComboBox(this);
  for (const auto& [name, value] : kFrameworkNames)
    framework_->addItem(QString::fromUtf8(name.data(), int(name.size())));
  framework_->setToolTip(tr("Whose behaviour the estimate follows: MaxText shards activations over the tensor axis "
                            "and overlaps tensor collectives on TPU; Megatron keeps Korthikanti's activations and "
                            "exposes them; generic computes the loss as PyTorch does off TPU, in fp32 (12 bytes per "
                            "logit at its backward; 6 under XLA and Megatron) (docs/step-time.md, Frameworks)"));
  connect(framework_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Framework"), "training.framework",
         [i](Scenario& s) { s.training.framework = kFrameworkNames[static_cast<std::size_t>(i)].second; });
  });
  form->addRow(tr("Framework"), framework_);

  recompute_ = new QComboBox(this);
  // Megatron's names (none, selective, full), MaxText's remat_policy names and torchtitan's
  // selective_op, in the enum's order.
  // Each policy says what it keeps and re-runs where the list offers it (showRecomputeHelp).
  for (const auto& [name, value] : kRecomputeNames)
    recompute_->addItem(QString::fromUtf8(name.data(), int(name.size())));
  recompute_->setToolTip(tr("Activation recomputation (rematerialisation) policy, by its framework's name: what "
                            "the backward keeps and what it runs again"));
  connect(recompute_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Recompute"), "training.recompute", [i](Scenario& s) { s.training.recompute = static_cast<Recompute>(i); });
  });
  form->addRow(tr("Recompute"), recompute_);

  attention_ = new QComboBox(this);
  for (const auto& [name, value] : kAttentionKernelNames)
    attention_->addItem(QString::fromUtf8(name.data(), int(name.size())));
  attention_->setToolTip(tr("The attention kernel. flash: one fused kernel, the scores never reach HBM (MaxText, "
                            "Megatron-Core with Transformer Engine). materialized: every head's [s, s] scores written "
                            "to HBM, then softmax and dropout (Megatron-LM before 2023): their HBM time in the step, "
                            "and Korthikanti's 5as/h activation term when the policy keeps the attention core"));
  connect(attention_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Attention"), "training.attention",
         [i](Scenario& s) { s.training.attention = kAttentionKernelNames[static_cast<std::size_t>(i)].second; });
  });
  form->addRow(tr("Attention"), attention_);

  precision_ = new QComboBox(this);
  for (const auto& [name, value] : kPrecisionNames)
    precision_->addItem(QString::fromUtf8(name.data(), int(name.size())));
  precision_->setToolTip(tr("The weight matmuls' number format. bf16 and fp16: the chip's 16-bit peak. fp8 "
                            "(Transformer Engine; MaxText's quantization fp8) and int8 (MaxText's quantization int8): "
                            "the chip's published FP8 or INT8 peak, with the casts to one byte as HBM time; the "
                            "attention core, norms and loss stay 16-bit. A chip without a published 8-bit peak "
                            "refuses it"));
  connect(precision_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Precision"), "training.precision",
         [i](Scenario& s) { s.training.precision = kPrecisionNames[static_cast<std::size_t>(i)].second; });
  });
  form->addRow(tr("Precision"), precision_);

  batchAxes_ = new QLineEdit(this);
  batchAxes_->setToolTip(tr("Mesh axes that shard the batch, comma-separated"));
  connect(batchAxes_, &QLineEdit::editingFinished, this, [=, this] {
    const auto axes = splitAxes(batchAxes_->text());
    edit(tr("Batch axes"), "training.batch_axes", [axes](Scenario& s) { s.training.batch_axes = axes; });
  });
  form->addRow(tr("Batch axes"), batchAxes_);
  seqAxes_ = new QLineEdit(this);
  seqAxes_->setToolTip(tr("Mesh axes that shard the sequence (sequence parallelism), comma-separated"));
  connect(seqAxes_, &QLineEdit::editingFinished, this, [=, this] {
    const auto axes = splitAxes(seqAxes_->text());
    edit(tr("Sequence axes"), "training.seq_axes", [axes](Scenario& s) { s.training.seq_axes = axes; });
  });
  form->addRow(tr("Sequence axes"), seqAxes_);
  sequenceParallel_ = new QCheckBox(tr("Sequence parallel (Megatron)"), this);
  sequenceParallel_->setToolTip(tr("Layer norms and dropouts split over the tensor axis (less activation memory), "
                                   "and each tensor-parallel all-reduce becomes an all-gather / reduce-scatter pair"));
  connect(sequenceParallel_, &QCheckBox::toggled, this, [=, this](bool on) {
    edit(tr("Sequence parallel"), "training.sequence_parallel",
         [on](Scenario& s) { s.training.sequence_parallel = on; });
  });
  form->addRow(QString(), sequenceParallel_);
}

// Serving's batch, context and KV cache dtype, and the HBM override both workloads use.
void TrainingPanel::addServingRows(QFormLayout* form) {
  serveBatch_ = countSpin(1, 1 << 20, tr("Concurrent sequences when serving"));
  connect(serveBatch_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Serving batch"), "training.serve_batch", [v](Scenario& s) { s.training.serve_batch = v; });
  });
  form->addRow(tr("Serving batch"), serveBatch_);
  contextLen_ = countSpin(1, 1 << 24, tr("Context length kept in the KV cache"));
  connect(contextLen_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Context length"), "training.context_len", [v](Scenario& s) { s.training.context_len = v; });
  });
  form->addRow(tr("Context length"), contextLen_);
  kvDtype_ = new QComboBox(this);
  addDtypes(kvDtype_);
  connect(kvDtype_, &QComboBox::activated, this, [=, this](int i) {
    const std::string d = kvDtype_->itemText(i).toStdString();
    edit(tr("KV dtype"), "training.kv_dtype", [d](Scenario& s) { s.training.kv_dtype = d; });
  });
  form->addRow(tr("KV cache dtype"), kvDtype_);

  hbm_ = new QDoubleSpinBox(this);
  hbm_->setRange(0, 4096);
  hbm_->setDecimals(1);
  hbm_->setSuffix(tr(" GiB"));
  hbm_->setSpecialValueText(tr("chip default"));
  hbm_->setKeyboardTracking(false);
  hbm_->setToolTip(tr("Override the HBM each device has, for the out-of-memory check. By default the chip's, "
                      "shared by its devices: a TPU v2, v3 or 7x chip is two devices (TensorCores), each with half"));
  connect(hbm_, &QDoubleSpinBox::valueChanged, this, [=, this](double gib) {
    edit(tr("HBM override"), "training.hbm", [gib](Scenario& s) {
      if (gib <= 0)
        s.training.hbm_bytes_override.reset();
      else
        s.training.hbm_bytes_override = gib * 1024.0 * 1024.0 * 1024.0;
    });
  });
  form->addRow(tr("HBM per device"), hbm_);
}

// The step estimate's calibration (the workspace's performance section, docs/step-time.md).
void TrainingPanel::addCalibrationRows(QFormLayout* form) {
  auto* heading = new QLabel(tr("<b>Step time calibration</b>"), this);
  heading->setToolTip(tr("How much of the chip's published peaks a real step achieves; the Step dock shows the "
                         "estimate these give"));
  form->addRow(heading);
  auto fractionEdit = [=, this](QDoubleSpinBox* box, const QString& text, const QString& key,
                                std::optional<double> PerformanceOptions::*field) {
    connect(box, &QDoubleSpinBox::valueChanged, this, [=, this](double v) {
      edit(text, key, [v, field](Scenario& s) {
        if (v <= 0)
          (s.performance.*field).reset();
        else
          s.performance.*field = v;
      });
    });
  };
  flopsFraction_ = calibrationSpin(this, 1, 3, 0.01, {},
                                   tr("Fraction of the chip's peak bf16 FLOP/s the step's matmuls achieve "
                                      "(performance.flops_fraction), in (0, 1]"));
  fractionEdit(flopsFraction_, tr("FLOPs fraction"), "performance.flops_fraction", &PerformanceOptions::flops_fraction);
  form->addRow(tr("FLOPs fraction"), flopsFraction_);
  linkFraction_ = calibrationSpin(this, 1, 3, 0.01, {},
                                  tr("Fraction of every link's bandwidth collectives achieve "
                                     "(performance.link_fraction), in (0, 1]"));
  fractionEdit(linkFraction_, tr("Link fraction"), "performance.link_fraction", &PerformanceOptions::link_fraction);
  form->addRow(tr("Link fraction"), linkFraction_);
  hbmFraction_ = calibrationSpin(this, 1, 3, 0.01, {},
                                 tr("Fraction of HBM bandwidth streaming kernels achieve (performance.hbm_fraction), "
                                    "in (0, 1]"));
  fractionEdit(hbmFraction_, tr("HBM fraction"), "performance.hbm_fraction", &PerformanceOptions::hbm_fraction);
  form->addRow(tr("HBM fraction"), hbmFraction_);
  attentionFraction_ = calibrationSpin(this, 1, 3, 0.01, {},
                                       tr("Fraction of the chip's peak bf16 FLOP/s the attention kernel achieves "
                                          "(performance.attention_fraction), in (0, 1]; default: the chip's "
                                          "published kernel benchmark (H100: FlashAttention-2), else the FLOPs "
                                          "fraction"));
  fractionEdit(attentionFraction_, tr("Attention fraction"), "performance.attention_fraction",
               &PerformanceOptions::attention_fraction);
  form->addRow(tr("Attention fraction"), attentionFraction_);
  hopLatency_ = calibrationSpin(this, 1e6, 3, 0.1, tr(" µs"),
                                tr("Seconds per ICI/NVLink hop as collectives see it (performance.hop_latency), "
                                   "entered in microseconds"));
  connect(hopLatency_, &QDoubleSpinBox::valueChanged, this, [=, this](double us) {
    edit(tr("Hop latency"), "performance.hop_latency", [us](Scenario& s) {
      if (us <= 0)
        s.performance.hop_latency.reset();
      else
        s.performance.hop_latency = us * 1e-6;
    });
  });
  form->addRow(tr("Hop latency"), hopLatency_);
  overlapTensor_ = new QCheckBox(tr("Overlap tensor-parallel comm"), this);
  overlapTensor_->setToolTip(tr("Tensor-parallel activation collectives hide behind compute (collective matmuls); "
                                "off: they sit on the critical path (performance.overlap_tensor_comm)"));
  connect(overlapTensor_, &QCheckBox::toggled, this, [=, this](bool on) {
    edit(tr("Overlap tensor comm"), "performance.overlap_tensor_comm",
         [on](Scenario& s) { s.performance.overlap_tensor_comm = on; });
  });
  form->addRow(QString(), overlapTensor_);
}

// What each policy keeps and re-runs in this job's program (XLA's under MaxText and on TPU), on
// the list's items and, for the workspace's policy, on the closed box.
void TrainingPanel::showRecomputeHelp() {
  const Scenario& scenario = document_->scenario();
  const bool xla = isXlaProgram(scenario.training.framework, findChip(scenario.topology.chip));
  for (int i = 0; i < recompute_->count(); ++i)
    recompute_->setItemData(
        i, QString::fromStdString(describeRecompute(kRecomputeNames[static_cast<std::size_t>(i)].second, xla)),
        Qt::ToolTipRole);
  const Recompute policy = scenario.training.recompute;
  recompute_->setToolTip(tr("Activation recomputation (rematerialisation) policy, by its framework's name. %1: %2")
                             .arg(QString::fromUtf8(recomputeName(policy).data(), int(recomputeName(policy).size())),
                                  QString::fromStdString(describeRecompute(policy, xla))));
}

void TrainingPanel::syncFromScenario() {
  const TrainingOptions& t = document_->scenario().training;
  const QSignalBlocker b1(workload_), b2(dtype_), b3(optimizer_), b4(master_), b5(microBatch_), b6(seqLen_),
      b7(recompute_), b8(serveBatch_), b9(contextLen_), b10(kvDtype_), b11(hbm_), b12(zero_), b13(microbatches_),
      b14(sequenceParallel_), b15(flopsFraction_), b16(linkFraction_), b17(hbmFraction_), b18(hopLatency_),
      b19(overlapTensor_), b20(framework_), b21(attention_), b22(gradDtype_), b23(precision_), b24(attentionFraction_);
  framework_->setCurrentIndex(static_cast<int>(t.framework));
  workload_->setCurrentIndex(t.workload == Workload::Training ? 0 : 1);
  showDtype(dtype_, t.param_dtype);
  // The default item names what the framework's default resolves to.
  TrainingOptions byFramework = t;
  byFramework.grad_dtype.clear();
  gradDtype_->setItemText(0, tr("framework default (%1)").arg(QString::fromStdString(gradDtypeOf(byFramework))));
  if (t.grad_dtype.empty())
    gradDtype_->setCurrentIndex(0);
  else
    showDtype(gradDtype_, t.grad_dtype);
  optimizer_->setCurrentIndex(static_cast<int>(t.optimizer));
  master_->setChecked(t.master_weights_fp32);
  zero_->setCurrentIndex(t.zero_stage);
  microBatch_->setValue(static_cast<int>(std::min<std::int64_t>(t.micro_batch, microBatch_->maximum())));
  seqLen_->setValue(static_cast<int>(std::min<std::int64_t>(t.seq_len, seqLen_->maximum())));
  recompute_->setCurrentIndex(static_cast<int>(t.recompute));
  showRecomputeHelp();
  attention_->setCurrentIndex(static_cast<int>(t.attention));
  precision_->setCurrentIndex(static_cast<int>(t.precision));
  if (!batchAxes_->hasFocus()) batchAxes_->setText(joinAxes(t.batch_axes));
  if (!seqAxes_->hasFocus()) seqAxes_->setText(joinAxes(t.seq_axes));
  serveBatch_->setValue(static_cast<int>(std::min<std::int64_t>(t.serve_batch, serveBatch_->maximum())));
  contextLen_->setValue(static_cast<int>(std::min<std::int64_t>(t.context_len, contextLen_->maximum())));
  showDtype(kvDtype_, t.kv_dtype);
  hbm_->setValue(t.hbm_bytes_override ? *t.hbm_bytes_override / (1024.0 * 1024.0 * 1024.0) : 0.0);
  microbatches_->setValue(static_cast<int>(std::min<std::int64_t>(t.microbatches, microbatches_->maximum())));
  sequenceParallel_->setChecked(t.sequence_parallel);

  // What an unset knob falls back to: the chip's defaults (step_calibration.cpp), the hop latency
  // from the link overrides when they set one.
  const Scenario& scenario = document_->scenario();
  const PerformanceOptions& perf = scenario.performance;
  StepCalibration defaults;
  const ChipSpec* chip = findChip(scenario.topology.chip);
  if (chip) defaults = defaultCalibration(*chip);
  QString hopSource = chip ? tr("chip") : tr("default");
  if (scenario.links.ici_latency) {
    defaults.hop_latency.value = *scenario.links.ici_latency;
    hopSource = tr("links");
  }
  auto showFraction = [](QDoubleSpinBox* box, const std::optional<double>& value, double fallback) {
    box->setSpecialValueText(tr("%1 (default)").arg(QString::number(fallback, 'g', 3)));
    box->setValue(value.value_or(0.0));
  };
  showFraction(flopsFraction_, perf.flops_fraction, defaults.flops_fraction.value);
  showFraction(linkFraction_, perf.link_fraction, defaults.link_fraction.value);
  showFraction(hbmFraction_, perf.hbm_fraction, defaults.hbm_fraction.value);
  showFraction(attentionFraction_, perf.attention_fraction,
               defaults.attention_fraction.source == FigureSource::Default
                   ? perf.flops_fraction.value_or(defaults.flops_fraction.value)
                   : defaults.attention_fraction.value);
  hopLatency_->setSpecialValueText(
      tr("%1 µs (%2)").arg(QString::number(defaults.hop_latency.value * 1e6, 'g', 3), hopSource));
  hopLatency_->setValue(perf.hop_latency ? *perf.hop_latency * 1e6 : 0.0);
  overlapTensor_->setChecked(
      perf.overlap_tensor_comm.value_or(defaultTensorOverlap(t.framework, document_->scenario().topology.chip)));

  const bool training = t.workload == Workload::Training;
  for (QWidget* w :
       {static_cast<QWidget*>(optimizer_), static_cast<QWidget*>(gradDtype_), static_cast<QWidget*>(master_),
        static_cast<QWidget*>(zero_), static_cast<QWidget*>(microBatch_), static_cast<QWidget*>(seqLen_),
        static_cast<QWidget*>(recompute_), static_cast<QWidget*>(attention_), static_cast<QWidget*>(precision_),
        static_cast<QWidget*>(microbatches_), static_cast<QWidget*>(sequenceParallel_),
        static_cast<QWidget*>(flopsFraction_), static_cast<QWidget*>(linkFraction_),
        static_cast<QWidget*>(hbmFraction_), static_cast<QWidget*>(attentionFraction_),
        static_cast<QWidget*>(hopLatency_), static_cast<QWidget*>(overlapTensor_)})
    w->setEnabled(training);
  for (QWidget* w :
       {static_cast<QWidget*>(serveBatch_), static_cast<QWidget*>(contextLen_), static_cast<QWidget*>(kvDtype_)})
    w->setEnabled(!training);
}

} // namespace shardscope::ui
