// SPDX-License-Identifier: Apache-2.0
// The device-kind handlers (jax-mesh-utils spec §3.1) and the registry, with expectations derived from the ring
// tables and coordinates rather than copied from JAX's outputs.
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdlib>

using namespace shardscope;

namespace {

std::vector<std::int64_t> ids(const MeshPlacement& p, const DeviceList& devices) {
  std::vector<std::int64_t> out;
  for (int pos : p.grid.data()) out.push_back(devices[static_cast<std::size_t>(pos)].id);
  return out;
}

// Adjacent on the chip grid (no wraparound): a ring step must move one chip along one axis.
bool neighbours(const Device& a, const Device& b) {
  int distance = 0;
  for (int k = 0; k < 3; ++k) distance += std::abs((*a.coords)[k] - (*b.coords)[k]);
  return distance == 1;
}

} // namespace

TEST_CASE("TPU v2/v3: the 8-device tray ring keeps both cores of a chip together", "[device_mesh][handlers]") {
  for (const char* chip : {"v2", "v3"}) {
    const DeviceList devices = makeDevices(parseTopology(std::string(chip) + ":2x2"));
    const MeshPlacement p = createDeviceMesh(Shape{8}, devices);
    CHECK(p.path == "handler:_tpu_v2_v3_create_device_mesh");
    const auto got = ids(p, devices);
    CHECK(got == std::vector<std::int64_t>{0, 1, 2, 3, 6, 7, 4, 5});
    // Chips visited: (0,0) (1,0) (1,1) (0,1), each with core 0 then core 1.
    for (std::size_t k = 0; k + 2 < 8; k += 2) {
      const Device& a = devices[static_cast<std::size_t>(p.grid.data()[k])];
      const Device& b = devices[static_cast<std::size_t>(p.grid.data()[k + 2])];
      CHECK(a.coords == devices[static_cast<std::size_t>(p.grid.data()[k + 1])].coords);
      CHECK(neighbours(a, b));
    }
  }
}

TEST_CASE("TPU v3: permutes list positions, so a reversed list gives a different mesh", "[device_mesh][handlers]") {
  DeviceList devices = makeDevices(parseTopology("v3:2x2"));
  std::reverse(devices.begin(), devices.end());
  const MeshPlacement p = createDeviceMesh(Shape{2, 4}, devices);
  // Position k of the result is list position ring[k]; the list holds ids 7..0.
  const int ring[] = {0, 1, 2, 3, 6, 7, 4, 5};
  std::vector<std::int64_t> want;
  for (int r : ring) want.push_back(7 - r);
  CHECK(ids(p, devices) == want);
  CHECK(p.grid.shape() == Shape{2, 4});
}

TEST_CASE("TPU v3: rings every group of 8 when the last axis is 8, else a plain reshape", "[device_mesh][handlers]") {
  const DeviceList devices = makeDevices(parseTopology("v3:4x4")); // 32 devices
  const MeshPlacement ringed = createDeviceMesh(Shape{4, 8}, devices);
  const int ring[] = {0, 1, 2, 3, 6, 7, 4, 5};
  for (int g = 0; g < 4; ++g)
    for (int k = 0; k < 8; ++k) CHECK(ringed.grid.data()[static_cast<std::size_t>(g * 8 + k)] == g * 8 + ring[k]);
  const MeshPlacement plain = createDeviceMesh(Shape{32}, devices);
  for (int k = 0; k < 32; ++k) CHECK(plain.grid.data()[static_cast<std::size_t>(k)] == k);
  CHECK(plain.path == "handler:_tpu_v2_v3_create_device_mesh");
  // Flags are ignored by the handler.
  CreateMeshOptions flags{true, true};
  CHECK(createDeviceMesh(Shape{32}, devices, flags).grid == plain.grid);
}

TEST_CASE("TPU v4 lite and TPU8i: the 2x2 ring in list order, larger slices fall through", "[device_mesh][handlers]") {
  for (const char* kind : {"TPU v4 lite", "TPU8i"}) {
    TopologySpec spec = parseTopology("v4:2x2");
    spec.device_kind_override = kind;
    const DeviceList devices = makeDevices(spec);
    const MeshPlacement p = createDeviceMesh(Shape{4}, devices);
    CHECK(p.path == "handler:_v4i_v8i_create_device_mesh");
    CHECK(ids(p, devices) == std::vector<std::int64_t>{0, 1, 3, 2});
    for (std::size_t k = 0; k < 4; ++k)
      CHECK(neighbours(devices[static_cast<std::size_t>(p.grid.data()[k])],
                       devices[static_cast<std::size_t>(p.grid.data()[(k + 1) % 4])]));
    spec.shape = {2, 2, 2};
    const DeviceList bigger = makeDevices(spec);
    CHECK(createDeviceMesh(Shape{8}, bigger).path == "nd_torus");
  }
  // Plain TPU v4 has no handler: (4,) on 2x2x1 is x-major, not a ring (§9.16).
  const DeviceList v4 = makeDevices(parseTopology("v4:2x2"));
  const MeshPlacement p = createDeviceMesh(Shape{4}, v4);
  CHECK(p.path == "nd_torus");
  CHECK(ids(p, v4) == std::vector<std::int64_t>{0, 2, 1, 3});
}

