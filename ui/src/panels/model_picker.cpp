// SPDX-License-Identifier: Apache-2.0
#include "panels/model_picker.hpp"

#include "models/presets.hpp"
#include "document/scenario_document.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QToolButton>

namespace shardscope::ui {

ModelPicker::ModelPicker(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Model"), this));
  combo_ = new QComboBox(this);
  combo_->setMinimumContentsLength(14);
  combo_->setToolTip(tr("A built-in model preset, or the model file the workspace points to"));
  layout->addWidget(combo_);
  auto* open = new QToolButton(this);
  open->setText(tr("Open model…"));
  open->setToolTip(tr("Use a model file: our JSON parameter list, a .safetensors file or index, or an HF config.json"));
  connect(open, &QToolButton::clicked, this, &ModelPicker::openModel);
  layout->addWidget(open);
  connect(combo_, &QComboBox::activated, this, [this](int i) {
    const QString preset = combo_->itemData(i).toString();
    if (preset.isEmpty()) return; // the file entry
    document_->edit(tr("Model %1").arg(preset), [&](Scenario& s) {
      s.model.preset = preset.toStdString();
      s.model.path.clear();
      s.model.inline_params = Json();
    });
  });
  connect(document_, &ScenarioDocument::scenarioChanged, this, &ModelPicker::syncFromScenario);
  syncFromScenario();
}

void ModelPicker::useModelFile(const QString& path) {
  document_->edit(tr("Model file %1").arg(QFileInfo(path).fileName()), [&](Scenario& s) {
    s.model.preset.clear();
    s.model.path = path.toStdString();
    s.model.inline_params = Json();
  });
}

void ModelPicker::openModel() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Open model"), {}, tr("Models (*.json *.safetensors);;All files (*)"));
  if (!path.isEmpty()) useModelFile(path);
}

void ModelPicker::syncFromScenario() {
  const QSignalBlocker block(combo_);
  combo_->clear();
  for (const QString& name : modelPresetNames()) combo_->addItem(name, name);
  const ModelChoice& m = document_->scenario().model;
  if (!m.preset.empty()) {
    int i = combo_->findData(QString::fromStdString(m.preset));
    if (i < 0) {
      combo_->addItem(QString::fromStdString(m.preset), QString::fromStdString(m.preset));
      i = combo_->count() - 1;
    }
    combo_->setCurrentIndex(i);
  } else {
    const QString label = QString::fromStdString(modelLabel(m));
    combo_->insertItem(0, label, QString());
    combo_->setItemData(0, QString::fromStdString(m.path), Qt::ToolTipRole);
    combo_->setCurrentIndex(0);
  }
}

} // namespace shardscope::ui
