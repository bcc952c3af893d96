// SPDX-License-Identifier: Apache-2.0
#include "document/layout_search_runner.hpp"

#include "shardscope/base/errors.hpp"

#include <QElapsedTimer>
#include <QEventLoop>
#include <QTimer>

namespace shardscope::ui {

LayoutSearchRunner::LayoutSearchRunner(QObject* parent) : QObject(parent) {
  // Two slots: a cancelled search winds down while the next one starts.
  pool_.setMaxThreadCount(2);
}

LayoutSearchRunner::~LayoutSearchRunner() {
  if (cancelCurrent_) cancelCurrent_->store(true);
  pool_.waitForDone();
}

void LayoutSearchRunner::start(const Scenario& scenario, const LayoutSearchOptions& options) {
  if (cancelCurrent_) cancelCurrent_->store(true);
  auto cancel = std::make_shared<std::atomic<bool>>(false);
  cancelCurrent_ = cancel;
  const quint64 generation = ++generation_;
  emit started();
  pool_.start([this, scenario, options, cancel, generation, hook = workerProgressHook_] {
    QElapsedTimer clock;
    clock.start();
    // Called from the search's worker threads (serialised by the search): post to the GUI thread.
    auto onProgress = [this, generation, &hook](std::int64_t done, std::int64_t total) {
      QMetaObject::invokeMethod(
          this,
          [this, generation, done, total] {
            if (generation == generation_) emit progress(done, total);
          },
          Qt::QueuedConnection);
      if (hook) hook(done, total);
    };
    std::shared_ptr<const LayoutSearchResult> result;
    QString error;
    try {
      result = std::make_shared<const LayoutSearchResult>(searchLayouts(scenario, options, onProgress, cancel.get()));
    } catch (const std::exception& e) { // shardscope::Error (bad options, no model) or anything else
      error = QString::fromStdString(e.what());
    }
    const double wallMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
    // The destructor waits for this task, so `this` outlives the post; Qt drops it if we are gone.
    QMetaObject::invokeMethod(
        this, [this, generation, result, error, wallMs] { deliver(generation, result, error, wallMs); },
        Qt::QueuedConnection);
  });
}

void LayoutSearchRunner::cancel() {
  if (isBusy() && cancelCurrent_) cancelCurrent_->store(true);
}

void LayoutSearchRunner::deliver(quint64 generation, std::shared_ptr<const LayoutSearchResult> result, QString error,
                                 double wallMs) {
  if (generation != generation_) return; // a newer search superseded this one
  delivered_ = generation;
  lastWallMs_ = wallMs;
  if (result) {
    result_ = std::move(result);
    errorMessage_.clear();
    emit finished();
  } else {
    result_.reset();
    errorMessage_ = error;
    emit failed(error);
  }
  emit idle();
}

bool LayoutSearchRunner::waitForIdle(int timeoutMs) {
  if (!isBusy()) return true;
  QEventLoop loop;
  QTimer timer;
  timer.setSingleShot(true);
  connect(&timer, &QTimer::timeout, &loop, &QEventLoop::quit);
  connect(this, &LayoutSearchRunner::idle, &loop, &QEventLoop::quit);
  timer.start(timeoutMs);
  while (isBusy() && timer.isActive()) loop.exec();
  return !isBusy();
}

} // namespace shardscope::ui
