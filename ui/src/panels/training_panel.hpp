// SPDX-License-Identifier: Apache-2.0
// The workload options the memory estimate depends on: training (parameter dtype, optimizer,
// micro-batch, sequence length, recomputation, batch axes) or serving (batch, context, KV dtype),
// and an optional HBM override. Each change is one undoable edit.
#pragma once

#include <QWidget>

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QLineEdit;
class QSpinBox;

namespace shardscope::ui {

class ScenarioDocument;

class TrainingPanel : public QWidget {
  Q_OBJECT
public:
  explicit TrainingPanel(ScenarioDocument* document, QWidget* parent = nullptr);
  QComboBox* workloadCombo() const { return workload_; }
  QComboBox* zeroCombo() const { return zero_; }

private:
  void syncFromScenario();

  ScenarioDocument* document_;
  QComboBox* workload_;
  QComboBox* dtype_;
  QComboBox* optimizer_;
  QCheckBox* master_;
  QComboBox* zero_;
  QSpinBox* microBatch_;
  QSpinBox* seqLen_;
  QComboBox* recompute_;
  QLineEdit* batchAxes_;
  QLineEdit* seqAxes_;
  QSpinBox* serveBatch_;
  QSpinBox* contextLen_;
  QComboBox* kvDtype_;
  QDoubleSpinBox* hbm_;
};

} // namespace shardscope::ui
