// SPDX-License-Identifier: Apache-2.0
#include "document/edit_scenario_command.hpp"

#include "document/scenario_document.hpp"

namespace shardscope::ui {

namespace {
constexpr int kMergeableId = 0x5c3e; // any fixed id: the merge key tells edits apart
}

EditScenarioCommand::EditScenarioCommand(ScenarioDocument* document, const QString& text, Scenario before,
                                         Scenario after, QString mergeKey)
    : QUndoCommand(text), document_(document), before_(std::move(before)), after_(std::move(after)),
      mergeKey_(std::move(mergeKey)) {}

void EditScenarioCommand::undo() { document_->setScenarioFromCommand(before_); }
void EditScenarioCommand::redo() { document_->setScenarioFromCommand(after_); }

int EditScenarioCommand::id() const { return mergeKey_.isEmpty() ? -1 : kMergeableId; }

bool EditScenarioCommand::mergeWith(const QUndoCommand* other) {
  const auto* next = dynamic_cast<const EditScenarioCommand*>(other);
  if (!next || next->mergeKey_ != mergeKey_ || mergeKey_.isEmpty()) return false;
  after_ = next->after_;
  // Typing a value back to where it started leaves nothing to undo.
  setObsolete(after_ == before_);
  return true;
}

} // namespace shardscope::ui
