// SPDX-License-Identifier: Apache-2.0
// The Workload dock (TrainingPanel) on its own document: what its pickers show and that each edit
// is one undoable step.
#include "document/scenario_document.hpp"
#include "panels/training_panel.hpp"
#include "ui_test_app.hpp"

#include <QComboBox>
#include <QUndoStack>
#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("the Workload dock's gradient dtype: the framework's default named, an edit undoable", "[ui][workload]") {
  test::app();
  ScenarioDocument document;
  TrainingPanel panel(&document);
  QComboBox* grad = panel.gradDtypeCombo();
  REQUIRE(document.scenario().training.framework == Framework::Generic);
  REQUIRE(document.scenario().training.param_dtype == "bfloat16");
  CHECK(grad->currentIndex() == 0);
  CHECK(grad->currentText() == "framework default (bfloat16)");
  // Megatron keeps a bf16 model's gradients in fp32: the default item says so.
  document.edit("framework", [](Scenario& s) { s.training.framework = Framework::Megatron; });
  CHECK(grad->currentText() == "framework default (float32)");
  CHECK(document.scenario().training.grad_dtype.empty());
  // Picking a dtype sets it; undo goes back to the default.
  const int bf16 = grad->findText("bfloat16");
  REQUIRE(bf16 > 0);
  emit grad->activated(bf16);
  CHECK(document.scenario().training.grad_dtype == "bfloat16");
  CHECK(grad->currentText() == "bfloat16");
  document.undoStack()->undo();
  CHECK(document.scenario().training.grad_dtype.empty());
  CHECK(grad->currentIndex() == 0);
  // Serving keeps no gradients: the row is off, as the optimizer's.
  CHECK(grad->isEnabled());
  document.edit("serving", [](Scenario& s) { s.training.workload = Workload::Serving; });
  CHECK_FALSE(grad->isEnabled());
}

TEST_CASE("the Workload dock's precision: the closed set, an edit undoable, shown from the workspace",
          "[ui][workload][precision]") {
  test::app();
  ScenarioDocument document;
  TrainingPanel panel(&document);
  QComboBox* precision = panel.precisionCombo();
  REQUIRE(precision->count() == 4);
  CHECK(precision->itemText(0) == "bf16");
  CHECK(precision->itemText(2) == "fp8");
  CHECK(precision->currentText() == "bf16");
  emit precision->activated(2);
  CHECK(document.scenario().training.precision == Precision::Fp8);
  document.undoStack()->undo();
  CHECK(document.scenario().training.precision == Precision::Bf16);
  document.edit("int8", [](Scenario& s) { s.training.precision = Precision::Int8; });
  CHECK(precision->currentText() == "int8");
}

TEST_CASE("the Workload dock's remat policies say what each keeps and re-runs", "[ui][workload]") {
  test::app();
  ScenarioDocument document;
  TrainingPanel panel(&document);
  QComboBox* recompute = panel.recomputeCombo();
  REQUIRE(recompute->count() == static_cast<int>(kRecomputeNames.size()));
  const int full = recompute->findText("full");
  REQUIRE(full >= 0);
  // The default workspace is a v4 slice under the generic framework: an XLA program, which never
  // re-runs the MLP output projection; Megatron's full recompute (PyTorch) re-runs it.
  CHECK(recompute->itemData(full, Qt::ToolTipRole).toString() ==
        QString::fromStdString(describeRecompute(Recompute::Full, true)));
  CHECK(recompute->itemData(full, Qt::ToolTipRole).toString().contains("the MLP output projection neither"));
  document.edit("framework", [](Scenario& s) { s.training.framework = Framework::Megatron; });
  CHECK(recompute->itemData(full, Qt::ToolTipRole).toString() ==
        QString::fromStdString(describeRecompute(Recompute::Full, false)));
  CHECK(recompute->itemData(full, Qt::ToolTipRole).toString().contains("the MLP output projection, the attention"));
  // The closed box's tooltip follows the workspace's policy.
  document.edit("policy", [](Scenario& s) { s.training.recompute = Recompute::SelectiveOp; });
  CHECK(recompute->currentText() == "selective_op");
  CHECK(recompute->toolTip().contains("selective_op: keeps the layer input, every other weight matmul's output"));
}
