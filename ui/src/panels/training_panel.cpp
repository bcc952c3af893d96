// SPDX-License-Identifier: Apache-2.0
#include "panels/training_panel.hpp"

#include "document/scenario_document.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFormLayout>
#include <QRegularExpression>
#include <QLineEdit>
#include <QSpinBox>

namespace shardscope::ui {

namespace {
const QStringList kDtypes = {"bfloat16", "float32", "float16", "float8_e4m3fn", "int8"};

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
} // namespace

TrainingPanel::TrainingPanel(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* form = new QFormLayout(this);
  form->setContentsMargins(6, 6, 6, 6);
  auto edit = [this](const QString& text, const QString& key, auto change) { document_->edit(text, change, key); };

  workload_ = new QComboBox(this);
  workload_->addItems({tr("Training"), tr("Serving")});
  workload_->setToolTip(tr("Training keeps gradients and optimizer state; serving keeps a KV cache"));
  connect(workload_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Workload"), "training.workload",
         [i](Scenario& s) { s.training.workload = i == 0 ? Workload::Training : Workload::Serving; });
  });
  form->addRow(tr("Workload"), workload_);

  dtype_ = new QComboBox(this);
  dtype_->addItems(kDtypes);
  connect(dtype_, &QComboBox::activated, this, [=, this](int i) {
    const std::string d = kDtypes[i].toStdString();
    edit(tr("Parameter dtype"), "training.param_dtype", [d](Scenario& s) { s.training.param_dtype = d; });
  });
  form->addRow(tr("Parameter dtype"), dtype_);

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

  auto spin = [this](int lo, int hi, const QString& tip) {
    auto* box = new QSpinBox(this);
    box->setRange(lo, hi);
    box->setToolTip(tip);
    box->setKeyboardTracking(false); // one edit per value, not per keystroke
    return box;
  };
  microBatch_ = spin(1, 1 << 20, tr("Global micro-batch, split over the batch axes"));
  connect(microBatch_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Micro-batch"), "training.micro_batch", [v](Scenario& s) { s.training.micro_batch = v; });
  });
  form->addRow(tr("Micro-batch"), microBatch_);
  seqLen_ = spin(1, 1 << 22, tr("Tokens per sequence"));
  connect(seqLen_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Sequence length"), "training.seq_len", [v](Scenario& s) { s.training.seq_len = v; });
  });
  form->addRow(tr("Sequence length"), seqLen_);

  recompute_ = new QComboBox(this);
  recompute_->addItems({tr("None"), tr("Selective"), tr("Full")});
  recompute_->setToolTip(tr("Activation recomputation (rematerialisation)"));
  connect(recompute_, &QComboBox::activated, this, [=, this](int i) {
    edit(tr("Recompute"), "training.recompute", [i](Scenario& s) { s.training.recompute = static_cast<Recompute>(i); });
  });
  form->addRow(tr("Recompute"), recompute_);

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

  serveBatch_ = spin(1, 1 << 20, tr("Concurrent sequences when serving"));
  connect(serveBatch_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Serving batch"), "training.serve_batch", [v](Scenario& s) { s.training.serve_batch = v; });
  });
  form->addRow(tr("Serving batch"), serveBatch_);
  contextLen_ = spin(1, 1 << 24, tr("Context length kept in the KV cache"));
  connect(contextLen_, &QSpinBox::valueChanged, this, [=, this](int v) {
    edit(tr("Context length"), "training.context_len", [v](Scenario& s) { s.training.context_len = v; });
  });
  form->addRow(tr("Context length"), contextLen_);
  kvDtype_ = new QComboBox(this);
  kvDtype_->addItems(kDtypes);
  connect(kvDtype_, &QComboBox::activated, this, [=, this](int i) {
    const std::string d = kDtypes[i].toStdString();
    edit(tr("KV dtype"), "training.kv_dtype", [d](Scenario& s) { s.training.kv_dtype = d; });
  });
  form->addRow(tr("KV cache dtype"), kvDtype_);

  hbm_ = new QDoubleSpinBox(this);
  hbm_->setRange(0, 4096);
  hbm_->setDecimals(1);
  hbm_->setSuffix(tr(" GiB"));
  hbm_->setSpecialValueText(tr("chip default"));
  hbm_->setKeyboardTracking(false);
  hbm_->setToolTip(tr("Override the chip's HBM capacity for the out-of-memory check"));
  connect(hbm_, &QDoubleSpinBox::valueChanged, this, [=, this](double gib) {
    edit(tr("HBM override"), "training.hbm", [gib](Scenario& s) {
      if (gib <= 0)
        s.training.hbm_bytes_override.reset();
      else
        s.training.hbm_bytes_override = gib * 1024.0 * 1024.0 * 1024.0;
    });
  });
  form->addRow(tr("HBM per chip"), hbm_);

  setWhatsThis(tr("<b>Workload</b><br>What the memory and communication estimates assume: training with an "
                  "optimizer, or serving with a KV cache."));
  connect(document_, &ScenarioDocument::scenarioChanged, this, &TrainingPanel::syncFromScenario);
  syncFromScenario();
}

