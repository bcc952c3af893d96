// SPDX-License-Identifier: Apache-2.0
// The Pipeline dock offscreen: a workspace with a pipeline opens it and colours the devices by
// rank; the schedule and M pickers are one undoable edit each and are saved in the workspace; the
// timeline has a row per rank, says what a task waits for, and a click on a rank selects its
// devices; the logical mesh marks the pipeline axis.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "models/logical_axes_model.hpp"
#include "panels/logical_mesh_panel.hpp"
#include "panels/pipeline_panel.hpp"
#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"
#include "views/physical_view.hpp"
#include "views/pipeline_timeline_view.hpp"

#include "shardscope/base/units.hpp"
#include "views/view_selection.hpp"

#include "shardscope/base/json_text.hpp"
#include "shardscope/base/resources.hpp"

#include <QCheckBox>
#include <QComboBox>
#include <QDockWidget>
#include <QFile>
#include <QLabel>
#include <QSpinBox>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
QString example() {
  return QString::fromStdString(
      resourcePath("scenarios").append("llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json").string());
}
} // namespace

TEST_CASE("a workspace with a pipeline opens the Pipeline dock with its timeline", "[ui][pipeline]") {
  test::app();
  MainWindow window;
  window.resize(1600, 1000);
  REQUIRE(window.waitForAnalysis());
  auto* dock = window.findChild<QDockWidget*>("PipelineDock");
  REQUIRE(dock);
  CHECK(dock->isHidden()); // the default scenario has no pipeline
  QString error;
  REQUIRE(window.openFile(example(), &error));
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(dock->isHidden());
  CHECK(window.selection()->mode() == OverlayMode::Pipeline);

  PipelinePanel* panel = window.pipelinePanel();
  CHECK(panel->enabledBox()->isChecked());
  CHECK(panel->axisCombo()->currentText() == "pp");
  CHECK(panel->scheduleCombo()->currentText() == "Std1F1B");
  CHECK(panel->microbatchesSpin()->value() == 8);
  CHECK(panel->stagesSpin()->specialValueText() == "auto (4)");
  CHECK(panel->summaryLabel()->text().contains(" s (from the step estimate)"));
  {
    const auto analysis = window.physicalView()->analysis();
    REQUIRE(analysis);
    REQUIRE(analysis->pipeline);
    CHECK(panel->summaryLabel()->text().contains(
        QString("bubble %1%").arg(100 * analysis->pipeline->bubble_overall, 0, 'f', 1)));
  }
  CHECK(panel->summaryLabel()->text().contains("fullest: <b>rank 0</b>"));

  // The physical view colours each device by its rank, as the timeline colours the rows.
  const auto analysis = window.physicalView()->analysis();
  REQUIRE(analysis);
  REQUIRE(analysis->pipeline);
  for (const auto& rank : analysis->pipeline->ranks)
    for (int pos : rank.device_positions)
      CHECK(window.physicalView()->overlay().colors[static_cast<std::size_t>(pos)] == categoricalColor(rank.rank));
  CHECK(window.physicalView()
            ->describeDevice(analysis->pipeline->ranks[2].device_positions.front())
            .contains("pipeline rank 2 (stages 2, 20 layers)"));

  // The logical mesh marks the pipeline axis.
  LogicalAxesModel* axes = window.logicalPanel()->model();
  CHECK(axes->data(axes->index(0, LogicalAxesModel::Name)).toString().contains("pipeline"));
  CHECK_FALSE(axes->data(axes->index(1, LogicalAxesModel::Name)).toString().contains("pipeline"));
  CHECK(axes->data(axes->index(0, LogicalAxesModel::Name), Qt::EditRole).toString() == "pp");

  // The timeline: one row per rank; rank 1's first task (F of micro-batch 0 on stage 1) waits
  // for stage 0's forward on rank 0, which ends at 1 unit (an even split), so it runs 1 - 2 units
  // (in seconds from the step estimate).
  PipelineTimelineView* view = panel->timeline();
  view->resize(1400, 420);
  REQUIRE(view->hasTimeline());
  const auto& tl = analysis->pipeline->timeline;
  int first1 = -1;
  for (std::size_t i = 0; i < tl.events.size() && first1 < 0; ++i)
    if (tl.events[i].rank == 1) first1 = static_cast<int>(i);
  REQUIRE(first1 >= 0);
  const QRectF box = view->eventRect(first1);
  CHECK(box.width() > 10);
  CHECK(view->eventAt(box.center()) == first1);
  const QString tip = view->describeEvent(first1);
  CHECK(tip.contains("<b>rank 1</b> · forward of micro-batch 0, stage 1"));
  const auto& ev1 = tl.events[static_cast<std::size_t>(first1)];
  CHECK(ev1.end == Approx(2 * ev1.start));
  CHECK(tip.contains(" ms – "));
  CHECK_FALSE(tip.contains("task units"));
  CHECK(tip.contains("waits for <b>F0 (stage 0)</b> on rank 0 (done at "));
  REQUIRE(view->waitedFor(first1).size() == 1);
  CHECK(tl.events[static_cast<std::size_t>(view->waitedFor(first1).front())].rank == 0);
  // Rank 0's first backward waits for the backward of stage 1 coming back.
  int firstB0 = -1;
  for (std::size_t i = 0; i < tl.events.size() && firstB0 < 0; ++i)
    if (tl.events[i].rank == 0 && tl.members(tl.events[i]).front().type == TaskType::Bwd) firstB0 = static_cast<int>(i);
  REQUIRE(firstB0 >= 0);
  CHECK(view->describeEvent(firstB0).contains("waits for <b>B0 (stage 1)</b> on rank 1 (done at "));
  CHECK(view->describeEvent(firstB0).contains("idle before it") == false);

  // The last stage's rank holds the loss's gradient for a moment in the backward, above the curve.
  const auto& lastRank = analysis->pipeline->ranks.back();
  REQUIRE(lastRank.holds_head);
  REQUIRE(lastRank.transient_bytes > 0);
  const QString rankTip = view->describeRank(lastRank.rank);
  CHECK(rankTip.contains(QString("of which %1 for a moment in the backward")
                             .arg(QString::fromStdString(shardscope::formatBytes(lastRank.transient_bytes)))));
  CHECK(view->describeRank(99).isEmpty());

  // A click on rank 2's label selects its eight devices everywhere.
  QTest::mouseClick(view, Qt::LeftButton, Qt::NoModifier, view->rankLabelRect(2).center().toPoint());
  CHECK(view->selectedRank() == 2);
  const auto& devices = analysis->pipeline->ranks[2].device_positions;
  CHECK(window.selection()->devices() == devices);
  CHECK(window.selection()->device() == devices.front());
  // A click on one device in the physical view ends the rank's selection.
  window.selection()->setDevice(0);
  CHECK(window.selection()->devices().empty());
  CHECK(view->selectedRank() == -1);
}

