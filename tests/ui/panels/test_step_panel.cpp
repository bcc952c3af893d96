// SPDX-License-Identifier: Apache-2.0
// The Step dock offscreen: it shows the analysis' step time, MFU and tokens/s with the sources of
// the figures behind them; its bar's pieces sum to the step (with and without a pipeline, whose
// bubble is makespan x bubble_overall); a calibration knob in the Workload dock is one undoable
// edit that moves the estimate (half the FLOPs fraction, twice the compute time); hovering an
// axis' piece colours the physical view by that axis' groups and leaving puts the overlay back.
#include "ui_test_app.hpp"

#include <cmath>

#include "charts/memory_chart.hpp"
#include "charts/step_bar.hpp"
#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/step_panel.hpp"
#include "panels/training_panel.hpp"
#include "views/color_scales.hpp"
#include "views/physical_view.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/units.hpp"
#include "shardscope/base/resources.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/hardware/chips.hpp"

#include <QCheckBox>
#include <QTemporaryDir>
#include <QDockWidget>
#include <QDoubleSpinBox>
#include <QLabel>
#include <QMouseEvent>
#include <QSpinBox>
#include <QTableWidget>
#include <QPushButton>
#include <QUndoStack>

#include <catch2/catch.hpp>

#include <fstream>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
QString scenarioFile(const char* name) {
  return QString::fromStdString(resourcePath("scenarios").append(name).string());
}

double sumOf(const std::vector<StepBarSegment>& segments) {
  double sum = 0;
  for (const auto& s : segments) sum += s.seconds;
  return sum;
}

const StepBarSegment* find(const std::vector<StepBarSegment>& segments, StepBarSegment::Kind kind,
                           const QString& axis = {}) {
  for (const auto& s : segments)
    if (s.kind == kind && s.axis == axis) return &s;
  return nullptr;
}
} // namespace

