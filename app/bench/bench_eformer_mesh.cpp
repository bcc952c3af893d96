// SPDX-License-Identifier: Apache-2.0
// eformer create_mesh and jaxpp MpmdMesh benchmarks: one call per iteration on a device list
// built beforehand. create_mesh time is mostly the engine's hybrid placement; these show what
// eformer's own bookkeeping (host split, DCN shape, Mesh checks) adds on top.
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/mesh/mpmd_mesh.hpp"
#include "shardscope/hardware/topology.hpp"

#include <benchmark/benchmark.h>

#include <set>

namespace {

using namespace shardscope;

std::int64_t processCount(const DeviceList& devices) {
  std::set<int> processes;
  for (const auto& d : devices) processes.insert(d.process_index);
  return static_cast<std::int64_t>(processes.size());
}

void runCreateMesh(benchmark::State& state, const char* topology, Shape axisDims, std::vector<std::string> names) {
  const DeviceList devices = makeDevices(parseTopology(topology));
  SimulatedRuntime runtime;
  runtime.process_count = processCount(devices);
  EformerMeshArgs args;
  args.axis_dims = std::move(axisDims);
  args.axis_names = std::move(names);
  for (auto _ : state) {
    EformerMesh mesh = createEformerMesh(devices, args, runtime);
    benchmark::DoNotOptimize(mesh.mesh.grid.data().data());
  }
  state.counters["devices"] = static_cast<double>(devices.size());
  state.counters["processes"] = static_cast<double>(runtime.process_count);
}

void v5pDefault(benchmark::State& s) {
  runCreateMesh(s, "v5p:16x20x28", kEformerDefaultAxisDims, kEformerDefaultAxisNames);
}
void v4FourSlices(benchmark::State& s) { runCreateMesh(s, "v4:8x16x16:slices=4", {4, -1, 8}, {"dp", "fsdp", "tp"}); }
void gpu8192(benchmark::State& s) { runCreateMesh(s, "h100:1024x8", {64, 128}, {"fsdp", "tp"}); }

// An 8192-GPU mesh (stage 64, data 16, model 8), one process per 8 GPUs so every process sits in
// one stage: construction (with the one-group-per-process check), unstack and the device index.
void mpmdUnstack(benchmark::State& state) {
  const DeviceList devices = makeDevices(parseTopology("h100:1024x8"));
  Mesh mesh;
  mesh.devices = devices;
  mesh.grid = DeviceGrid::iota({64, 16, 8});
  mesh.axis_names = {"stage", "data", "model"};
  mesh.axis_types.assign(3, AxisType::Auto);
  for (auto _ : state) {
    MpmdMesh mm(mesh, "stage");
    auto groups = mm.unstack();
    auto idx = mm.deviceMpmdIdx();
    benchmark::DoNotOptimize(groups.data());
    benchmark::DoNotOptimize(idx.data());
  }
  state.counters["devices"] = static_cast<double>(devices.size());
}

} // namespace

BENCHMARK(v5pDefault)->Name("eformer/create_mesh/v5p-16x20x28/default")->Unit(benchmark::kMicrosecond);
BENCHMARK(v4FourSlices)->Name("eformer/create_mesh/4xv4-8x16x16/4x-1x8")->Unit(benchmark::kMicrosecond);
BENCHMARK(gpu8192)->Name("eformer/create_mesh/gpu-8192/64x128")->Unit(benchmark::kMicrosecond);
BENCHMARK(mpmdUnstack)->Name("mpmd/gpu-8192/64x16x8/unstack")->Unit(benchmark::kMicrosecond);
