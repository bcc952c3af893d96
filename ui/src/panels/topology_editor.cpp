// SPDX-License-Identifier: Apache-2.0
#include "panels/topology_editor.hpp"

#include "document/scenario_document.hpp"

#include "shardscope/hardware/chips.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSpinBox>

namespace shardscope::ui {

namespace {
// A sensible shape when the user switches to a chip: about 128 devices in the chip's own form.
std::array<int, 3> defaultShape(const ChipSpec& chip) {
  if (chip.platform == Platform::Gpu) return {16, chip.host_block[0] > 8 ? chip.host_block[0] : 8, 1};
  if (chip.platform == Platform::Cpu) return {8, 1, 1};
  if (chip.torus_dims == 2)
    return chip.default_cores_per_chip > 1 ? std::array<int, 3>{4, 4, 1} : std::array<int, 3>{8, 16, 1};
  return {4, 4, 8};
}

QStringList shapeSuggestions(const ChipSpec& chip) {
  if (chip.platform == Platform::Gpu) return {"1x8", "2x8", "4x8", "16x8", "32x8", "128x8"};
  if (chip.platform == Platform::Cpu) return {"1x1", "4x1", "8x1"};
  if (chip.torus_dims == 2) return {"2x2", "2x4", "4x4", "4x8", "8x8", "8x16", "16x16"};
  return {"2x2x1", "2x2x2", "2x2x4", "4x4x4", "4x4x8", "4x8x8", "8x8x8", "8x8x16", "16x16x16", "16x20x28"};
}

QString shapeText(const TopologySpec& t, const ChipSpec* chip) {
  const bool twoD = chip && (chip->torus_dims < 3);
  QString s = QStringLiteral("%1x%2").arg(t.shape[0]).arg(t.shape[1]);
  if (!twoD || t.shape[2] != 1) s += QStringLiteral("x%1").arg(t.shape[2]);
  return s;
}
} // namespace

TopologyEditor::TopologyEditor(ScenarioDocument* document, QWidget* parent) : QWidget(parent), document_(document) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(new QLabel(tr("Hardware"), this));
  chip_ = new QComboBox(this);
  for (const ChipSpec& chip : chipCatalog()) {
    chip_->addItem(QString::fromStdString(chip.key), QString::fromStdString(chip.key));
    chip_->setItemData(chip_->count() - 1, QString::fromStdString(chip.device_kind), Qt::ToolTipRole);
  }
  chip_->setToolTip(tr("Accelerator generation (HBM, bandwidths and torus rules come from the chip catalogue)"));
  layout->addWidget(chip_);
  shape_ = new QComboBox(this);
  shape_->setEditable(true);
  shape_->setMinimumContentsLength(8);
  shape_->setInsertPolicy(QComboBox::NoInsert);
  shape_->setToolTip(tr("Chips along x, y, z for TPUs (e.g. 4x4x8), hosts x GPUs per host for GPUs (e.g. 16x8)"));
  layout->addWidget(shape_);
  layout->addWidget(new QLabel(tr("slices"), this));
  slices_ = new QSpinBox(this);
  slices_->setRange(1, 256);
  slices_->setToolTip(tr("Slices joined by the data-centre network (multi-slice)"));
  layout->addWidget(slices_);
  layout->addWidget(new QLabel(tr("cores/chip"), this));
  cores_ = new QSpinBox(this);
  cores_->setRange(0, 8);
  cores_->setSpecialValueText(tr("auto"));
  cores_->setToolTip(tr("Devices per chip; auto uses the chip's default (2 on v2/v3/7x, else 1)"));
  layout->addWidget(cores_);

  connect(chip_, &QComboBox::activated, this, [this](int i) {
    const std::string key = chip_->itemData(i).toString().toStdString();
    const ChipSpec* chip = findChip(key);
    if (!chip || key == document_->scenario().topology.chip) return;
    document_->edit(tr("Hardware %1").arg(QString::fromStdString(key)), [&](Scenario& s) {
      s.topology.chip = key;
      s.topology.shape = defaultShape(*chip);
      s.topology.cores_per_chip = 0;
      s.topology.host_block = {0, 0, 0};
    });
  });
  connect(shape_->lineEdit(), &QLineEdit::editingFinished, this, &TopologyEditor::applyShapeText);
  connect(shape_, &QComboBox::activated, this, [this](int) { applyShapeText(); });
  connect(slices_, &QSpinBox::valueChanged, this, [this](int v) {
    document_->edit(
        tr("Slices %1").arg(v), [v](Scenario& s) { s.topology.slices = v; }, "topology.slices");
  });
  connect(cores_, &QSpinBox::valueChanged, this, [this](int v) {
    document_->edit(
        tr("Cores per chip"), [v](Scenario& s) { s.topology.cores_per_chip = v; }, "topology.cores");
  });
  connect(document_, &ScenarioDocument::scenarioChanged, this, &TopologyEditor::syncFromScenario);
  syncFromScenario();
}

void TopologyEditor::fillShapeSuggestions(const QString& key) {
  const ChipSpec* chip = findChip(key.toStdString());
  shape_->clear();
  if (chip) shape_->addItems(shapeSuggestions(*chip));
}

void TopologyEditor::applyShapeText() {
  const QString text = shape_->currentText().trimmed();
  static const QRegularExpression form("^(\\d{1,5})(?:x(\\d{1,5}))?(?:x(\\d{1,5}))?$");
  const auto m = form.match(text);
  std::array<int, 3> shape{1, 1, 1};
  bool ok = m.hasMatch();
  for (int k = 0; ok && k < 3; ++k) {
    if (m.captured(k + 1).isEmpty()) continue;
    shape[static_cast<std::size_t>(k)] = m.captured(k + 1).toInt();
    ok = shape[static_cast<std::size_t>(k)] >= 1;
  }
  // Beyond this no real machine exists, and the view would be asked to draw millions of chips.
  ok = ok && static_cast<long long>(shape[0]) * shape[1] * shape[2] <= 65536;
  if (!ok) {
    shape_->setStyleSheet("QComboBox { border: 1px solid #d73027; }");
    shape_->setToolTip(
        tr("'%1' is not a shape: write chips as XxYxZ (or XxY), each at least 1, at most 65536 in all").arg(text));
    return;
  }
  shape_->setStyleSheet({});
  shape_->setToolTip(tr("Chips along x, y, z for TPUs (e.g. 4x4x8), hosts x GPUs per host for GPUs (e.g. 16x8)"));
  document_->edit(
      tr("Shape %1").arg(text), [&](Scenario& s) { s.topology.shape = shape; }, "topology.shape");
}

void TopologyEditor::syncFromScenario() {
  const TopologySpec& t = document_->scenario().topology;
  const QSignalBlocker a(chip_), b(shape_), c(slices_), d(cores_);
  const QString key = QString::fromStdString(t.chip);
  if (chip_->currentData().toString() != key || shape_->count() == 0) fillShapeSuggestions(key);
  chip_->setCurrentIndex(std::max(0, chip_->findData(key)));
  const QString text = shapeText(t, findChip(t.chip));
  if (shape_->currentText() != text) shape_->setEditText(text);
  slices_->setValue(t.slices);
  cores_->setValue(t.cores_per_chip);
}

} // namespace shardscope::ui
