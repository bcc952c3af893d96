// SPDX-License-Identifier: Apache-2.0
// Pipeline benchmarks: jaxpp's DualPipeV with 16 stages on 8 ranks and 64 micro-batches, built,
// preprocessed and run through the list scheduler with the analysis' per-stage latencies, as the
// Pipeline dock does on every schedule or M change. It should stay well under a frame (16 ms).
#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace shardscope;

void BM_PipelineDualPipeV(benchmark::State& state) {
  PipelineScheduleSpec spec;
  spec.kind = PipelineScheduleKind::DualPipeV;
  spec.num_stages = 16;
  spec.mpmd_dim = 8;
  const auto latency = pipelineUnitLatency(pipelineLayerSplit(126, 16), 8);
  for (auto _ : state) {
    const ScheduleRows rows = preprocessSchedule(pipelineTasks(spec, 64), 0);
    const PipelineTimeline timeline = simulateTimeline(spec, 64, rows, latency);
    const PipelineMetrics metrics = pipelineMetrics(timeline, 8);
    benchmark::DoNotOptimize(metrics.makespan);
  }
}
BENCHMARK(BM_PipelineDualPipeV)->Name("pipeline/dualpipev/S16-M64")->Unit(benchmark::kMillisecond);

} // namespace
