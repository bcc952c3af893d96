// SPDX-License-Identifier: Apache-2.0
// One user edit of the scenario, as an undoable step. It stores whole before/after values: a
// Scenario is small, and whole values make undo exact whatever part was edited.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QString>
#include <QUndoCommand>

namespace shardscope::ui {

class ScenarioDocument;

class EditScenarioCommand : public QUndoCommand {
public:
  // `mergeKey` names the edited value ("mesh.axes.1.ici"); consecutive edits with the same
  // non-empty key merge into one step, so typing 1, 16 is one undo.
  EditScenarioCommand(ScenarioDocument* document, const QString& text, Scenario before, Scenario after,
                      QString mergeKey = {});

  void undo() override;
  void redo() override;
  int id() const override;
  bool mergeWith(const QUndoCommand* other) override;

  const QString& mergeKey() const { return mergeKey_; }

private:
  ScenarioDocument* document_;
  Scenario before_;
  Scenario after_;
  QString mergeKey_;
};

} // namespace shardscope::ui
