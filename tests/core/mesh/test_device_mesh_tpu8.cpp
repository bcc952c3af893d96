// SPDX-License-Identifier: Apache-2.0
// create_device_mesh on the eighth-generation TPUs, as JAX's mesh_utils places them (jax-ml/jax at
// cec06d1): TPU8i's handler (_v4i_v8i_create_device_mesh: the 2x2 ring 0 -> 1 -> 3 -> 2 of any 4
// devices, in list order) and its 4-D (x, y, z, core) physical mesh; TPU8t with no handler, the
// generic 3-D torus path as TPU v4. Every expectation is one of the 18 worked cases derived from
// JAX's code and checked by running its own mesh_utils functions on the same device lists
// (the research notes' jax-tpu8.md §5, numbered as there).
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/mesh/device_mesh.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <numeric>

using namespace shardscope;

namespace {

std::vector<std::int64_t> ids(const MeshPlacement& p, const DeviceList& devices) {
  std::vector<std::int64_t> out;
  for (int pos : p.grid.data()) out.push_back(devices[static_cast<std::size_t>(pos)].id);
  return out;
}

// A TPU8i device list on hand-made 3-D coordinates, as JAX's tests build them: chips x-fastest in
// hosts of 2x2x1, both TensorCores of a chip in a row (jax-tpu8.md §4). Boardfly's own topology
// (8i:N) lays chips out as boards and groups instead; these are the cuboids JAX's cases use.
DeviceList tpu8i(const char* dims, int cores = 2) {
  return makeDevices(parseTopology(std::string("v5p:") + dims + ":cores=" + std::to_string(cores) + ":kind=TPU8i"));
}

std::string errorOf(const Shape& shape, const DeviceList& devices, CreateMeshOptions options = {}) {
  try {
    createDeviceMesh(shape, devices, options);
  } catch (const Error& e) {
    return std::string(errorKindName(e.kind())) + ": " + e.what();
  }
  return "no error";
}

} // namespace

TEST_CASE("TPU8i: the handler rings any 4 devices in list order (cases 5.1-5.3, 5.12)", "[device_mesh][tpu8]") {
  const DeviceList two = tpu8i("2x1x1"); // 2 chips x 2 TensorCores
  REQUIRE(two.size() == 4);
  const MeshPlacement p = createDeviceMesh(Shape{4}, two);
  CHECK(p.path == "handler:_v4i_v8i_create_device_mesh");
  CHECK(ids(p, two) == std::vector<std::int64_t>{0, 1, 3, 2}); // 5.1
  const MeshPlacement square = createDeviceMesh(Shape{2, 2}, two);
  CHECK(square.grid.shape() == Shape{2, 2});
  CHECK(ids(square, two) == std::vector<std::int64_t>{0, 1, 3, 2}); // 5.2: [[0, 1], [3, 2]]
  DeviceList reversed = two;
  std::reverse(reversed.begin(), reversed.end());
  CHECK(ids(createDeviceMesh(Shape{4}, reversed), reversed) == std::vector<std::int64_t>{3, 2, 0, 1}); // 5.3
  // 5.12: any 4 devices, coordinates unseen: four 1-core chips (0,0) (1,0) (1,1) (0,1).
  const DeviceList chips = tpu8i("2x2x1", 1);
  CHECK(ids(createDeviceMesh(Shape{4}, chips), chips) == std::vector<std::int64_t>{0, 1, 3, 2});
  // Boardfly's own two chips (8i:2, two TensorCores each by default) are the same 4-device case.
  const DeviceList boardfly = makeDevices(parseTopology("8i:2"));
  REQUIRE(boardfly.size() == 4);
  const MeshPlacement b = createDeviceMesh(Shape{4}, boardfly);
  CHECK(b.path == "handler:_v4i_v8i_create_device_mesh");
  CHECK(ids(b, boardfly) == std::vector<std::int64_t>{0, 1, 3, 2});
}

TEST_CASE("TPU8i: other sizes take the 4-D (x, y, z, core) torus path (cases 5.4-5.9)", "[device_mesh][tpu8]") {
  // 5.4: one chip's two TensorCores.
  const DeviceList one = tpu8i("1x1x1");
  const MeshPlacement single = createDeviceMesh(Shape{2}, one);
  CHECK(single.path == "nd_torus");
  CHECK(single.physical_shape == Shape{1, 1, 1, 2});
  CHECK(ids(single, one) == std::vector<std::int64_t>{0, 1});
  const DeviceList chip = makeDevices(parseTopology("8i:1")); // Boardfly's single chip: the same two devices
  CHECK(ids(createDeviceMesh(Shape{2}, chip), chip) == std::vector<std::int64_t>{0, 1});

  const DeviceList d = tpu8i("2x2x1"); // ids 0..7 = (0,0)c0 (0,0)c1 (1,0)c0 (1,0)c1 (0,1)c0 ...
  REQUIRE(d.size() == 8);
  const MeshPlacement flat = createDeviceMesh(Shape{8}, d);
  CHECK(flat.path == "nd_torus");
  CHECK(flat.physical_shape == Shape{2, 2, 1, 2});
  CHECK(ids(flat, d) == std::vector<std::int64_t>{0, 1, 4, 5, 2, 3, 6, 7}); // 5.5
  // 5.6: the axis of 4 takes (x, y, z); the axis of 2 the core: rows are cores.
  CHECK(ids(createDeviceMesh(Shape{2, 4}, d), d) == std::vector<std::int64_t>{0, 4, 2, 6, 1, 5, 3, 7});
  // 5.7: the axis of 2 takes (x, z); the axis of 4 (y, core).
  CHECK(ids(createDeviceMesh(Shape{4, 2}, d), d) == std::vector<std::int64_t>{0, 2, 1, 3, 4, 6, 5, 7});
  // 5.8: axis 2 -> (x, z), axis 1 -> y, axis 0 -> core.
  CHECK(ids(createDeviceMesh(Shape{2, 2, 2}, d), d) == std::vector<std::int64_t>{0, 2, 4, 6, 1, 3, 5, 7});
  // 5.9: 2x2x2 chips, 16 devices: axis 1 -> (x, y), axis 0 -> (z, core).
  const DeviceList cube = tpu8i("2x2x2");
  REQUIRE(cube.size() == 16);
  const MeshPlacement square = createDeviceMesh(Shape{4, 4}, cube);
  CHECK(square.physical_shape == Shape{2, 2, 2, 2});
  CHECK(ids(square, cube) == std::vector<std::int64_t>{0, 4, 2, 6, 1, 5, 3, 7, 8, 12, 10, 14, 9, 13, 11, 15});
}

