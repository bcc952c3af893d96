// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/parallel_for.hpp"

#include <algorithm>
#include <thread>
#include <vector>

namespace shardscope {

int workerCount(std::size_t count, int threads) {
  const int clamped = std::clamp(threads, 1, 64);
  return static_cast<int>(std::max<std::size_t>(1, std::min<std::size_t>(count, static_cast<std::size_t>(clamped))));
}

void parallelFor(std::size_t count, int threads, const std::atomic<bool>* cancel,
                 const std::function<void(std::size_t index, int worker)>& job) {
  std::atomic<std::size_t> next{0};
  auto work = [&](int worker) {
    for (;;) {
      if (cancel && cancel->load()) return;
      const std::size_t k = next.fetch_add(1);
      if (k >= count) return;
      job(k, worker);
    }
  };
  std::vector<std::thread> pool;
  const int workers = workerCount(count, threads);
  for (int w = 1; w < workers; ++w) pool.emplace_back(work, w);
  work(0);
  for (auto& t : pool) t.join();
}

} // namespace shardscope
