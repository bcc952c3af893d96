// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "panels/link_editor.hpp"
#include "panels/model_picker.hpp"
#include "document/scenario_document.hpp"
#include "panels/topology_editor.hpp"
#include "panels/training_panel.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QUndoStack>
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

TEST_CASE("the link editor overrides link figures and the communication estimate follows", "[ui][pickers]") {
  test::app();
  ScenarioDocument doc;
  LinkEditor editor(&doc);
  const Analysis before = analyze(doc.scenario());
  CHECK(editor.iciBandwidth()->value() == 0);                              // the chip default
  CHECK(editor.iciBandwidth()->specialValueText().startsWith("chip: 45")); // TPU v4: 45 GB/s per link
  editor.iciBandwidth()->setValue(90);
  REQUIRE(doc.scenario().links.ici_bandwidth);
  CHECK(*doc.scenario().links.ici_bandwidth == 90e9);
  const Analysis after = analyze(doc.scenario());
  REQUIRE(after.comm.size() == before.comm.size());
  // Twice the link bandwidth: the bandwidth term halves, the latency term stays.
  for (std::size_t i = 0; i < after.comm.size(); ++i) {
    REQUIRE(after.stepAxis(i));
    REQUIRE(before.stepAxis(i));
    CHECK(after.stepAxis(i)->seconds < before.stepAxis(i)->seconds);
    CHECK(after.stepAxis(i)->seconds > before.stepAxis(i)->seconds / 2 * 0.999);
  }
  // 4x4x8 is k x k x 2k: the twisted wiring is offered, and the scenario round-trips it.
  REQUIRE(editor.twisted()->isEnabled());
  editor.twisted()->setChecked(true);
  CHECK(doc.scenario().links.twisted);
  CHECK(scenarioFromJson(scenarioToJson(doc.scenario())).links == doc.scenario().links);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  CHECK(doc.scenario().links == LinkOverrides{});
  CHECK(editor.iciBandwidth()->value() == 0);
  // A 4x4x4 cube cannot be twisted.
  doc.edit("cube", [](Scenario& s) {
    s.topology.shape = {4, 4, 4};
    s.mesh.axes = {{"dp", 4, 1}, {"tp", 16, 1}};
  });
  CHECK_FALSE(editor.twisted()->isEnabled());
}
