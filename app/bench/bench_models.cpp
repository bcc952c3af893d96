// SPDX-License-Identifier: Apache-2.0
// Model loading and the per-device memory estimate: the GUI recomputes memory on every edit, and
// switching to a preset synthesizes its tensors.
#include "shardscope/cost/memory.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <benchmark/benchmark.h>

using namespace shardscope;

static void BM_LoadPresetModel(benchmark::State& state, const char* name) {
  for (auto _ : state) benchmark::DoNotOptimize(loadPresetModel(name));
}
BENCHMARK_CAPTURE(BM_LoadPresetModel, llama_3_1_405b, "llama-3.1-405b")->Unit(benchmark::kMillisecond);
BENCHMARK_CAPTURE(BM_LoadPresetModel, deepseek_v3, "deepseek-v3")->Unit(benchmark::kMillisecond);

// 8960 v5p chips (a full 16x20x28 pod), each holding a slightly different shard total.
static void BM_EstimateMemory8960(benchmark::State& state) {
  const Model model = loadPresetModel("deepseek-v3");
  const DeviceParamShards whole = wholeModelShards(model, 2.0);
  std::vector<DeviceParamShards> devices(8960);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    devices[i].param_elements = whole.param_elements / 256 + static_cast<double>(i % 7);
    devices[i].param_bytes = 2 * devices[i].param_elements;
  }
  MemoryOptions options;
  options.device_kind = "v5p";
  options.optimizer = static_cast<Optimizer>(state.range(0));
  options.micro_batch = 256;
  options.batch_degree = 256;
  options.tensor_degree = 4;
  for (auto _ : state) benchmark::DoNotOptimize(estimateMemory(devices, model, options));
}
BENCHMARK(BM_EstimateMemory8960)
    ->Arg(static_cast<int>(Optimizer::AdamW))
    ->Arg(static_cast<int>(Optimizer::Adafactor))
    ->Unit(benchmark::kMicrosecond);
