// SPDX-License-Identifier: Apache-2.0
#include "shardscope/eval/eval.hpp"
// jax.make_mesh (jax-mesh-utils spec §5, §9.9) and the GPU/CPU paths of create_device_mesh.
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;

namespace {
template <class Fn>
std::pair<ErrorKind, std::string> errorOf(Fn&& fn) {
  try {
    fn();
  } catch (const Error& e) {
    return {e.kind(), e.what()};
  }
  FAIL("no error raised");
  return {};
}
} // namespace

TEST_CASE("GPU meshes sort by id, CPU meshes reshape the list as given", "[device_mesh][make_mesh]") {
  const DeviceList gpus = makeDevices(parseTopology("h100:2x4:interleaved"));
  const MeshPlacement g = createDeviceMesh(Shape{2, 4}, gpus, {true, true});
  CHECK(g.path == "gpu_sort_by_id");
  for (std::size_t k = 0; k < 8; ++k)
    CHECK(gpus[static_cast<std::size_t>(g.grid.data()[k])].id == static_cast<std::int64_t>(k));
  DeviceList cpus = makeDevices(parseTopology("cpu:4"));
  std::reverse(cpus.begin(), cpus.end());
  const MeshPlacement c = createDeviceMesh(Shape{2, 2}, cpus);
  CHECK(c.path == "reshape");
  CHECK(c.grid.data() == std::vector<int>{0, 1, 2, 3});
  const DeviceList one = makeDevices(parseTopology("h100:1x1"));
  const MeshPlacement scalar = createDeviceMesh(Shape{}, one);
  CHECK(scalar.grid.ndim() == 0);
  CHECK(scalar.grid.size() == 1);
}

TEST_CASE("make_mesh truncates first, then builds, with Explicit axes by default", "[device_mesh][make_mesh]") {
  const DeviceList gpus = makeDevices(parseTopology("h100:2x8:interleaved"));
  MeshPlacement placement;
  const Mesh mesh = makeMesh(Shape{8}, {"x"}, std::nullopt, gpus, &placement);
  // The first 8 list entries are process 0's GPUs, ids 0, 2, ..., 14; then sorted by id.
  const auto ids = mesh.deviceIds();
  for (std::size_t k = 0; k < 8; ++k) CHECK(ids.data()[k] == static_cast<std::int64_t>(2 * k));
  CHECK(mesh.devices.size() == 8);
  CHECK(mesh.axis_types == std::vector<AxisType>{AxisType::Explicit});
  CHECK(placement.path == "gpu_sort_by_id");
  const Mesh typed = makeMesh(Shape{2, 8}, {"a", "b"}, std::vector<AxisType>{AxisType::Auto, AxisType::Manual}, gpus);
  CHECK(typed.axis_types == std::vector<AxisType>{AxisType::Auto, AxisType::Manual});
}

TEST_CASE("make_mesh: v5e splits axes automatically, v6e and v4 do not", "[device_mesh][make_mesh]") {
  const DeviceList v5e = makeDevices(parseTopology("v5e:4x4"));
  MeshPlacement p;
  makeMesh(Shape{2, 8}, {"a", "b"}, std::nullopt, v5e, &p);
  CHECK(p.path == "nd_torus_split");
  TopologySpec v6 = parseTopology("v6e:4x4");
  const auto err = errorOf([&] { makeMesh(Shape{2, 8}, {"a", "b"}, std::nullopt, makeDevices(v6)); });
  CHECK(err.first == ErrorKind::NotImplementedError);
  const auto v4err = errorOf([&] {
    makeMesh(Shape{8, 8}, {"a", "b"}, std::nullopt, makeDevices(parseTopology("v4:4x4x4")));
  });
  CHECK(v4err.first == ErrorKind::NotImplementedError);
}

TEST_CASE("make_mesh errors", "[device_mesh][make_mesh]") {
  const DeviceList v4 = makeDevices(parseTopology("v4:4x4"));
  auto e = errorOf([&] { makeMesh(Shape{32}, {"x"}, std::nullopt, v4); });
  CHECK(e.first == ErrorKind::ValueError);
  CHECK(e.second == "Number of devices 16 must be >= the product of mesh_shape (32,)");
  // The first 12 of a process-tiled 4x4 are not a cuboid.
  e = errorOf([&] { makeMesh(Shape{12}, {"x"}, std::nullopt, v4); });
  CHECK(e.first == ErrorKind::AssertionError);
  CHECK(e.second.rfind("jax_devices=[MockTpuDevice(id=0,", 0) == 0);
  CHECK(e.second.find(" dims=(4, 4, 1) cores_per_chip=1") != std::string::npos);
  e = errorOf([&] { makeMesh(Shape{4, 4}, {"x", "y"}, std::vector<AxisType>{AxisType::Auto}, v4); });
  CHECK(e.second ==
        "Number of axis names should match the number of axis_types. Got axis_names=('x', 'y') and axis_types=(Auto,)");
  e = errorOf([&] { makeMesh(PyValue::tuple({PyValue::none()}), {"x"}, std::nullopt, v4); });
  CHECK(e.second == "`axis_sizes` passed to `make_mesh` should be a sequence of ints. Got (None,)");
  // Multi-slice: v3 reaches the friendly error, v4 fails earlier on overlapping coordinates.
  e = errorOf([&] { makeMesh(Shape{16}, {"x"}, std::nullopt, makeDevices(parseTopology("v3:2x2:slices=2"))); });
  CHECK(e.first == ErrorKind::ValueError);
  CHECK(e.second == "`jax.make_mesh` does not support multi-slice topologies. Please use "
                    "jax.experimental.mesh_utils.create_hybrid_device_mesh");
  e = errorOf([&] { makeMesh(Shape{8}, {"x"}, std::nullopt, makeDevices(parseTopology("v4:2x2:slices=2"))); });
  CHECK(e.first == ErrorKind::AssertionError);
  e = errorOf([&] { makeMesh(Shape{16}, {"x"}, std::nullopt, makeDevices(parseTopology("h100:1x8:slices=2"))); });
  CHECK(e.first == ErrorKind::ValueError);
  CHECK(e.second.rfind("`jax.make_mesh` does not support multi-slice", 0) == 0);
  // A single slice of a multi-slice list is fine.
  CHECK(makeMesh(Shape{8}, {"x"}, std::nullopt, makeDevices(parseTopology("h100:1x8:slices=2"))).devices.size() == 8);
}

