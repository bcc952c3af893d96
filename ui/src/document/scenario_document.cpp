// SPDX-License-Identifier: Apache-2.0
#include "document/scenario_document.hpp"

#include "shardscope/interop/maxtext_import.hpp"

#include "document/atomic_write.hpp"
#include "document/edit_scenario_command.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <QFile>
#include <QFileInfo>

#include <filesystem>

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
  if (!filePath_.isEmpty()) return QFileInfo(filePath_).fileName();
  return copyOf_.isEmpty() ? tr("Untitled") : tr("%1 (copy)").arg(copyOf_);
}

void ScenarioDocument::detachFromFile() {
  if (filePath_.isEmpty()) return;
  copyOf_ = QFileInfo(filePath_).fileName();
  filePath_.clear();
  emit filePathChanged(filePath_);
}

void ScenarioDocument::newDocument() {
  undoStack_.clear();
  scenario_ = defaultScenario();
  filePath_.clear();
  copyOf_.clear();
  undoStack_.setClean();
  emit filePathChanged(filePath_);
  emit replaced();
  emit scenarioChanged();
}

bool ScenarioDocument::load(const QString& path, QString* error) {
  if (isMaxTextConfig(path)) {
    // One yml: the base config, or a model config with the base.yml found beside it.
    QStringList files;
    try {
      const MaxTextFiles found = maxTextFilesFor(std::filesystem::path(QFile::encodeName(path).toStdString()));
      for (const auto& f : {found.base, found.model})
        if (!f.empty()) files << QFile::decodeName(f.string().c_str());
    } catch (const std::exception& e) {
      if (error) *error = QString::fromStdString(e.what());
      return false;
    }
    return importMaxTextFiles(files, {}, QFileInfo(path).fileName(), error);
  }
  Scenario loaded;
  try {
    // Core's reader, as the CLI's: size-capped, depth-bounded, its errors naming the file and the
    // field, never echoing the file's raw bytes.
    loaded = loadScenarioFile(std::filesystem::path(QFile::encodeName(path).toStdString()));
  } catch (const std::exception& e) { // shardscope::Error, or anything else: never past the document
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  importNotes_.clear();
  adopt(std::move(loaded), path, {});
  return true;
}

bool ScenarioDocument::importMaxTextFiles(const QStringList& files, const QStringList& overrides, const QString& source,
                                          QString* error) {
  Scenario loaded;
  MaxTextImportNotes notes;
  try {
    // A MaxText config becomes a workspace as `shardscope-cli import maxtext` makes it.
    std::vector<std::filesystem::path> paths;
    for (const QString& f : files) paths.emplace_back(QFile::encodeName(f).toStdString());
    std::vector<std::string> args;
    for (const QString& o : overrides) args.push_back(o.toStdString());
    loaded = importMaxText(paths, args, notes);
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  importNotes_.clear();
  for (const auto& n : notes.notes) importNotes_ << QString::fromStdString(n);
  importNotes_ << tr("%1 MaxText keys read, %2 left alone").arg(notes.used_keys.size()).arg(notes.unused_keys.size());
  // An imported config is a new workspace: Save asks where (it never writes JSON over the .yml).
  adopt(std::move(loaded), {}, source);
  return true;
}

void ScenarioDocument::adopt(Scenario loaded, const QString& path, const QString& copyOf) {
  undoStack_.clear();
  scenario_ = std::move(loaded);
  filePath_ = path;
  copyOf_ = copyOf;
  undoStack_.setClean();
  emit filePathChanged(filePath_);
  emit replaced();
  emit scenarioChanged();
}

bool ScenarioDocument::isMaxTextConfig(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("yml") || suffix == QLatin1String("yaml");
}

bool ScenarioDocument::save(const QString& path, QString* error) {
  if (!writeFileAtomically(path, dumpJson(scenarioToJson(scenario_), 2) + "\n", error)) return false;
  const bool pathChanged = filePath_ != path;
  filePath_ = path;
  copyOf_.clear();
  undoStack_.setClean();
  if (pathChanged) emit filePathChanged(filePath_);
  return true;
}

void ScenarioDocument::restore(const Scenario& scenario, const QString& originalPath) {
  if (filePath_ != originalPath) {
    filePath_ = originalPath;
    emit filePathChanged(filePath_);
  }
  emit replaced();
  undoStack_.push(new EditScenarioCommand(this, tr("Restore autosaved workspace"), scenario_, scenario, QString()));
}

void ScenarioDocument::setScenarioFromCommand(const Scenario& scenario) {
  scenario_ = scenario;
  emit scenarioChanged();
}

} // namespace shardscope::ui
