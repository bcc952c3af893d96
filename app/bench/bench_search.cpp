// SPDX-License-Identifier: Apache-2.0
// search/*: the whole layout search (every candidate placed, sharded, sized and timed) for
// Llama-3.1-405B on a full v5p pod with the default axes, on two worker threads. Reports
// candidates per second of wall time.
#include "shardscope/search/layout_search.hpp"
#include "shardscope/hardware/topology.hpp"

#include <benchmark/benchmark.h>

namespace {

void searchPod(benchmark::State& state) {
  shardscope::Scenario s = shardscope::defaultScenario();
  s.topology = shardscope::parseTopology("v5p:16x20x28");
  s.mesh.axes = {{"fsdp", -1, 1}, {"tp", 4, 1}};
  s.model = {};
  s.model.preset = "llama-3.1-405b";
  s.training.micro_batch = 8960; // one 4k-token sequence per chip: a 36.7M-token batch
  shardscope::LayoutSearchOptions options;
  options.threads = 2;
  std::int64_t candidates = 0;
  for (auto _ : state) {
    const auto result = shardscope::searchLayouts(s, options);
    candidates = result.evaluated;
    benchmark::DoNotOptimize(result.rows.data());
  }
  state.counters["candidates"] = static_cast<double>(candidates);
  state.counters["candidates/s"] = benchmark::Counter(
      static_cast<double>(candidates) * static_cast<double>(state.iterations()), benchmark::Counter::kIsRate);
}

} // namespace

BENCHMARK(searchPod)->Name("search/llama-3.1-405b/v5p-16x20x28")->Unit(benchmark::kMillisecond)->UseRealTime();