TEST_CASE("create_device_mesh: shape canonicalization and count errors", "[device_mesh][make_mesh]") {
  const DeviceList v4 = makeDevices(parseTopology("v4:2x2"));
  CHECK(createDeviceMesh(parsePyLiteral("('2', 2.0)"), v4).grid.shape() == Shape{2, 2});
  CHECK(createDeviceMesh(parsePyLiteral("(4.9, True)"), v4).grid.shape() == Shape{4, 1});
  auto e = errorOf([&] { createDeviceMesh(parsePyLiteral("((4,), 4)"), v4); });
  CHECK(e.second == "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got ((4,), 4)");
  e = errorOf([&] { createDeviceMesh(Shape{8}, v4); });
  CHECK(e.second == "Number of devices 4 must equal the product of mesh_shape (8,)");
  e = errorOf([&] { createDeviceMesh(Shape{0, 4}, v4); });
  CHECK(e.second == "Number of devices 4 must equal the product of mesh_shape (0, 4)");
  // Megacore: one device per chip on v4.
  const DeviceList twoCore = makeDevices(parseTopology("v4:2x2:cores=2"));
  e = errorOf([&] { createDeviceMesh(Shape{8}, twoCore); });
  CHECK(e.first == ErrorKind::AssertionError);
  CHECK(e.second == "Creating meshes for TPU >v3 requires one device per chip (\"megacore\" mode). Got device id 1 for "
                    "a device of kind TPU v4: "
                    "MockTpuDevice(id=1, platform='tpu', device_kind='TPU v4', process_index=0, coords=(0, 0, 0), "
                    "core_on_chip=1, slice_index=0).");
  // Contiguous submeshes: 4-D physical meshes are never in the table.
  e = errorOf([&] { createDeviceMesh(Shape{16}, makeDevices(parseTopology("v5p:2x2x2:cores=2")), {true, false}); });
  CHECK(e.second == "create_device_mesh cannot create contiguous submeshes for physical mesh topology (2, 2, 2, 2)");
}

TEST_CASE("make_mesh checks the rank against the names before the axis types", "[make_mesh]") {
  // Two axis sizes, one name, and one axis type: JAX's Mesh() rejects the rank first.
  const auto request = shardscope::Json::parse(R"({"op": "make_mesh", "device_kind": "cpu", "platform": "cpu",
    "devices": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}, {"id": 6}, {"id": 7}],
    "axis_sizes": [2, 4], "axis_names": ["dp"], "axis_types": ["Explicit"]})");
  const auto answer = shardscope::evalRequest(request);
  REQUIRE(answer["ok"] == false);
  CHECK(answer["error"]["message"].get<std::string>().rfind("Mesh requires the ndim of its first argument", 0) == 0);
}

TEST_CASE("create_device_mesh: a bad device between good corners still takes the exact path", "[device_mesh]") {
  // The corner-ordered placement trusts the first and last devices as the box; a device inside the
  // list that breaks the box must give the reference's error, not a placement.
  DeviceList v4 = makeDevices(parseTopology("v4:2x2"));
  REQUIRE(v4.size() == 4);
  REQUIRE(v4.front().coords == std::array<int, 3>{0, 0, 0});
  REQUIRE(v4.back().coords == std::array<int, 3>{1, 1, 0});
  // A second core on one chip: max(core_on_chip) + 1 = 2 cores per chip, so the 2x2x1 box holds
  // 2 * 2 * 1 * 2 = 8 cells for 4 devices and the cell-count assertion fires.
  DeviceList twoCore = v4;
  twoCore[1].core_on_chip = 1;
  auto e = errorOf([&] { createDeviceMesh(Shape{2, 2}, twoCore); });
  CHECK(e.first == ErrorKind::AssertionError);
  const std::string tail = " dims=(2, 2, 1) cores_per_chip=2";
  CHECK(e.second.size() > tail.size());
  CHECK(e.second.substr(e.second.size() - tail.size()) == tail);
  // A negative coordinate (the all-zero corner reads offsets as unsigned): x spans -1..1, three
  // rows, so the box holds 3 * 2 * 1 = 6 cells for 4 devices.
  DeviceList negative = v4;
  (*negative[2].coords)[0] = -1;
  e = errorOf([&] { createDeviceMesh(Shape{2, 2}, negative); });
  CHECK(e.first == ErrorKind::AssertionError);
  const std::string negTail = " dims=(3, 2, 1) cores_per_chip=1";
  CHECK(e.second.substr(e.second.size() - negTail.size()) == negTail);
  // The good list itself places on the fast path.
  CHECK(createDeviceMesh(Shape{2, 2}, v4).path == "nd_torus");
}
