// SPDX-License-Identifier: Apache-2.0
// Communication benchmarks: the full per-axis report of the largest v5p pod (8960 chips), with the
// link graph fetched from the cache as the GUI does on every mesh edit.
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/hardware/topology.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace shardscope;

// The mesh every command would place for `meshText` on `topology` (links as `twisted` says).
Mesh placed(const std::string& topology, const std::string& meshText, bool twisted = false) {
  Scenario scenario;
  scenario.topology = parseTopology(topology);
  scenario.links.twisted = twisted;
  scenario.mesh.axes = meshAxesFromText(meshText, scenario.topology);
  return analyzeMesh(scenario).mesh;
}

void BM_CommV5pPodFsdpTp(benchmark::State& state) {
  const auto spec = parseTopology("v5p:16x20x28");
  // Placed once, as JAX would (split physical axes): the benchmark times the report, not placement.
  const Mesh mesh = placed("v5p:16x20x28", "fsdp:2240,tp:4");
  for (auto _ : state) {
    auto graph = cachedLinkGraph(spec);
    auto reports = axisReports(*graph, mesh);
    double total = 0;
    for (const auto& r : reports)
      for (auto c : kCollectives) total += collectiveTime(c, 1e9, r).alpha_beta;
    benchmark::DoNotOptimize(total);
  }
}
BENCHMARK(BM_CommV5pPodFsdpTp)->Name("comm/v5p-16x20x28/fsdp-tp")->Unit(benchmark::kMillisecond);

void BM_CommV5pPodGraphBuild(benchmark::State& state) {
  const auto spec = parseTopology("v5p:16x20x28");
  const auto devices = makeDevices(spec);
  const auto params = defaultLinkParams(*findChip("v5p"));
  for (auto _ : state) {
    LinkGraph graph(devices, spec, params);
    benchmark::DoNotOptimize(graph.nodeCount());
  }
}
BENCHMARK(BM_CommV5pPodGraphBuild)->Name("comm/v5p-16x20x28/graph-uncached")->Unit(benchmark::kMillisecond);

// A twisted 8x8x16 v5p slice: routes come from one translated BFS tree instead of closed forms.
void BM_CommV5pTwisted(benchmark::State& state) {
  const auto spec = parseTopology("v5p:8x8x16");
  auto params = defaultLinkParams(*findChip("v5p"));
  params.twisted = true;
  const Mesh mesh = placed("v5p:8x8x16", "fsdp:-1,tp:16", true);
  for (auto _ : state) {
    auto graph = cachedLinkGraph(spec, params);
    benchmark::DoNotOptimize(axisReports(*graph, mesh));
  }
}
BENCHMARK(BM_CommV5pTwisted)->Name("comm/v5p-8x8x16-twisted/fsdp-tp")->Unit(benchmark::kMillisecond);

} // namespace