TEST_CASE("v5e/v6e: rings by coordinates, whatever the list order", "[device_mesh][handlers]") {
  for (const char* kind : {"TPU v5 lite", "TPU v5e", "TPU v6 lite"}) {
    INFO(kind);
    TopologySpec spec = parseTopology("v5e:4x4");
    spec.device_kind_override = kind;
    DeviceList devices = makeDevices(spec);
    std::reverse(devices.begin(), devices.end()); // order-insensitive: sorted by (z, y, x) first
    const MeshPlacement ring = createDeviceMesh(Shape{1, 16}, devices);
    CHECK(ring.path == "handler:_v5e_create_device_mesh");
    // ids are x + 4y, so the result is the 4x4 ring table itself.
    CHECK(ids(ring, devices) == std::vector<std::int64_t>{0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4});
    for (std::size_t k = 0; k < 16; ++k)
      CHECK(neighbours(devices[static_cast<std::size_t>(ring.grid.data()[k])],
                       devices[static_cast<std::size_t>(ring.grid.data()[(k + 1) % 16])]));
    // A 2-D mesh on 16 chips is not 1-D-like: the handler declines.
    CHECK(createDeviceMesh(Shape{4, 4}, devices).path == "nd_torus");
  }
  const DeviceList tray = makeDevices(parseTopology("v5e:4x2"));
  CHECK(ids(createDeviceMesh(Shape{8}, tray), tray) == std::vector<std::int64_t>{0, 1, 2, 3, 7, 6, 5, 4});
  // JAX's mock 2x2x2 "v5 lite" (no real v5e is 3-D): a 3-D chip's list under the v5e kind.
  const DeviceList cube = makeDevices(parseTopology("v5p:2x2x2:kind=TPU v5 lite"));
  CHECK(ids(createDeviceMesh(Shape{8}, cube), cube) == std::vector<std::int64_t>{0, 4, 2, 6, 1, 5, 3, 7});
  const DeviceList small = makeDevices(parseTopology("v5e:2x2"));
  CHECK(ids(createDeviceMesh(Shape{4}, small), small) == std::vector<std::int64_t>{0, 1, 3, 2});
  // Any 8 devices get the 4x2 "ring", even a 2x4 where it is not one (§9.2).
  const DeviceList tall = makeDevices(parseTopology("v5e:2x4:host=2x2"));
  const MeshPlacement notRing = createDeviceMesh(Shape{8}, tall);
  CHECK(notRing.path == "handler:_v5e_create_device_mesh");
  CHECK(ids(notRing, tall) == std::vector<std::int64_t>{0, 1, 2, 3, 7, 6, 5, 4});
  CHECK_FALSE(neighbours(tall[static_cast<std::size_t>(notRing.grid.data()[3])],
                         tall[static_cast<std::size_t>(notRing.grid.data()[4])]));
}

TEST_CASE("v5e: a 2x2 subslice away from the origin takes the torus path", "[device_mesh][handlers]") {
  const DeviceList all = makeDevices(parseTopology("v5e:4x4"));
  DeviceList sub;
  for (const Device& d : all)
    if ((*d.coords)[0] >= 2 && (*d.coords)[1] >= 2) sub.push_back(d);
  REQUIRE(sub.size() == 4);
  const MeshPlacement p = createDeviceMesh(Shape{4}, sub);
  CHECK(p.path == "nd_torus");
  CHECK(p.physical_shape == Shape{2, 2, 1});
  // x-major over the offset cuboid: (2,2) (2,3) (3,2) (3,3).
  CHECK(ids(p, sub) == std::vector<std::int64_t>{10, 14, 11, 15});
}

