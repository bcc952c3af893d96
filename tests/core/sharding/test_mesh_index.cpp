// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/mesh_index.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
// A 2x3 mesh ("a", "b") over 6 devices placed in a scrambled order.
Mesh scrambledMesh() {
  Mesh m;
  for (int i = 0; i < 6; ++i)
    m.devices.push_back(Device{i, Platform::Cpu, "cpu", std::nullopt, std::nullopt, 0, std::nullopt});
  m.grid = DeviceGrid({2, 3}, {5, 3, 1, 0, 2, 4});
  m.axis_names = {"a", "b"};
  m.axis_types = {AxisType::Explicit, AxisType::Explicit};
  return m;
}
} // namespace

TEST_CASE("mesh index gives logical coordinates, groups and shards", "[sharding][mesh-index]") {
  const MeshIndex index(scrambledMesh());
  // Device 5 is at (0, 0), device 4 at (1, 2).
  CHECK(index.coordinate(5, 0) == 0);
  CHECK(index.coordinate(5, 1) == 0);
  CHECK(index.coordinate(4, 0) == 1);
  CHECK(index.coordinate(4, 1) == 2);
  // Along "b" the group of device 3 is its row: 5, 3, 1 in coordinate order.
  CHECK(index.groupMembers(3, 1) == std::vector<int>{5, 3, 1});
  // Along "a" the group of device 2 is its column: 3, 2.
  CHECK(index.groupMembers(2, 0) == std::vector<int>{3, 2});
  CHECK(index.groupCount(0) == 3);
  CHECK(index.groupId(3, 0) == index.groupId(2, 0));
  CHECK(index.groupId(3, 0) != index.groupId(5, 0));
  // P('b', None): three shards, by the coordinate along b.
  const PartitionSpec byB = PartitionSpec::parse("P('b', None)");
  CHECK(index.shardCount(byB) == 3);
  CHECK(index.shardId(1, byB) == 2);
  CHECK(index.shardId(4, byB) == 2);
  // P(('a', 'b')): six shards, a major.
  const PartitionSpec both = PartitionSpec::parse("P(('a', 'b'))");
  CHECK(index.shardId(4, both) == 5);
  CHECK(index.shardId(5, both) == 0);
}
