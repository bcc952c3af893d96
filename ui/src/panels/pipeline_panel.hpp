// SPDX-License-Identifier: Apache-2.0
// The Pipeline dock: the workspace's pipeline (on/off, the MPMD axis, jaxpp's schedule, the stage
// count and the micro-batches M, each change one undoable edit saved with the workspace), a line
// of figures (makespan, bubble, the fullest rank against HBM), and the timeline view with each
// rank's memory over the schedule. Clicking a rank selects its devices in every view.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QWidget>

#include <memory>

class QCheckBox;
class QComboBox;
class QLabel;
class QSpinBox;

namespace shardscope::ui {

class PipelineTimelineView;
class ScenarioDocument;
class ViewSelection;

class PipelinePanel : public QWidget {
  Q_OBJECT
public:
  PipelinePanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);
  // Selects a rank as a click on its row does: its devices in every view, the Pipeline overlay.
  void selectRank(int rank);

  QCheckBox* enabledBox() const { return enabled_; }
  QComboBox* axisCombo() const { return axis_; }
  QComboBox* scheduleCombo() const { return schedule_; }
  QSpinBox* stagesSpin() const { return stages_; }
  QSpinBox* microbatchesSpin() const { return microbatches_; }
  QCheckBox* fuseBox() const { return fuse_; }
  QLabel* summaryLabel() const { return summary_; }
  PipelineTimelineView* timeline() const { return timeline_; }

private:
  void syncFromScenario();
  // The axis a new pipeline runs on: one named like a pipeline axis, else the first axis.
  std::string guessAxis() const;

  ScenarioDocument* document_;
  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  QCheckBox* enabled_;
  QComboBox* axis_;
  QComboBox* schedule_;
  QSpinBox* stages_;
  QSpinBox* microbatches_;
  QCheckBox* fuse_;
  QLabel* summary_;
  PipelineTimelineView* timeline_;
};

} // namespace shardscope::ui