TEST_CASE("v5p: the 2x2x2 order for 8 chips, 2-core chips take the 4-D torus", "[device_mesh][handlers]") {
  for (const char* kind : {"TPU v5p", "TPU v5"}) {
    TopologySpec spec = parseTopology("v5p:2x2x2");
    spec.device_kind_override = kind;
    const DeviceList devices = makeDevices(spec);
    const MeshPlacement p = createDeviceMesh(Shape{8}, devices);
    CHECK(p.path == "handler:_v5p_create_device_mesh");
    CHECK(ids(p, devices) == std::vector<std::int64_t>{0, 1, 3, 2, 6, 7, 5, 4});
    for (std::size_t k = 0; k < 8; ++k)
      CHECK(neighbours(devices[static_cast<std::size_t>(p.grid.data()[k])],
                       devices[static_cast<std::size_t>(p.grid.data()[(k + 1) % 8])]));
  }
  const DeviceList twoCore = makeDevices(parseTopology("v5p:2x2x2:cores=2"));
  const MeshPlacement p = createDeviceMesh(Shape{16}, twoCore);
  CHECK(p.path == "nd_torus");
  CHECK(p.physical_shape == Shape{2, 2, 2, 2});
  // The core axis is last and least significant: the first two entries are one chip's cores.
  CHECK(twoCore[static_cast<std::size_t>(p.grid.data()[0])].coords ==
        twoCore[static_cast<std::size_t>(p.grid.data()[1])].coords);
  const DeviceList big = makeDevices(parseTopology("v5p:4x4x4"));
  CHECK(createDeviceMesh(Shape{16, 4}, big).path == "nd_torus");
}

TEST_CASE("TPU7x: rings blocks of 8 list positions up to 32 devices, else falls through", "[device_mesh][handlers]") {
  const DeviceList tray = makeDevices(parseTopology("7x:2x2x3")); // 24 devices, 2 cores each
  const MeshPlacement p = createDeviceMesh(Shape{3, 8}, tray);
  CHECK(p.path == "handler:_7x_create_device_mesh");
  const int ring[] = {0, 1, 2, 3, 6, 7, 4, 5};
  for (int g = 0; g < 3; ++g)
    for (int k = 0; k < 8; ++k) CHECK(p.grid.data()[static_cast<std::size_t>(g * 8 + k)] == g * 8 + ring[k]);
  const DeviceList wide = makeDevices(parseTopology("7x:2x4x4")); // 64 devices: too many
  CHECK(createDeviceMesh(Shape{4, 16}, wide).path == "nd_torus");
  const DeviceList single = makeDevices(parseTopology("7x:1x1x1")); // 2 devices: not a multiple of 8
  CHECK(createDeviceMesh(Shape{2}, single).path == "nd_torus");
}

TEST_CASE("the handler registry is mutable and consulted by the last device's kind", "[device_mesh][handlers]") {
  const DeviceList devices = makeDevices(parseTopology("v4:2x2x2"));
  registerDeviceMeshHandler("TPU v4",
                            {"reverse_all", [](const Shape& shape, const DeviceList& list, const CreateMeshOptions&) {
                               std::vector<int> order(list.size());
                               for (std::size_t k = 0; k < order.size(); ++k)
                                 order[k] = static_cast<int>(order.size() - 1 - k);
                               return std::optional<DeviceGrid>(
                                   DeviceGrid(Shape{static_cast<std::int64_t>(list.size())}, order).reshape(shape));
                             }});
  const MeshPlacement custom = createDeviceMesh(Shape{8}, devices);
  CHECK(custom.path == "handler:reverse_all");
  CHECK(custom.grid.data().front() == 7);
  // A handler that declines lets the generic path run.
  registerDeviceMeshHandler("TPU v4", {"decline", [](const Shape&, const DeviceList&, const CreateMeshOptions&) {
                                         return std::optional<DeviceGrid>();
                                       }});
  CHECK(createDeviceMesh(Shape{8}, devices).path == "nd_torus");
  CHECK(unregisterDeviceMeshHandler("TPU v4"));
  CHECK_FALSE(unregisterDeviceMeshHandler("TPU v4"));
  CHECK(findDeviceMeshHandler("TPU v4") == nullptr);
  CHECK(unregisterDeviceMeshHandler("TPU v3"));
  resetDeviceMeshHandlers();
  REQUIRE(findDeviceMeshHandler("TPU v3") != nullptr);
  CHECK(findDeviceMeshHandler("TPU v3")->name == "_tpu_v2_v3_create_device_mesh");
  const auto kinds = deviceMeshHandlerKinds();
  CHECK(kinds.size() == 11);
  CHECK(std::find(kinds.begin(), kinds.end(), "TPU v4") == kinds.end());
}
