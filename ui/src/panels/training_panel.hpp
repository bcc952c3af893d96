// SPDX-License-Identifier: Apache-2.0
// The workload options the memory estimate depends on: training (parameter dtype, optimizer,
// micro-batch, sequence length, recomputation, batch axes) or serving (batch, context, KV dtype),
// an optional HBM override, and the step estimate's knobs (micro-batches per step, sequence
// parallelism, the performance calibration). Each change is one undoable edit.
#pragma once

#include <QWidget>

#include <functional>

class QCheckBox;
class QFormLayout;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace shardscope {
struct Scenario;
}

namespace shardscope::ui {

class ScenarioDocument;

class TrainingPanel : public QWidget {
  Q_OBJECT
public:
  explicit TrainingPanel(ScenarioDocument* document, QWidget* parent = nullptr);
  QComboBox* workloadCombo() const { return workload_; }
  QComboBox* zeroCombo() const { return zero_; }
  // Item 0: the framework's default ("framework default (float32)"), the others set training.grad_dtype.
  QComboBox* gradDtypeCombo() const { return gradDtype_; }
  QComboBox* precisionCombo() const { return precision_; }
  QComboBox* recomputeCombo() const { return recompute_; }
  QSpinBox* microbatchesSpin() const { return microbatches_; }
  QCheckBox* sequenceParallelBox() const { return sequenceParallel_; }
  // The step estimate's calibration (the workspace's performance section): 0 shows "default (...)"
  // and leaves the value unset, anything else is the user's.
  QDoubleSpinBox* flopsFractionSpin() const { return flopsFraction_; }
  QDoubleSpinBox* linkFractionSpin() const { return linkFraction_; }
  QDoubleSpinBox* hbmFractionSpin() const { return hbmFraction_; }
  QDoubleSpinBox* attentionFractionSpin() const { return attentionFraction_; }
  QDoubleSpinBox* hopLatencySpin() const { return hopLatency_; } // microseconds
  QCheckBox* overlapTensorBox() const { return overlapTensor_; }

private:
  void syncFromScenario();
  void showRecomputeHelp();
  // The rows of the form, in order: the training job, serving and HBM, the step calibration.
  void addTrainingRows(QFormLayout* form);
  void addServingRows(QFormLayout* form);
  void addCalibrationRows(QFormLayout* form);
  // One undoable edit of the workspace; `key` merges consecutive edits of one field.
  void edit(const QString& text, const QString& key, const std::function<void(Scenario&)>& change);
  QSpinBox* countSpin(int lo, int hi, const QString& tip);

  ScenarioDocument* document_;
  QComboBox* workload_;
  QComboBox* dtype_;
  QComboBox* gradDtype_;
  QComboBox* optimizer_;
  QCheckBox* master_;
  QComboBox* zero_;
  QSpinBox* microBatch_;
  QSpinBox* seqLen_;
  QComboBox* recompute_;
  QComboBox* attention_;
  QComboBox* precision_;
  QComboBox* framework_;
  QLineEdit* batchAxes_;
  QLineEdit* seqAxes_;
  QSpinBox* serveBatch_;
  QSpinBox* contextLen_;
  QComboBox* kvDtype_;
  QDoubleSpinBox* hbm_;
  QSpinBox* microbatches_;
  QCheckBox* sequenceParallel_;
  QDoubleSpinBox* flopsFraction_;
  QDoubleSpinBox* linkFraction_;
  QDoubleSpinBox* hbmFraction_;
  QDoubleSpinBox* attentionFraction_;
  QDoubleSpinBox* hopLatency_;
  QCheckBox* overlapTensor_;
};

} // namespace shardscope::ui
