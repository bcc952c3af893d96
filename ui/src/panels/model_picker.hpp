// SPDX-License-Identifier: Apache-2.0
// The model picker: a built-in preset, or "Open model…" for a file (our JSON, safetensors,
// index.json, HF config.json) whose path goes into the scenario.
#pragma once

#include <QWidget>

class QComboBox;

namespace shardscope::ui {

class ScenarioDocument;

class ModelPicker : public QWidget {
  Q_OBJECT
public:
  explicit ModelPicker(ScenarioDocument* document, QWidget* parent = nullptr);
  QComboBox* combo() const { return combo_; }
  // Points the scenario at a model file (what "Open model…" does after its dialog).
  void useModelFile(const QString& path);

private:
  void syncFromScenario();
  void openModel();

  ScenarioDocument* document_;
  QComboBox* combo_;
};

} // namespace shardscope::ui
