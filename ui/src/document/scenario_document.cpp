// SPDX-License-Identifier: Apache-2.0
#include "document/scenario_document.hpp"

#include "document/atomic_write.hpp"
#include "document/edit_scenario_command.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <QFile>
#include <QFileInfo>

namespace shardscope::ui {

ScenarioDocument::ScenarioDocument(QObject* parent) : QObject(parent), scenario_(defaultScenario()) {
  connect(&undoStack_, &QUndoStack::cleanChanged, this, [this](bool clean) { emit modifiedChanged(!clean); });
}

void ScenarioDocument::edit(const QString& text, const std::function<void(Scenario&)>& change,
                            const QString& mergeKey) {
  Scenario after = scenario_;
  change(after);
  if (after == scenario_) return;
  undoStack_.push(new EditScenarioCommand(this, text, scenario_, std::move(after), mergeKey));
}

QString ScenarioDocument::displayName() const {
  return filePath_.isEmpty() ? tr("Untitled") : QFileInfo(filePath_).fileName();
}

void ScenarioDocument::newDocument() {
  undoStack_.clear();
  scenario_ = defaultScenario();
  filePath_.clear();
  undoStack_.setClean();
  emit filePathChanged(filePath_);
  emit scenarioChanged();
}

bool ScenarioDocument::load(const QString& path, QString* error) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = tr("Cannot open %1: %2").arg(path, file.errorString());
    return false;
  }
  // A workspace is a few kilobytes; refuse anything absurd rather than reading it whole.
  constexpr qint64 kMaxWorkspaceBytes = 256LL * 1024 * 1024;
  if (file.size() > kMaxWorkspaceBytes) {
    if (error) *error = tr("%1 is too large to be a workspace (%2 bytes)").arg(path).arg(file.size());
    return false;
  }
  const QByteArray bytes = file.readAll();
  Scenario loaded;
  try {
    // Depth-bounded, and its errors never echo the file's raw bytes.
    loaded = scenarioFromJson(
        parseJsonText(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "the workspace"));
  } catch (const std::exception& e) {
    if (error) *error = tr("%1 is not a valid workspace: %2").arg(path, QString::fromStdString(e.what()));
    return false;
  }
  undoStack_.clear();
  scenario_ = std::move(loaded);
  filePath_ = path;
  undoStack_.setClean();
  emit filePathChanged(filePath_);
  emit scenarioChanged();
  return true;
}

bool ScenarioDocument::save(const QString& path, QString* error) {
  if (!writeFileAtomically(path, scenarioToJson(scenario_).dump(2) + "\n", error)) return false;
  const bool pathChanged = filePath_ != path;
  filePath_ = path;
  undoStack_.setClean();
  if (pathChanged) emit filePathChanged(filePath_);
  return true;
}

void ScenarioDocument::restore(const Scenario& scenario, const QString& originalPath) {
  if (filePath_ != originalPath) {
    filePath_ = originalPath;
    emit filePathChanged(filePath_);
  }
  undoStack_.push(new EditScenarioCommand(this, tr("Restore autosaved workspace"), scenario_, scenario, QString()));
}

void ScenarioDocument::setScenarioFromCommand(const Scenario& scenario) {
  scenario_ = scenario;
  emit scenarioChanged();
}

} // namespace shardscope::ui
