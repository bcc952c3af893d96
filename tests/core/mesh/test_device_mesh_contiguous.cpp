// SPDX-License-Identifier: Apache-2.0
// contiguous_submeshes (jax-mesh-utils spec §3.3, §5 _local_mesh): with the transpose trick every host's devices
// form a contiguous sub-block of the logical mesh; without it, on the larger slices, they do not.
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace shardscope;

namespace {

// Every process's devices fill the hull of their logical indices exactly.
bool everyHostContiguous(const DeviceGrid& grid, const DeviceList& devices) {
  const Shape& shape = grid.shape();
  struct Hull {
    Shape lo, hi;
    std::int64_t count = 0;
  };
  std::map<int, Hull> hulls;
  Shape index(shape.size(), 0);
  for (std::size_t flat = 0; flat < grid.size(); ++flat) {
    Hull& h = hulls[devices[static_cast<std::size_t>(grid.data()[flat])].process_index];
    if (h.count++ == 0) h.lo = h.hi = index;
    for (std::size_t a = 0; a < shape.size(); ++a) {
      h.lo[a] = std::min(h.lo[a], index[a]);
      h.hi[a] = std::max(h.hi[a], index[a]);
    }
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++index[a] < shape[a]) break;
      index[a] = 0;
    }
  }
  for (const auto& [process, h] : hulls) {
    std::int64_t cells = 1;
    for (std::size_t a = 0; a < shape.size(); ++a) cells *= h.hi[a] - h.lo[a] + 1;
    if (cells != h.count) return false;
  }
  return true;
}

} // namespace

TEST_CASE("the transpose trick makes every host a contiguous sub-block", "[device_mesh][contiguous]") {
  struct Case {
    const char* topology;
    Shape mesh;
    bool contiguousWithout;
  };
  const Case cases[] = {{"v4:4x4x4", {16, 4}, false}, {"v4:4x8x8", {64, 4}, false},    {"v4:4x8x8", {4, 64}, false},
                        {"v4:8x8x8", {64, 8}, false}, {"v4:8x16x16", {256, 8}, false}, {"v4:8x16x16", {8, 256}, false},
                        {"v4:2x2x1", {2, 2}, true}};
  for (const Case& c : cases) {
    INFO(c.topology << " " << shapeRepr(c.mesh));
    const DeviceList devices = makeDevices(parseTopology(c.topology));
    const MeshPlacement with = createDeviceMesh(c.mesh, devices, {true, false});
    CHECK(everyHostContiguous(with.grid, devices));
    Shape padded{1, 1};
    padded.insert(padded.end(), c.mesh.begin(), c.mesh.end());
    padded.insert(padded.end(), {1, 1});
    CHECK(everyHostContiguous(createDeviceMesh(padded, devices, {true, false}).grid, devices));
    CHECK(everyHostContiguous(createDeviceMesh(c.mesh, devices).grid, devices) == c.contiguousWithout);
  }
}

TEST_CASE("contiguous submeshes refuse unknown topologies and shapes", "[device_mesh][contiguous]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x8"));
  CHECK_THROWS_WITH(createDeviceMesh(Shape{1, 16, 8}, devices, {true, false}),
                    "create_device_mesh cannot create contiguous submeshes for physical mesh topology (4, 4, 8)");
  const DeviceList big = makeDevices(parseTopology("v4:4x8x8"));
  CHECK_THROWS_WITH(
      createDeviceMesh(Shape{1, 128, 2}, big, {true, false}),
      "create_device_mesh cannot create contiguous submeshes for mesh_shape (1, 128, 2) and physical mesh topology "
      "(4, 8, 8). Available mesh_shapes: [(64, 4), (4, 64)]");
  // Handlers win: a v5e 2x2 ignores the flag (§9.6).
  const DeviceList v5e = makeDevices(parseTopology("v5e:2x2"));
  CHECK(createDeviceMesh(Shape{4}, v5e, {true, false}).path == "handler:_v5e_create_device_mesh");
}