TEST_CASE("the Step dock shows the step time, MFU and where the seconds go", "[ui][step]") {
  test::app();
  MainWindow window;
  window.resize(1600, 1000);
  QString error;
  REQUIRE(window.openFile(scenarioFile("llama-3.1-70b-v5p-512.shardscope.json"), &error));
  REQUIRE(window.waitForAnalysis());
  REQUIRE(window.findChild<QDockWidget*>("StepDock"));
  StepPanel* panel = window.stepPanel();
  const auto analysis = window.physicalView()->analysis();
  REQUIRE(analysis);
  const StepEstimate& step = analysis->step;
  REQUIRE(step.estimated);
  // Llama 3.1 70B, fsdp 64 x tp 8 on v5p-512 (shardscope-cli step on the same file): 2.22 s,
  // 45.2% MFU, 236268 tokens/s, 524288 tokens per step.
  CHECK(step.time_s == Approx(2.22).epsilon(0.01));
  CHECK(panel->timeLabel()->text().contains(">2.22 s<"));
  CHECK(panel->mfuLabel()->text().contains(">45.2%<"));
  // Its tooltip: what each chip executes and what of it the remat policy re-runs (selective here:
  // the attention core), and the utilisation on those FLOPs.
  const QString mfuTip = panel->mfuLabel()->toolTip();
  CHECK(mfuTip.contains(QString::fromStdString(shardscope::formatPercent(step.recompute_flops / step.hardware_flops) +
                                               " of it re-run by the remat policy")));
  CHECK(step.recompute_flops > 0);
  CHECK(mfuTip.contains(
      QString::fromStdString(shardscope::formatPercent(step.mfu * step.hardware_flops / step.model_flops) +
                             " of peak on the FLOPs executed")));
  CHECK(panel->tokensLabel()->text().contains(">236 k<"));
  CHECK(panel->tokensLabel()->text().contains("524 k per step"));
  CHECK(QString::fromStdString(step.summary).startsWith("2.22 s per step, 45.2% MFU, bound by compute"));
  CHECK(panel->summaryLabel()->text().startsWith("Bound by compute; the tp tensor-parallel activation"));
  CHECK(panel->summaryLabel()->text().contains("overlap_tensor_comm"));
  // Every figure with its source: v5p's published peak and HBM, Shardscope's default fractions.
  const QString sources = panel->sourcesLabel()->text();
  const double v5pFlops = defaultCalibration(*findChip("v5p")).flops_fraction.value;
  CHECK(sources.contains(QString("peak 459 TFLOP/s (chip) × %1 (default)").arg(v5pFlops)));
  CHECK(sources.contains("HBM 2.77 TB/s (chip) × 0.9 (default)"));
  CHECK(sources.contains("links 90 GB/s (chip) × 0.8 (default)"));
  CHECK(sources.contains("hop 1 µs (chip)"));
  // The scaling book's checks, one per axis: fsdp as a batch axis, tp as a tensor axis, the latter
  // saying its collectives are exposed here (no overlap_tensor_comm).
  const QString checks = panel->checksLabel()->text();
  REQUIRE(step.critical.size() == 2);
  for (const StepCritical& k : step.critical) {
    INFO(k.axis);
    CHECK(checks.contains(QString("<b>%1</b> (%2, %3)")
                              .arg(QString::fromStdString(k.axis))
                              .arg(k.role == StepCritical::Role::Batch ? "batch" : "tensor")
                              .arg(k.size)));
  }
  CHECK(checks.contains("<b>fsdp</b> (batch, 64)"));
  CHECK(checks.contains("<b>tp</b> (tensor, 8)"));
  CHECK(checks.contains("its collectives sit on the critical path here, exposed whole"));

  // The bar: compute, HBM, optimizer, then the exposed communication of fsdp and tp; the pieces
  // are the estimate's own figures and sum to the step.
  const auto& segments = panel->bar()->segments();
  REQUIRE(segments.size() == 5);
  CHECK(sumOf(segments) == Approx(step.time_s).epsilon(1e-9));
  CHECK(step.time_s == Approx(step.compute_s + step.hbm_s + step.exposed_comm_s).epsilon(1e-9));
  CHECK(find(segments, StepBarSegment::Kind::Compute)->seconds == step.compute_s);
  CHECK(find(segments, StepBarSegment::Kind::Optimizer)->seconds == step.optimizer_s);
  CHECK(find(segments, StepBarSegment::Kind::Hbm)->seconds == Approx(step.hbm_s - step.optimizer_s));
  REQUIRE(find(segments, StepBarSegment::Kind::Comm, "tp"));
  CHECK(find(segments, StepBarSegment::Kind::Comm, "tp")->seconds == Approx(0.600).epsilon(0.01));
  CHECK(find(segments, StepBarSegment::Kind::Comm, "tp")->tooltip.contains("tp_activations"));
  CHECK_FALSE(find(segments, StepBarSegment::Kind::Bubble));
  // The per-axis table: fsdp 64 carries 48.5 GiB per device per step, tp 8 70.4 GiB, all exposed.
  QTableWidget* table = panel->axisTable();
  REQUIRE(table->rowCount() == 2);
  CHECK(table->item(0, 0)->text() == "fsdp");
  CHECK(table->item(0, 2)->text() == "48.5 GiB");
  CHECK(table->item(1, 0)->text() == "tp");
  CHECK(table->item(1, 2)->text() == "70.4 GiB");
  CHECK(table->item(1, 5)->text() == table->item(1, 3)->text());

  // Serving has no step estimate: the dock says why instead of the bar.
  window.document()->edit("serve", [](Scenario& s) { s.training.workload = Workload::Serving; });
  REQUIRE(window.waitForAnalysis());
  REQUIRE_FALSE(window.physicalView()->analysis()->step.estimated);
  CHECK(panel->bar()->segments().empty());
  CHECK(panel->reasonLabel()->isVisibleTo(panel));
  CHECK_FALSE(panel->timeLabel()->isVisibleTo(panel));
  CHECK(panel->reasonLabel()->text().contains("serving is not modelled yet"));
}

