// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "views/mesh_index.hpp"
#include "models/spec_text.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

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

TEST_CASE("mesh index gives logical coordinates, groups and shards", "[ui][mesh-index]") {
  test::app();
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
  const std::vector<std::vector<std::string>> byB{{"b"}, {}};
  CHECK(index.shardCount(byB) == 3);
  CHECK(index.shardId(1, byB) == 2);
  CHECK(index.shardId(4, byB) == 2);
  // P(('a', 'b')): six shards, a major.
  const std::vector<std::vector<std::string>> both{{"a", "b"}};
  CHECK(index.shardId(4, both) == 5);
  CHECK(index.shardId(5, both) == 0);
}

TEST_CASE("partition spec text reads and writes", "[ui][spec]") {
  test::app();
  CHECK(specAxes("P('fsdp', None, ('tp', 'sp'))") == std::vector<std::vector<std::string>>{{"fsdp"}, {}, {"tp", "sp"}});
  CHECK(specAxes("P()").empty());
  CHECK(specAxes("garbage").empty());
  std::string error;
  auto j = specJsonFromText("fsdp, None, (tp, sp)", &error);
  REQUIRE(j);
  CHECK(j->dump() == R"(["fsdp",null,["tp","sp"]])");
  j = specJsonFromText("P('fsdp', 'tp')", &error);
  REQUIRE(j);
  CHECK(j->dump() == R"(["fsdp","tp"])");
  CHECK(specTextFromJson(*j) == "P('fsdp', 'tp')");
  CHECK(specTextFromJson(Json::parse(R"([null, ["a"]])")) == "P(None, ('a',))");
  CHECK_FALSE(specJsonFromText("P('fsdp'", &error));
  CHECK_FALSE(specJsonFromText("fsdp, , tp", &error));
  CHECK(error.find("empty") != std::string::npos);
  CHECK_FALSE(specJsonFromText("((a))", &error));
  CHECK_FALSE(specJsonFromText("a; b", &error));
}
