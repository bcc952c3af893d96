// Interconnect benchmarks: the full per-axis report of the largest v5p pod (8960 chips), with the
// link graph fetched from the cache as the GUI does on every mesh edit.
#include "shardscope/axis_report.hpp"
#include "shardscope/collectives.hpp"
#include "shardscope/link_graph.hpp"
#include "shardscope/topology.hpp"

#include <benchmark/benchmark.h>

#include <unordered_map>

namespace {

using namespace shardscope;

// fsdp:2240,tp:4 with tp along 4 consecutive x chips and fsdp over the rest (x/4, y, z): the
// placement JAX's split-axis path gives a (2240, 4) mesh on 16x20x28.
Mesh handPlacedFsdpTp(const DeviceList& devices) {
  std::unordered_map<std::int64_t, int> byChip;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& c = *devices[i].coords;
    byChip[c[0] + 16 * (c[1] + 20 * c[2])] = static_cast<int>(i);
  }
  std::vector<int> cells;
  for (int f = 0; f < 2240; ++f)
    for (int t = 0; t < 4; ++t) {
      const int xo = f % 4, y = f / 4 % 20, z = f / 80;
      cells.push_back(byChip.at(4 * xo + t + 16 * (y + 20 * z)));
    }
  Mesh m;
  m.devices = devices;
  m.grid = DeviceGrid({2240, 4}, std::move(cells));
  m.axis_names = {"fsdp", "tp"};
  m.axis_types = {AxisType::Explicit, AxisType::Explicit};
  return m;
}

void BM_CommV5pPodFsdpTp(benchmark::State& state) {
  const auto spec = parseTopology("v5p:16x20x28");
  const Mesh mesh = handPlacedFsdpTp(cachedLinkGraph(spec)->devices());
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

} // namespace
