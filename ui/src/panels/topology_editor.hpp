// SPDX-License-Identifier: Apache-2.0
// The hardware picker: chip generation (from core's chip catalogue), shape (chips along x, y, z,
// or hosts x GPUs), slices and cores per chip. Each change is one undoable edit.
#pragma once

#include <QWidget>

class QComboBox;
class QSpinBox;

namespace shardscope::ui {

class ScenarioDocument;

class TopologyEditor : public QWidget {
  Q_OBJECT
public:
  explicit TopologyEditor(ScenarioDocument* document, QWidget* parent = nullptr);

  QComboBox* chipCombo() const { return chip_; }
  QComboBox* shapeCombo() const { return shape_; }
  QSpinBox* slicesSpin() const { return slices_; }

private:
  void syncFromScenario();
  void applyShapeText();
  void fillShapeSuggestions(const QString& chip);

  ScenarioDocument* document_;
  QComboBox* chip_;
  QComboBox* shape_;
  QSpinBox* slices_;
  QSpinBox* cores_;
};

} // namespace shardscope::ui
