// SPDX-License-Identifier: Apache-2.0
// Runs core's layout search (searchLayouts) off the GUI thread, as AnalysisRunner runs analyze():
// the search's progress callback and its result come back to the GUI thread as queued calls, a new
// search or cancel() stops the running one through the search's atomic flag, and only the newest
// search's progress and result are delivered.
#pragma once

#include "shardscope/search/layout_search.hpp"

#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <functional>
#include <memory>

namespace shardscope::ui {

class LayoutSearchRunner : public QObject {
  Q_OBJECT
public:
  explicit LayoutSearchRunner(QObject* parent = nullptr);
  ~LayoutSearchRunner() override;

  // Starts a search of `scenario` (copied: later edits do not reach the running search).
  void start(const Scenario& scenario, const LayoutSearchOptions& options);
  // Asks the running search to stop; it finishes soon with `cancelled` set. Nothing when idle.
  void cancel();
  bool isBusy() const { return delivered_ != generation_; }

  // The newest delivered result (null before the first or after a failure).
  std::shared_ptr<const LayoutSearchResult> result() const { return result_; }
  const QString& errorMessage() const { return errorMessage_; }
  double lastWallMs() const { return lastWallMs_; }

  // Blocks (processing events) until the newest search was delivered, or `timeoutMs`.
  bool waitForIdle(int timeoutMs = 60000);

  // Called on the search's worker thread after each progress report was posted (tests hold the
  // search here to cancel it mid-way however fast the machine is). Set before start().
  using WorkerProgressHook = std::function<void(qint64 evaluated, qint64 total)>;
  void setWorkerProgressHook(WorkerProgressHook hook) { workerProgressHook_ = std::move(hook); }

signals:
  void started();
  void progress(qint64 evaluated, qint64 total);
  void finished(); // result() holds the newest search (possibly cancelled)
  void failed(const QString& message);
  void idle();

private:
  void deliver(quint64 generation, std::shared_ptr<const LayoutSearchResult> result, QString error, double wallMs);

  QThreadPool pool_; // one worker: the search runs its own threads inside
  quint64 generation_ = 0;
  quint64 delivered_ = 0;
  std::shared_ptr<std::atomic<bool>> cancelCurrent_;
  std::shared_ptr<const LayoutSearchResult> result_;
  QString errorMessage_;
  double lastWallMs_ = 0;
  WorkerProgressHook workerProgressHook_;
};

} // namespace shardscope::ui