TEST_CASE("TPU8i: JAX's errors (cases 5.10, 5.11)", "[device_mesh][tpu8]") {
  // 5.10: no transpose trick for a 4-D physical mesh.
  CHECK(errorOf(Shape{8}, tpu8i("2x2x1"), {true, false}) ==
        "ValueError: create_device_mesh cannot create contiguous submeshes for physical mesh topology (2, 2, 1, 2)");
  // 5.11: the size check comes first.
  CHECK(errorOf(Shape{3}, tpu8i("2x1x1")) ==
        "ValueError: Number of devices 4 must equal the product of mesh_shape (3,)");
}

TEST_CASE("TPU8t: no handler, the 3-D torus path as TPU v4 (cases 5.13-5.18)", "[device_mesh][tpu8]") {
  CHECK(findDeviceMeshHandler("TPU8t") == nullptr);            // JAX's registry has no TPU8t entry
  const DeviceList d = makeDevices(parseTopology("8t:2x2x2")); // two hosts of 2x2x1, one core per chip
  REQUIRE(d.size() == 8);
  CHECK(d[0].device_kind == "TPU8t");
  const MeshPlacement flat = createDeviceMesh(Shape{8}, d);
  CHECK(flat.path == "nd_torus");
  CHECK(flat.physical_shape == Shape{2, 2, 2});
  CHECK(ids(flat, d) == std::vector<std::int64_t>{0, 4, 2, 6, 1, 5, 3, 7});                             // 5.13
  CHECK(ids(createDeviceMesh(Shape{2, 4}, d), d) == std::vector<std::int64_t>{0, 2, 1, 3, 4, 6, 5, 7}); // 5.14
  const DeviceList tray = makeDevices(parseTopology("8t:2x2x1"));
  CHECK(ids(createDeviceMesh(Shape{4}, tray), tray) == std::vector<std::int64_t>{0, 2, 1, 3}); // 5.15: not a ring
  // 5.16: a hand-made two-core 8t meets the megacore assertion (JAX prints the core as "device id").
  CHECK(errorOf(Shape{8}, makeDevices(parseTopology("8t:2x2x1:cores=2")))
            .rfind("AssertionError: Creating meshes for TPU >v3 requires one device per chip (\"megacore\" mode). Got "
                   "device id 1 for a device of kind TPU8t: ",
                   0) == 0);
  // 5.17: 8 is no product of {4, 4, 4}.
  const DeviceList pod = makeDevices(parseTopology("8t:4x4x4"));
  CHECK(errorOf(Shape{8, 8}, pod)
            .rfind("NotImplementedError: Failed to find assignment for logical_axis_index 1 of size 8 with remaining "
                   "assignable mesh [4, 4, 4].",
                   0) == 0);
  // 5.18: the contiguous-submesh transpose (0, 2, 1) of a 4x4x4: rows of 4 consecutive ids.
  std::vector<std::int64_t> iota(64);
  std::iota(iota.begin(), iota.end(), 0);
  CHECK(ids(createDeviceMesh(Shape{16, 4}, pod, {true, false}), pod) == iota);
  // For comparison, TPU7x's handler rings blocks of 8.
  const DeviceList x7 = makeDevices(parseTopology("7x:2x2x1"));
  CHECK(ids(createDeviceMesh(Shape{8}, x7), x7) == std::vector<std::int64_t>{0, 1, 2, 3, 6, 7, 4, 5});
}

TEST_CASE("TPU8i on Boardfly coordinates: JAX's torus heuristic over (chip, board, group, core)",
          "[device_mesh][tpu8]") {
  // One board's 4 chips x 2 TensorCores: physical (4, 1, 1, 2); one axis of 8 takes x and the core,
  // core fastest: the list order.
  const DeviceList board = makeDevices(parseTopology("8i:4"));
  const MeshPlacement p = createDeviceMesh(Shape{8}, board);
  CHECK(p.path == "nd_torus");
  CHECK(p.physical_shape == Shape{4, 1, 1, 2});
  CHECK(ids(p, board) == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5, 6, 7});
  // The 1,024-chip system is a 4x8x32 cuboid of 2-core chips to JAX: (64, 32) places.
  const DeviceList pod = makeDevices(parseTopology("8i:1024"));
  const MeshPlacement big = createDeviceMesh(Shape{64, 32}, pod);
  CHECK(big.physical_shape == Shape{4, 8, 32, 2});
  CHECK(big.grid.shape() == Shape{64, 32});
}
