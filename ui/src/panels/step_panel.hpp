// SPDX-License-Identifier: Apache-2.0
// The Step dock: how long one training step takes on this layout (Analysis::step,
// docs/step-time.md). Three big figures (step time, MFU, tokens/s), the step bar (where the seconds
// go: compute, HBM, optimizer, pipeline bubble, exposed communication per axis), the estimate's
// one-sentence verdict, the figures it used with their sources (chip / default / user), and a
// table of what each mesh axis carries. Hovering an axis' piece of the bar colours the physical
// view by that axis' groups (the rings its collectives run on), as hovering its row of the table
// does, and puts the overlay back after.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include "views/view_selection.hpp"

#include <QWidget>

#include <memory>

class QLabel;
class QPushButton;
class QTableWidget;

namespace shardscope::ui {

class StepBar;

class StepPanel : public QWidget {
  Q_OBJECT
public:
  explicit StepPanel(ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);

  StepBar* bar() const { return bar_; }
  QLabel* timeLabel() const { return time_; }
  QLabel* mfuLabel() const { return mfu_; }
  QLabel* tokensLabel() const { return tokens_; }
  QLabel* summaryLabel() const { return summary_; }
  QLabel* sourcesLabel() const { return sources_; }
  QLabel* checksLabel() const { return checks_; }
  QLabel* reasonLabel() const { return reason_; }
  QTableWidget* axisTable() const { return table_; }
  // Shown when a mesh axis splits neither the batch nor any weight (StepEstimate::idle_axes).
  QPushButton* batchAxesButton() const { return batchAxes_; }

signals:
  // The user asks to add these mesh axes to training.batch_axes (the verdict's fix).
  void batchAxesWanted(const QStringList& axes);

public:
  // The axis whose groups the physical view shows because of a hover, empty when none.
  const QString& highlightedAxis() const { return highlighted_; }

protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

private:
  void onHovered(int index);
  void highlightAxis(const QString& axis);
  void fillChecks(const StepEstimate& step);
  void fillAxisTable(const StepEstimate& step);

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  QWidget* page_;
  QLabel* checks_ = nullptr;
  QLabel* time_;
  QLabel* mfu_;
  QLabel* tokens_;
  StepBar* bar_;
  QLabel* legend_;
  QLabel* summary_;
  QPushButton* batchAxes_;
  QStringList idleAxes_;
  QLabel* sources_;
  QTableWidget* table_;
  QLabel* reason_;
  // What the overlay showed before a hover took it over, put back when the hover ends.
  QString highlighted_;
  OverlayMode savedMode_ = OverlayMode::Coordinate;
  int savedAxis_ = 0;
};

} // namespace shardscope::ui
