// SPDX-License-Identifier: Apache-2.0
#include "document/analysis_runner.hpp"

#include <QCoreApplication>
#include <QEventLoop>
#include <QTimer>

namespace shardscope::ui {

AnalysisRunner::AnalysisRunner(QObject* parent) : QObject(parent) {
  // Two workers: a cancelled run winds down while the newest one starts.
  pool_.setMaxThreadCount(2);
}

AnalysisRunner::~AnalysisRunner() {
  if (cancelCurrent_) cancelCurrent_->store(true);
  pool_.waitForDone();
}

void AnalysisRunner::request(const Scenario& scenario) {
  if (cancelCurrent_) cancelCurrent_->store(true);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  cancelCurrent_ = cancel;
  const quint64 generation = ++generation_;
  emit started();
  pool_.start([this, scenario, cancel, generation] {
    QElapsedTimer clock;
    clock.start();
    std::shared_ptr<const Analysis> result;
    QString error;
    std::optional<ErrorKind> kind;
    try {
      result = std::make_shared<const Analysis>(analyze(scenario, cache_, cancel.get()));
    } catch (const Error& e) {
      error = QString::fromStdString(e.what());
      kind = e.kind();
    } catch (const std::exception& e) {
      error = QString::fromStdString(e.what());
      kind = ErrorKind::ValueError;
    }
    const double wallMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    // Queued to the GUI thread; dropped if the runner is gone (the destructor waits for us first).
    QMetaObject::invokeMethod(
        this, [this, generation, result, error, kind, wallMs] { deliver(generation, result, error, kind, wallMs); },
        Qt::QueuedConnection);
  });
}

void AnalysisRunner::deliver(quint64 generation, std::shared_ptr<const Analysis> result, QString error,
                             std::optional<ErrorKind> kind, double wallMs) {
  if (generation != generation_) return; // a newer edit superseded this run
  delivered_ = generation;
  lastWallMs_ = wallMs;
  if (result) {
    lastValid_ = std::move(result);
    errorMessage_.clear();
    errorKind_.reset();
    emit finished();
  } else {
    errorMessage_ = error;
    errorKind_ = kind;
    emit failed(error);
  }
  emit idle();
}

bool AnalysisRunner::waitForIdle(int timeoutMs) {
  if (!isBusy()) return true;
  QEventLoop loop;
  QTimer timer;
  timer.setSingleShot(true);
  connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
  connect(this, &AnalysisRunner::idle, &loop, &QEventLoop::quit);
  timer.start(timeoutMs);
  while (isBusy() && timer.isActive()) loop.exec();
  return !isBusy();
}

} // namespace shardscope::ui
