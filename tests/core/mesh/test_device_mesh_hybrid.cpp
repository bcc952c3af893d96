// SPDX-License-Identifier: Apache-2.0
// create_hybrid_device_mesh: granules, ordering and np.block's layout (jax-mesh-utils spec §3.6), checked against
// per-granule create_device_mesh calls.
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;

namespace {

DeviceList sliceOf(const DeviceList& all, int slice) {
  DeviceList out;
  for (const Device& d : all)
    if (d.slice_index == slice) out.push_back(d);
  return out;
}

std::int64_t idAt(const DeviceGrid& grid, const DeviceList& devices, const Shape& index) {
  return devices[static_cast<std::size_t>(grid.at(index))].id;
}

} // namespace

TEST_CASE("hybrid: the DCN index is major along every axis", "[device_mesh][hybrid]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x4:slices=2"));
  const HybridPlacement h = createHybridDeviceMesh(Shape{1, 16, 4}, Shape{2, 1, 1}, devices);
  REQUIRE(h.grid.shape() == Shape{2, 16, 4});
  REQUIRE(h.granules.size() == 2);
  for (int g = 0; g < 2; ++g) {
    const DeviceList slice = sliceOf(devices, g);
    const MeshPlacement alone = createDeviceMesh(Shape{1, 16, 4}, slice);
    for (std::int64_t i = 0; i < 16; ++i)
      for (std::int64_t j = 0; j < 4; ++j)
        CHECK(idAt(h.grid, devices, {g, i, j}) == idAt(alone.grid, slice, {0, i, j}));
    CHECK(h.granules[static_cast<std::size_t>(g)].path == "nd_torus");
  }
  const HybridPlacement mid = createHybridDeviceMesh(Shape{1, 4, 16}, Shape{1, 2, 1}, devices);
  CHECK(mid.grid.shape() == Shape{1, 8, 16});
  CHECK(devices[static_cast<std::size_t>(mid.grid.at(Shape{0, 4, 0}))].slice_index == 1);
  CHECK(devices[static_cast<std::size_t>(mid.grid.at(Shape{0, 3, 15}))].slice_index == 0);
}

TEST_CASE("hybrid: DCN ranks lower and higher than the mesh follow np.block", "[device_mesh][hybrid]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x4:slices=2"));
  // Lower rank: the DCN aligns with the LAST mesh axis.
  const HybridPlacement low = createHybridDeviceMesh(Shape{1, 16, 4}, Shape{2}, devices);
  CHECK(low.grid.shape() == Shape{1, 16, 8});
  CHECK(devices[static_cast<std::size_t>(low.grid.at(Shape{0, 0, 3}))].slice_index == 0);
  CHECK(devices[static_cast<std::size_t>(low.grid.at(Shape{0, 0, 4}))].slice_index == 1);
  // Higher rank: the per-slice meshes get a leading 1-dim.
  const HybridPlacement high = createHybridDeviceMesh(Shape{16, 4}, Shape{2, 1, 1}, devices);
  CHECK(high.grid.shape() == Shape{2, 16, 4});
  CHECK(devices[static_cast<std::size_t>(high.grid.at(Shape{1, 0, 0}))].slice_index == 1);
}

TEST_CASE("hybrid: granules sorted by key or taken in first-seen order", "[device_mesh][hybrid]") {
  const DeviceList devices = makeDevices(parseTopology("v4:2x2x4:slices=4"));
  // Shuffle whole slices: 2, 0, 3, 1.
  DeviceList shuffled;
  for (int s : {2, 0, 3, 1}) {
    const DeviceList slice = sliceOf(devices, s);
    shuffled.insert(shuffled.end(), slice.begin(), slice.end());
  }
  HybridMeshOptions sorted;
  const HybridPlacement a = createHybridDeviceMesh(Shape{16}, Shape{4}, shuffled, sorted);
  HybridMeshOptions firstSeen;
  firstSeen.should_sort_granules_by_key = false;
  const HybridPlacement b = createHybridDeviceMesh(Shape{16}, Shape{4}, shuffled, firstSeen);
  for (int g = 0; g < 4; ++g) {
    CHECK(shuffled[static_cast<std::size_t>(a.grid.data()[static_cast<std::size_t>(g * 16)])].slice_index == g);
    const int seen[] = {2, 0, 3, 1};
    CHECK(shuffled[static_cast<std::size_t>(b.grid.data()[static_cast<std::size_t>(g * 16)])].slice_index == seen[g]);
  }
}

