// SPDX-License-Identifier: Apache-2.0
// Unsaved work survives a crash: while the document has unsaved edits, its scenario is written
// (atomically) to an autosave file a few seconds after each edit; a clean exit or a save removes
// it. An autosave whose process is gone at start-up was left by a crash and is offered back.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QDateTime>
#include <QObject>
#include <QString>
#include <QTimer>

#include <vector>

namespace shardscope::ui {

class ScenarioDocument;

struct OrphanAutosave {
  QString file;         // the autosave file
  QString originalPath; // the workspace it belonged to; empty for an untitled one
  QDateTime written;
  Scenario scenario;
};

class Autosave : public QObject {
  Q_OBJECT
public:
  // `directory` empty: the per-user app data folder ("autosave" under it).
  Autosave(ScenarioDocument* document, QString directory = {}, QObject* parent = nullptr);
  ~Autosave() override; // a clean exit: nothing to restore next time

  QString directory() const { return directory_; }
  QString ownFile() const;
  // Writes now when the document has unsaved edits, removes the file when it has none.
  void writeNow();
  // Autosaves of processes that no longer run, newest first; unreadable ones are skipped.
  std::vector<OrphanAutosave> orphans() const;
  // Deletes an orphan once it was restored or declined.
  static void discard(const OrphanAutosave& orphan);

  static constexpr int kDelayMs = 3000;

private:
  ScenarioDocument* document_;
  QString directory_;
  QTimer timer_;
};

} // namespace shardscope::ui