TEST_CASE("the pipeline pickers are undoable edits saved in the workspace", "[ui][pipeline]") {
  test::app();
  MainWindow window;
  REQUIRE(window.waitForAnalysis());
  QString error;
  REQUIRE(window.openFile(example(), &error));
  REQUIRE(window.waitForAnalysis());
  ScenarioDocument* doc = window.document();
  QUndoStack* undo = doc->undoStack();
  PipelinePanel* panel = window.pipelinePanel();
  const int base = undo->count();

  // Schedule: one edit.
  const int dual = panel->scheduleCombo()->findText("DualPipeV");
  REQUIRE(dual >= 0);
  emit panel->scheduleCombo()->activated(dual);
  CHECK(doc->scenario().pipeline->schedule == PipelineScheduleKind::DualPipeV);
  CHECK(undo->count() == base + 1);
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis()->pipeline->num_stages == 8);
  CHECK(panel->stagesSpin()->specialValueText() == "auto (8)");

  // M: one edit per value.
  panel->microbatchesSpin()->setValue(16);
  CHECK(*doc->scenario().pipeline->microbatches == 16);
  CHECK(undo->count() == base + 2);
  REQUIRE(window.waitForAnalysis());
  CHECK(window.physicalView()->analysis()->pipeline->microbatches == 16);

  // Saved with the workspace.
  QTemporaryDir dir;
  const QString path = dir.filePath("pipe.shardscope.json");
  REQUIRE(window.saveFile(path, &error));
  QFile file(path);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const Json saved = parseJsonText(file.readAll().toStdString(), "test");
  CHECK(saved["pipeline"]["schedule"] == "DualPipeV");
  CHECK(saved["pipeline"]["microbatches"] == 16);

  // Undo walks back one picker at a time.
  undo->undo();
  CHECK(*doc->scenario().pipeline->microbatches == 8);
  CHECK(panel->microbatchesSpin()->value() == 8);
  undo->undo();
  CHECK(doc->scenario().pipeline->schedule == PipelineScheduleKind::Std1F1B);
  CHECK(panel->scheduleCombo()->currentText() == "Std1F1B");

  // Off and on again: each one step.
  panel->enabledBox()->setChecked(false);
  CHECK_FALSE(doc->scenario().pipeline);
  REQUIRE(window.waitForAnalysis());
  CHECK_FALSE(window.physicalView()->analysis()->pipeline);
  CHECK_FALSE(panel->timeline()->hasTimeline());
  undo->undo();
  REQUIRE(doc->scenario().pipeline);
  CHECK(doc->scenario().pipeline->axis == "pp");

  // A stage count the schedule cannot take: the dock says why, the rest of the analysis stays.
  panel->stagesSpin()->setValue(3);
  REQUIRE(window.waitForAnalysis());
  const auto a = window.physicalView()->analysis();
  CHECK(a->pipeline->error.find("pipeline.num_stages is 3") == 0);
  CHECK(panel->summaryLabel()->text().contains("pipeline.num_stages is 3"));
  CHECK_FALSE(panel->timeline()->hasTimeline());
  CHECK(a->memory.max_bytes > 0);
}