TEST_CASE("under a pipeline the Step bar shows the bubble and still sums to the step", "[ui][step][pipeline]") {
  test::app();
  MainWindow window;
  QString error;
  REQUIRE(window.openFile(scenarioFile("llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json"), &error));
  REQUIRE(window.waitForAnalysis());
  const auto analysis = window.physicalView()->analysis();
  REQUIRE(analysis);
  REQUIRE(analysis->pipeline);
  const PipelineAnalysis& p = *analysis->pipeline;
  REQUIRE(p.time_unit == PipelineTimeUnit::Seconds);
  const StepEstimate& step = analysis->step;
  const auto& segments = window.stepPanel()->bar()->segments();
  // The step is the makespan plus the optimizer update and the exposed communication.
  double handovers = 0;
  for (const auto& t : p.transfers) handovers += 2 * t.seconds;
  CHECK(handovers > 0); // three boundaries over the network between hosts
  CHECK(step.time_s == Approx(p.makespan + step.optimizer_s + handovers).epsilon(1e-9));
  REQUIRE(find(segments, StepBarSegment::Kind::Handover));
  CHECK(find(segments, StepBarSegment::Kind::Handover)->seconds == Approx(handovers));
  CHECK(sumOf(segments) == Approx(step.time_s).epsilon(1e-9));
  const StepBarSegment* bubble = find(segments, StepBarSegment::Kind::Bubble);
  REQUIRE(bubble);
  CHECK(bubble->seconds == Approx(p.makespan * p.bubble_overall));
  // Std1F1B, 4 stages, 8 micro-batches: the textbook 3/11 for equal stages, more here because the
  // last stage also runs the output projection and the loss.
  CHECK(p.bubble_overall > 3.0 / 11);
  CHECK(bubble->label == "pipeline bubble");
  // The work inside the schedule (compute, HBM and exposed communication, optimizer aside) is the
  // ranks' mean busy time.
  CHECK(step.compute_s + step.hbm_s - step.optimizer_s + step.exposed_comm_s ==
        Approx(p.makespan * (1 - p.bubble_overall)));
  CHECK(window.stepPanel()->timeLabel()->text().contains(QString::number(step.time_s, 'g', 3) + " s<"));
  CHECK(window.stepPanel()->summaryLabel()->text().startsWith("The Std1F1B pipeline (4 stages on 4 ranks, 8 "
                                                              "micro-batches)"));
  CHECK(window.stepPanel()->summaryLabel()->text().contains("inside each stage the work is bound by compute"));
  // The bubble as the one formatter writes a percentage (base/units.hpp).
  CHECK(window.stepPanel()->summaryLabel()->text().contains(
      QString::fromStdString("idles " + shardscope::formatPercent(p.bubble_overall) + " of its")));
}