TEST_CASE("hybrid: process granules", "[device_mesh][hybrid]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x4")); // 16 processes of 2x2x1
  HybridMeshOptions options;
  options.process_is_granule = true;
  const HybridPlacement h = createHybridDeviceMesh(Shape{2, 2, 1}, Shape{2, 2, 4}, devices, options);
  CHECK(h.grid.shape() == Shape{4, 4, 4});
  REQUIRE(h.granules.size() == 16);
  for (std::size_t g = 0; g < 16; ++g)
    for (int pos : h.granules[g].grid.data())
      CHECK(devices[static_cast<std::size_t>(pos)].process_index == static_cast<int>(g));
}

TEST_CASE("hybrid: errors name slices and the attribute", "[device_mesh][hybrid]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x4:slices=2"));
  CHECK_THROWS_WITH(createHybridDeviceMesh(Shape{1, 16, 4}, Shape{4, 1, 1}, devices),
                    "Number of slices 2 must equal the product of dcn_mesh_shape (4, 1, 1)");
  HybridMeshOptions asList;
  asList.dcn_mesh_shape_repr = "[4, 1, 1]";
  CHECK_THROWS_WITH(createHybridDeviceMesh(Shape{1, 16, 4}, Shape{4, 1, 1}, devices, asList),
                    "Number of slices 2 must equal the product of dcn_mesh_shape [4, 1, 1]");
  const DeviceList gpus = makeDevices(parseTopology("h100:2x8")); // no slice_index
  CHECK_THROWS_WITH(
      createHybridDeviceMesh(Shape{8}, Shape{2}, gpus),
      "Device MockGpuDevice(id=0, platform='gpu', device_kind='NVIDIA H100 80GB HBM3', process_index=0, coords=None, "
      "core_on_chip=None) does not have attribute slice_index. See `process_is_granule` option.");
  HybridMeshOptions byProcess;
  byProcess.process_is_granule = true;
  const HybridPlacement g = createHybridDeviceMesh(Shape{8}, Shape{2}, gpus, byProcess);
  CHECK(g.grid.shape() == Shape{16});
  CHECK(g.granules[0].path == "gpu_sort_by_id");
  // Per-granule errors propagate.
  CHECK_THROWS_WITH(createHybridDeviceMesh(Shape{32}, Shape{2}, devices),
                    "Number of devices 64 must equal the product of mesh_shape (32,)");
}

TEST_CASE("hybrid: runs that are not one granule each still group by key", "[device_mesh][hybrid]") {
  // The fast path guesses equal runs (list size / granules) and checks each run's keys while it
  // places it. Here the first guessed run holds three devices of slice 0 and one of slice 1, and
  // the last device of slice 0 comes at the end: the grouping must still be by slice, so the
  // result is the same as for the slice-major list.
  const DeviceList ordered = makeDevices(parseTopology("v4:2x2x1:slices=2"));
  REQUIRE(ordered.size() == 8);
  DeviceList shuffled = {ordered[0], ordered[1], ordered[2], ordered[4],
                         ordered[5], ordered[6], ordered[7], ordered[3]};
  const HybridPlacement expect = createHybridDeviceMesh(Shape{2, 2}, Shape{2, 1}, ordered);
  const HybridPlacement got = createHybridDeviceMesh(Shape{2, 2}, Shape{2, 1}, shuffled);
  REQUIRE(got.grid.shape() == Shape{4, 2});
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 2; ++j) CHECK(idAt(got.grid, shuffled, {i, j}) == idAt(expect.grid, ordered, {i, j}));
  // Process granules: the same list grouped by host (each 2x2x1 slice is one host here).
  HybridMeshOptions byProcess;
  byProcess.process_is_granule = true;
  const HybridPlacement hosts = createHybridDeviceMesh(Shape{2, 2}, Shape{2, 1}, shuffled, byProcess);
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      CHECK(idAt(hosts.grid, shuffled, {i, j}) == idAt(expect.grid, ordered, {i, j}));
  // Unequal runs (a slice-major list whose slices differ in size) fail in the per-slice mesh, as
  // the reference does, rather than being cut at the guessed length.
  DeviceList uneven = ordered;
  uneven[3].slice_index = 1;
  CHECK_THROWS_AS(createHybridDeviceMesh(Shape{2, 2}, Shape{2, 1}, uneven), Error);
}
