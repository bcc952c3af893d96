#include "ui_test_app.hpp"

#include "model_picker.hpp"
#include "scenario_document.hpp"
#include "topology_editor.hpp"
#include "training_panel.hpp"

#include <QComboBox>
#include <QLineEdit>
#include <QSpinBox>
#include <QTest>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("the topology editor edits chip, shape and slices, rejecting bad shapes", "[ui][pickers]") {
  test::app();
  ScenarioDocument doc;
  TopologyEditor editor(&doc);
  QComboBox* chip = editor.chipCombo();
  const int v5p = chip->findData("v5p");
  REQUIRE(v5p >= 0);
  chip->setCurrentIndex(v5p);
  emit chip->activated(v5p);
  CHECK(doc.scenario().topology.chip == "v5p");
  CHECK(doc.scenario().topology.shape == std::array<int, 3>{4, 4, 8});

  editor.shapeCombo()->setEditText("16x20x28");
  emit editor.shapeCombo()->lineEdit()->editingFinished();
  CHECK(doc.scenario().topology.shape == std::array<int, 3>{16, 20, 28});
  editor.shapeCombo()->setEditText("4xx4");
  emit editor.shapeCombo()->lineEdit()->editingFinished();
  CHECK(doc.scenario().topology.shape == std::array<int, 3>{16, 20, 28}); // unchanged
  CHECK(editor.shapeCombo()->toolTip().contains("not a shape"));
  editor.shapeCombo()->setEditText("1000x1000x1000"); // beyond any machine
  emit editor.shapeCombo()->lineEdit()->editingFinished();
  CHECK(doc.scenario().topology.shape == std::array<int, 3>{16, 20, 28});

  editor.slicesSpin()->setValue(4);
  CHECK(doc.scenario().topology.slices == 4);
  // Undo puts the widgets back too.
  doc.undoStack()->undo();
  CHECK(editor.slicesSpin()->value() == 1);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  CHECK(chip->currentData().toString() == "v4");
  CHECK(editor.shapeCombo()->currentText() == "4x4x8");
}

TEST_CASE("the model picker switches presets and points at model files", "[ui][pickers]") {
  test::app();
  ScenarioDocument doc;
  ModelPicker picker(&doc);
  const int i = picker.combo()->findData("gpt2");
  REQUIRE(i >= 0);
  emit picker.combo()->activated(i);
  CHECK(doc.scenario().model.preset == "gpt2");
  picker.useModelFile("/models/mine/config.json");
  CHECK(doc.scenario().model.preset.empty());
  CHECK(doc.scenario().model.path == "/models/mine/config.json");
  CHECK(picker.combo()->currentText() == "config.json");
  doc.undoStack()->undo();
  CHECK(doc.scenario().model.preset == "gpt2");
}

TEST_CASE("the workload panel edits training and serving options", "[ui][pickers]") {
  test::app();
  ScenarioDocument doc;
  TrainingPanel panel(&doc);
  emit panel.workloadCombo()->activated(1);
  CHECK(doc.scenario().training.workload == Workload::Serving);
  auto* seq = panel.findChildren<QSpinBox*>().at(1); // micro-batch, then sequence length
  seq->setValue(8192);
  CHECK(doc.scenario().training.seq_len == 8192);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  CHECK(doc.scenario().training == defaultScenario().training);
  CHECK(panel.workloadCombo()->currentIndex() == 0);

  // ZeRO stage: an undoable edit, and the combo follows the document.
  emit panel.zeroCombo()->activated(2);
  CHECK(doc.scenario().training.zero_stage == 2);
  doc.undoStack()->undo();
  CHECK(doc.scenario().training.zero_stage == 0);
  CHECK(panel.zeroCombo()->currentIndex() == 0);
}
