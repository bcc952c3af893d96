// SPDX-License-Identifier: Apache-2.0
// Runs analyze() off the GUI thread. Each request cancels the run before it (through analyze's
// atomic flag) and only the newest request's result is delivered, so a burst of edits costs one
// visible update and the GUI never waits on the core.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QThreadPool>

#include <atomic>
#include <memory>
#include <optional>

namespace shardscope::ui {

class AnalysisRunner : public QObject {
  Q_OBJECT
public:
  explicit AnalysisRunner(QObject* parent = nullptr);
  ~AnalysisRunner() override;

  void request(const Scenario& scenario);

  // The last analysis that succeeded (kept while later requests fail), or null before the first.
  std::shared_ptr<const Analysis> lastValid() const { return lastValid_; }
  // Drops lastValid() (another workspace was opened: its errors must not show the old one's mesh).
  void forgetLastValid() { lastValid_.reset(); }
  // The newest request's error, empty when it succeeded.
  const QString& errorMessage() const { return errorMessage_; }
  std::optional<ErrorKind> errorKind() const { return errorKind_; }
  bool isBusy() const { return delivered_ != generation_; }
  // Wall time of the last delivered run in milliseconds (queueing included).
  double lastWallMs() const { return lastWallMs_; }

  // Blocks (processing events) until the newest request has been delivered, or `timeoutMs`.
  bool waitForIdle(int timeoutMs = 10000);

signals:
  void started();
  void finished(); // a new lastValid() is there
  void failed(const QString& message);
  void idle(); // the newest request was delivered (finished or failed)

private:
  void deliver(quint64 generation, std::shared_ptr<const Analysis> result, QString error, std::optional<ErrorKind> kind,
               double wallMs);

  QThreadPool pool_;
  quint64 generation_ = 0;
  quint64 delivered_ = 0; // the newest generation delivered
  // Kept across runs so a drag re-uses the loaded model and its parameter grouping; shared by
  // the two workers (the cache is thread-safe).
  AnalysisCache cache_;
  std::shared_ptr<std::atomic<bool>> cancelCurrent_;
  std::shared_ptr<const Analysis> lastValid_;
  QString errorMessage_;
  std::optional<ErrorKind> errorKind_;
  double lastWallMs_ = 0;
};

} // namespace shardscope::ui