TEST_CASE("a calibration knob is one undoable edit and moves the step estimate", "[ui][step]") {
  test::app();
  MainWindow window;
  QString error;
  REQUIRE(window.openFile(scenarioFile("llama-3.1-70b-v5p-512.shardscope.json"), &error));
  REQUIRE(window.waitForAnalysis());
  const auto before = window.physicalView()->analysis();
  REQUIRE(before->step.estimated);
  auto* training = window.findChild<TrainingPanel*>();
  REQUIRE(training);
  QDoubleSpinBox* flops = training->flopsFractionSpin();
  // Unset: shows v5p's default, labelled as such.
  const double v5pFlops = defaultCalibration(*findChip("v5p")).flops_fraction.value;
  const QString v5pDefault = QString("%1 (default)").arg(QString::number(v5pFlops, 'g', 3));
  CHECK(flops->value() == 0);
  CHECK(flops->text() == v5pDefault);
  CHECK(training->hopLatencySpin()->text() == "1 µs (chip)");
  CHECK(training->microbatchesSpin()->value() == 1);

  QUndoStack* undo = window.document()->undoStack();
  const int steps = undo->count();
  flops->setValue(v5pFlops / 2); // half of v5p's default
  CHECK(undo->count() == steps + 1);
  REQUIRE(window.document()->scenario().performance.flops_fraction);
  CHECK(*window.document()->scenario().performance.flops_fraction == Approx(v5pFlops / 2));
  CHECK(flops->text() == QString("%1 (user)").arg(v5pFlops / 2, 0, 'f', 3));
  REQUIRE(window.waitForAnalysis());
  const auto after = window.physicalView()->analysis();
  REQUIRE(after->step.estimated);
  // Compute time is FLOPs over peak x flops_fraction: half the fraction, twice the time.
  CHECK(after->step.compute_s == Approx(2 * before->step.compute_s).epsilon(1e-9));
  CHECK(after->step.calibration.flops_fraction.source == FigureSource::User);
  CHECK(window.stepPanel()->sourcesLabel()->text().contains(QString("%1 <b>(user)</b>").arg(v5pFlops / 2)));
  CHECK(window.stepPanel()->bar()->segments().front().seconds == after->step.compute_s);
  // v5p has no published benchmark of its attention kernel: attention follows the FLOPs fraction,
  // the user's too, and says so; set on its own, only the attention core slows.
  QDoubleSpinBox* attention = training->attentionFractionSpin();
  CHECK(attention->value() == 0);
  CHECK(attention->text() == QString("%1 (default)").arg(QString::number(v5pFlops / 2, 'g', 3)));
  CHECK(after->step.calibration.attention_fraction.value == Approx(v5pFlops / 2));
  attention->setValue(v5pFlops / 4);
  REQUIRE(window.document()->scenario().performance.attention_fraction);
  CHECK(*window.document()->scenario().performance.attention_fraction ==
        Approx(v5pFlops / 4).margin(0.001)); // 3 decimals
  REQUIRE(window.waitForAnalysis());
  const auto slowAttention = window.physicalView()->analysis();
  CHECK(slowAttention->step.calibration.attention_fraction.source == FigureSource::User);
  CHECK(slowAttention->step.compute_s > after->step.compute_s);
  CHECK(slowAttention->step.compute_s < 2 * after->step.compute_s);
  undo->undo();
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(window.document()->scenario().performance.attention_fraction);

  // The hop latency in microseconds; sequence parallelism and micro-batches are the workload's.
  training->hopLatencySpin()->setValue(2);
  REQUIRE(window.document()->scenario().performance.hop_latency);
  CHECK(*window.document()->scenario().performance.hop_latency == Approx(2e-6));
  training->overlapTensorBox()->setChecked(true);
  CHECK(window.document()->scenario().performance.overlap_tensor_comm);
  training->sequenceParallelBox()->setChecked(true);
  CHECK(window.document()->scenario().training.sequence_parallel);
  training->microbatchesSpin()->setValue(4);
  CHECK(window.document()->scenario().training.microbatches == 4);
  CHECK(undo->count() == steps + 5);
  REQUIRE(window.waitForAnalysis());
  // Tensor-parallel activations now hide behind compute: tp exposes nothing; four micro-batches
  // are four times the work.
  const auto tuned = window.physicalView()->analysis();
  CHECK(tuned->step.tokens_per_step == 4 * before->step.tokens_per_step);
  CHECK(tuned->step.compute_s == Approx(4 * after->step.compute_s).epsilon(1e-9));
  for (const auto& a : tuned->step.per_axis)
    if (a.axis == "tp") CHECK(a.exposed < 0.01 * a.seconds);

  // Undo all five: the fraction is unset again and shows the default.
  for (int i = 0; i < 5; ++i) undo->undo();
  CHECK(window.document()->scenario().performance == PerformanceOptions{});
  CHECK(window.document()->scenario().training.microbatches == 1);
  CHECK(flops->text() == v5pDefault);
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis()->step.compute_s == Approx(before->step.compute_s).epsilon(1e-12));
}

