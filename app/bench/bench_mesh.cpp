// SPDX-License-Identifier: Apache-2.0
// Device-mesh engine benchmarks (issue 2, jax-mesh-utils spec §8): one create_device_mesh /
// create_hybrid_device_mesh call per iteration on a device list built beforehand, physical-mesh
// construction included. JAX's Python takes 0.8-7 ms on these.
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/hardware/topology.hpp"

#include <benchmark/benchmark.h>

namespace {

using namespace shardscope;

void runCreate(benchmark::State& state, const char* topology, Shape meshShape, bool split) {
  const DeviceList devices = makeDevices(parseTopology(topology));
  CreateMeshOptions options;
  options.allow_split_physical_axes = split;
  for (auto _ : state) {
    MeshPlacement placement = createDeviceMesh(meshShape, devices, options);
    benchmark::DoNotOptimize(placement.grid.data().data());
  }
  state.counters["devices"] = static_cast<double>(devices.size());
}

void runHybrid(benchmark::State& state, const char* topology, Shape meshShape, Shape dcn) {
  const DeviceList devices = makeDevices(parseTopology(topology));
  for (auto _ : state) {
    HybridPlacement placement = createHybridDeviceMesh(meshShape, dcn, devices);
    benchmark::DoNotOptimize(placement.grid.data().data());
  }
  state.counters["devices"] = static_cast<double>(devices.size());
}

void v4_256x8(benchmark::State& s) { runCreate(s, "v4:8x16x16", {256, 8}, false); }
void v4_32x64_split(benchmark::State& s) { runCreate(s, "v4:8x16x16", {32, 64}, true); }
void v5p_64x64_split(benchmark::State& s) { runCreate(s, "v5p:16x16x16", {64, 64}, true); }
void v5p_320x28(benchmark::State& s) { runCreate(s, "v5p:16x20x28", {320, 28}, false); }
void v5p_5x7x256_split(benchmark::State& s) { runCreate(s, "v5p:16x20x28", {5, 7, 256}, true); }
void hybrid_4xv4(benchmark::State& s) { runHybrid(s, "v4:8x16x16:slices=4", {1, 256, 8}, {4, 1, 1}); }
void gpu_64x128(benchmark::State& s) { runCreate(s, "h100:1024x8", {64, 128}, false); }

} // namespace

BENCHMARK(v4_256x8)->Name("mesh/v4-8x16x16/256x8")->Unit(benchmark::kMicrosecond);
BENCHMARK(v4_32x64_split)->Name("mesh/v4-8x16x16/32x64/split")->Unit(benchmark::kMicrosecond);
BENCHMARK(v5p_64x64_split)->Name("mesh/v5p-16x16x16/64x64/split")->Unit(benchmark::kMicrosecond);
BENCHMARK(v5p_320x28)->Name("mesh/v5p-16x20x28/320x28")->Unit(benchmark::kMicrosecond);
BENCHMARK(v5p_5x7x256_split)->Name("mesh/v5p-16x20x28/5x7x256/split")->Unit(benchmark::kMicrosecond);
BENCHMARK(hybrid_4xv4)->Name("mesh/hybrid-4xv4-8x16x16/1x256x8-dcn4x1x1")->Unit(benchmark::kMicrosecond);
BENCHMARK(gpu_64x128)->Name("mesh/gpu-8192/64x128")->Unit(benchmark::kMicrosecond);
