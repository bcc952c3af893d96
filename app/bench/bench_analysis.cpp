// SPDX-License-Identifier: Apache-2.0
// analysis/*: the whole analyze() (mesh + rules + shards + per-device memory + per-axis comm) on a
// full v5p pod, from an already loaded model (the first call warms the model and graph caches).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/hardware/topology.hpp"

#include <benchmark/benchmark.h>

namespace {

shardscope::Scenario podScenario(const char* model) {
  shardscope::Scenario s = shardscope::defaultScenario();
  s.topology = shardscope::parseTopology("v5p:16x20x28");
  s.mesh.axes = {{"fsdp", -1, 1}, {"tp", 4, 1}};
  s.mesh.allow_split_physical_axes = true;
  s.model = {};
  s.model.preset = model;
  s.rules = {};
  s.rules.preset = "fsdp-tp";
  s.training.batch_axes = {"fsdp"};
  return s;
}

void analyzePod(benchmark::State& state, const char* model) {
  const auto scenario = podScenario(model);
  // What a drag frame in the GUI costs: the model is loaded and its parameters grouped once.
  shardscope::AnalysisCache cache;
  (void)shardscope::analyze(scenario, cache);
  for (auto _ : state) benchmark::DoNotOptimize(shardscope::analyze(scenario, cache));
}

} // namespace

BENCHMARK_CAPTURE(analyzePod, llama405b, "llama-3.1-405b")
    ->Name("analysis/llama-3.1-405b/v5p-16x20x28")
    ->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(analyzePod, deepseek, "deepseek-v3")
    ->Name("analysis/deepseek-v3/v5p-16x20x28")
    ->Unit(benchmark::kMillisecond);