void TrainingPanel::syncFromScenario() {
  const TrainingOptions& t = document_->scenario().training;
  const QSignalBlocker b1(workload_), b2(dtype_), b3(optimizer_), b4(master_), b5(microBatch_), b6(seqLen_),
      b7(recompute_), b8(serveBatch_), b9(contextLen_), b10(kvDtype_), b11(hbm_), b12(zero_);
  workload_->setCurrentIndex(t.workload == Workload::Training ? 0 : 1);
  const int d = static_cast<int>(kDtypes.indexOf(QString::fromStdString(t.param_dtype)));
  if (d < 0) dtype_->addItem(QString::fromStdString(t.param_dtype));
  dtype_->setCurrentText(QString::fromStdString(t.param_dtype));
  optimizer_->setCurrentIndex(static_cast<int>(t.optimizer));
  master_->setChecked(t.master_weights_fp32);
  zero_->setCurrentIndex(t.zero_stage);
  microBatch_->setValue(static_cast<int>(std::min<std::int64_t>(t.micro_batch, microBatch_->maximum())));
  seqLen_->setValue(static_cast<int>(std::min<std::int64_t>(t.seq_len, seqLen_->maximum())));
  recompute_->setCurrentIndex(static_cast<int>(t.recompute));
  if (!batchAxes_->hasFocus()) batchAxes_->setText(joinAxes(t.batch_axes));
  if (!seqAxes_->hasFocus()) seqAxes_->setText(joinAxes(t.seq_axes));
  serveBatch_->setValue(static_cast<int>(std::min<std::int64_t>(t.serve_batch, serveBatch_->maximum())));
  contextLen_->setValue(static_cast<int>(std::min<std::int64_t>(t.context_len, contextLen_->maximum())));
  kvDtype_->setCurrentText(QString::fromStdString(t.kv_dtype));
  hbm_->setValue(t.hbm_bytes_override ? *t.hbm_bytes_override / (1024.0 * 1024.0 * 1024.0) : 0.0);
  const bool training = t.workload == Workload::Training;
  for (QWidget* w :
       {static_cast<QWidget*>(optimizer_), static_cast<QWidget*>(master_), static_cast<QWidget*>(zero_),
        static_cast<QWidget*>(microBatch_), static_cast<QWidget*>(seqLen_), static_cast<QWidget*>(recompute_)})
    w->setEnabled(training);
  for (QWidget* w :
       {static_cast<QWidget*>(serveBatch_), static_cast<QWidget*>(contextLen_), static_cast<QWidget*>(kvDtype_)})
    w->setEnabled(!training);
}

} // namespace shardscope::ui
