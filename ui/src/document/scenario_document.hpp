// SPDX-License-Identifier: Apache-2.0
// The open workspace: the Scenario value, its file, whether it changed since the last save, and
// the undo stack through which every edit goes.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QObject>
#include <QString>
#include <QStringList>
#include <QUndoStack>

#include <functional>

namespace shardscope::ui {

class ScenarioDocument : public QObject {
  Q_OBJECT
public:
  explicit ScenarioDocument(QObject* parent = nullptr);

  const Scenario& scenario() const { return scenario_; }
  QUndoStack* undoStack() { return &undoStack_; }

  // Applies `change` to a copy of the scenario and pushes it as one undoable step named `text`;
  // nothing happens when the change leaves the scenario equal.
  void edit(const QString& text, const std::function<void(Scenario&)>& change, const QString& mergeKey = {});

  QString filePath() const { return filePath_; }
  // The file name, "Untitled" before the first save, "<example> (copy)" for a detached example.
  QString displayName() const;
  // The example this untitled workspace was opened from (its file name), or empty.
  QString copyOf() const { return copyOf_; }
  // Forgets the file the workspace was read from, so Save asks where (a bundled example opens as
  // an untitled copy: an Enter in a prompt can never overwrite it). The title keeps its name.
  void detachFromFile();
  bool isModified() const { return !undoStack_.isClean(); }

  // Starts over with the default scenario (clears undo history).
  void newDocument();
  // Reads a workspace, or imports a MaxText config (*.yml, *.yaml) as an untitled workspace; on
  // failure the current document stays and `error` says why.
  bool load(const QString& path, QString* error);
  static bool isMaxTextConfig(const QString& path);
  // Imports MaxText config files (base, then the model's) with key=value overrides as an untitled
  // workspace named after `source`; on failure the current document stays and `error` says why.
  bool importMaxTextFiles(const QStringList& files, const QStringList& overrides, const QString& source,
                          QString* error);
  // What the last MaxText import noted (keys read and left alone, assumptions); empty otherwise.
  const QStringList& importNotes() const { return importNotes_; }
  // Writes atomically (QSaveFile): on failure the old file is untouched and `error` says why.
  bool save(const QString& path, QString* error);

  // Called by EditScenarioCommand only.
  void setScenarioFromCommand(const Scenario& scenario);
  // Brings back an autosaved scenario after a crash: the file path it belonged to (may be empty)
  // and the scenario as one undoable edit, so the document shows as modified until saved.
  void restore(const Scenario& scenario, const QString& originalPath);

signals:
  // Another workspace took this one's place (opened, new, restored after a crash); emitted before
  // the scenarioChanged() that carries it, so view state of the old one can be dropped first.
  void replaced();
  void scenarioChanged();
  void modifiedChanged(bool modified);
  void filePathChanged(const QString& path);

private:
  // Takes `loaded` as the open workspace: clears the undo history, remembers the file (empty for an
  // import, which is a copy of `copyOf`) and announces the replacement.
  void adopt(Scenario loaded, const QString& path, const QString& copyOf);

  Scenario scenario_;
  QString filePath_;
  QString copyOf_; // the example's file name after detachFromFile(), until the next save or open
  QStringList importNotes_;
  QUndoStack undoStack_;
};

} // namespace shardscope::ui
