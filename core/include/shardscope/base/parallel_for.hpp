// SPDX-License-Identifier: Apache-2.0
// The one worker pool: runs job(index, worker) for every index in [0, count) on up to `threads`
// threads (the caller's thread is worker 0), each index exactly once, in no particular order.
// Stops handing out indices once `cancel` is set. Jobs must not throw.
#pragma once

#include <atomic>
#include <cstddef>
#include <functional>

namespace shardscope {

// The number of workers parallelFor will use for `count` jobs: at least 1, at most `threads`
// (clamped to [1, 64]) and at most `count`. Callers size per-worker state with it.
int workerCount(std::size_t count, int threads);

void parallelFor(std::size_t count, int threads, const std::atomic<bool>* cancel,
                 const std::function<void(std::size_t index, int worker)>& job);

} // namespace shardscope