TEST_CASE("hovering an axis in the Step bar colours the physical view by its groups", "[ui][step]") {
  test::app();
  MainWindow window;
  window.resize(1600, 1000);
  QString error;
  REQUIRE(window.openFile(scenarioFile("llama-3.1-70b-v5p-512.shardscope.json"), &error));
  REQUIRE(window.waitForAnalysis());
  ViewSelection* selection = window.selection();
  selection->setMode(OverlayMode::Process);
  selection->setAxis(0); // fsdp
  StepPanel* panel = window.stepPanel();
  StepBar* bar = panel->bar();
  bar->resize(800, 40);
  int tp = -1;
  for (int i = 0; i < static_cast<int>(bar->segments().size()); ++i)
    if (bar->segments()[static_cast<std::size_t>(i)].axis == "tp") tp = i;
  REQUIRE(tp >= 0);
  const QRectF r = bar->segmentRect(tp);
  REQUIRE(r.width() > 50); // 28% of the bar
  CHECK(bar->segmentAt(r.center()) == tp);

  // The mouse over tp's piece: the overlay becomes tp's groups, each of the 64 rings of 8 chips
  // its own colour.
  QMouseEvent move(QEvent::MouseMove, r.center(), bar->mapToGlobal(r.center()), Qt::NoButton, Qt::NoButton,
                   Qt::NoModifier);
  QCoreApplication::sendEvent(bar, &move);
  CHECK(bar->hovered() == tp);
  CHECK(panel->highlightedAxis() == "tp");
  CHECK(selection->mode() == OverlayMode::Group);
  CHECK(selection->axis() == 1);
  const DeviceOverlay& overlay = window.physicalView()->overlay();
  CHECK(overlay.legend.title.contains("64 groups along 'tp'"));
  // The devices of one tp group (mesh row 0: the 8 tp coordinates at fsdp 0) share a colour.
  const auto& grid = window.physicalView()->analysis()->mesh.grid.data();
  const QColor first = overlay.colors[static_cast<std::size_t>(grid[0])];
  for (int t = 1; t < 8; ++t)
    CHECK(overlay.colors[static_cast<std::size_t>(grid[static_cast<std::size_t>(t)])] == first);
  CHECK(overlay.colors[static_cast<std::size_t>(grid[8])] != first);

  // The compute piece is no axis: the overlay comes back; leaving the bar keeps it.
  const QPointF compute = bar->segmentRect(0).center();
  QMouseEvent back(QEvent::MouseMove, compute, bar->mapToGlobal(compute), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
  QCoreApplication::sendEvent(bar, &back);
  CHECK(panel->highlightedAxis().isEmpty());
  CHECK(selection->mode() == OverlayMode::Process);
  CHECK(selection->axis() == 0);
  bar->setHovered(tp);
  CHECK(selection->axis() == 1);
  QEvent leave(QEvent::Leave);
  QCoreApplication::sendEvent(bar, &leave);
  CHECK(bar->hovered() == -1);
  CHECK(selection->mode() == OverlayMode::Process);
  CHECK(selection->axis() == 0);

  // A row of the per-axis table does the same: tp's row, then leaving the table.
  emit panel->axisTable()->cellEntered(1, 3);
  CHECK(panel->highlightedAxis() == "tp");
  CHECK(selection->mode() == OverlayMode::Group);
  CHECK(selection->axis() == 1);
  emit panel->axisTable()->cellEntered(0, 0);
  CHECK(selection->axis() == 0); // fsdp's groups
  CHECK(selection->mode() == OverlayMode::Group);
  QEvent leaveTable(QEvent::Leave);
  QCoreApplication::sendEvent(panel->axisTable()->viewport(), &leaveTable);
  CHECK(panel->highlightedAxis().isEmpty());
  CHECK(selection->mode() == OverlayMode::Process);
  CHECK(selection->axis() == 0);
}

TEST_CASE("on a two-device chip the Step dock gives the device's share of the chip's figures", "[ui][step]") {
  // TPU7x: 2307 TFLOP/s and 7370 GB/s of HBM per chip, two TensorCores, each a JAX device with
  // half: 1.15 PFLOP/s and 3.69 TB/s.
  test::app();
  Scenario s = loadScenarioFile(scenarioFile("llama-3.1-70b-v5p-512.shardscope.json").toStdString());
  s.topology = parseTopology("7x:4x4x4");
  s.mesh.axes = {{"fsdp", 16, 1}, {"tp", 8, 1}};
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const QString path = dir.filePath("7x.shardscope.json");
  {
    std::ofstream out(path.toStdString());
    out << scenarioToJson(s).dump(2);
  }
  MainWindow window;
  window.resize(1600, 1000);
  QString error;
  REQUIRE(window.openFile(path, &error));
  REQUIRE(window.waitForAnalysis());
  const auto analysis = window.physicalView()->analysis();
  REQUIRE(analysis);
  REQUIRE(analysis->step.estimated);
  CHECK(analysis->step.devices_per_chip == 2);
  const QString sources = window.stepPanel()->sourcesLabel()->text();
  INFO(sources.toStdString());
  CHECK(sources.contains("peak 1.15 PFLOP/s (chip / 2 devices)"));
  CHECK(sources.contains("HBM 3.69 TB/s (chip / 2 devices)"));
}

TEST_CASE("an axis that splits neither the batch nor any weight: the Step dock offers the fix", "[ui][step]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  StepPanel* panel = window.stepPanel();
  CHECK(panel->batchAxesButton()->isHidden()); // the default workspace splits the batch over dp and fsdp
  // The batch over fsdp alone: dp (2) neither splits the batch nor shards a weight under fsdp-tp.
  window.document()->edit("batch over fsdp", [](Scenario& s) { s.training.batch_axes = {"fsdp"}; });
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE_FALSE(panel->batchAxesButton()->isHidden());
  CHECK(panel->batchAxesButton()->text() == "Add dp to the batch axes");
  const double repeated = window.runner()->lastValid()->step.time_s;
  const int edits = window.document()->undoStack()->count();
  panel->batchAxesButton()->click();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->undoStack()->count() == edits + 1);
  CHECK(window.document()->scenario().training.batch_axes == std::vector<std::string>{"fsdp", "dp"});
  CHECK(panel->batchAxesButton()->isHidden());
  CHECK(window.runner()->lastValid()->step.idle_axes.empty());
  // Each dp replica now trains half the batch: the step is shorter.
  CHECK(window.runner()->lastValid()->step.time_s < repeated);
  // Undo puts the batch back on fsdp alone, and the offer with it.
  window.document()->undoStack()->undo();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->scenario().training.batch_axes == std::vector<std::string>{"fsdp"});
  CHECK_FALSE(panel->batchAxesButton()->isHidden());
}

TEST_CASE("the Memory dock names why idle axes inflate its figures and offers the same fix", "[ui][step][memory]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  MemoryChart* memory = window.memoryChart();
  CHECK(memory->reasonLabel()->isHidden());
  const double split = window.runner()->lastValid()->memory.max_bytes;
  // The batch over fsdp alone: each dp (2) replica holds the activations of the whole batch.
  window.document()->edit("batch over fsdp", [](Scenario& s) { s.training.batch_axes = {"fsdp"}; });
  REQUIRE(window.waitForAnalysis(60000));
  const double repeated = window.runner()->lastValid()->memory.max_bytes;
  CHECK(repeated > split);
  REQUIRE_FALSE(memory->reasonLabel()->isHidden());
  CHECK(memory->reasonLabel()->text().contains("dp (2) split neither the batch nor any weight"));
  REQUIRE_FALSE(memory->batchAxesButton()->isHidden());
  CHECK(memory->batchAxesButton()->text() == "Add dp to the batch axes");
  const int edits = window.document()->undoStack()->count();
  memory->batchAxesButton()->click();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->undoStack()->count() == edits + 1);
  CHECK(window.document()->scenario().training.batch_axes == std::vector<std::string>{"fsdp", "dp"});
  CHECK(memory->reasonLabel()->isHidden());
  CHECK(memory->batchAxesButton()->isHidden());
  CHECK(window.runner()->lastValid()->memory.max_bytes == Approx(split));
}

TEST_CASE("under a pipeline the Step table's pipeline axis shows its hand-overs, not 0 B and 0 s", "[ui][step]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.openFile(
      QString::fromStdString(resourcePath("scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json").string())));
  REQUIRE(window.waitForAnalysis(60000));
  const auto analysis = window.runner()->lastValid();
  REQUIRE(analysis->pipeline);
  double handover = 0;
  for (const auto& seg : analysis->step.segments)
    if (seg.kind == StepPart::Handover) handover += seg.seconds;
  REQUIRE(handover > 0);
  QTableWidget* table = window.stepPanel()->axisTable();
  int row = -1;
  for (int r = 0; r < table->rowCount(); ++r)
    if (table->item(r, 0)->text() == "pp") row = r;
  REQUIRE(row >= 0);
  CHECK(table->item(row, 2)->text() == "—");
  CHECK(table->item(row, 5)->text() == QString::fromStdString(shardscope::formatSeconds(handover)));
  CHECK(table->item(row, 0)->toolTip().contains("point to point"));
}
