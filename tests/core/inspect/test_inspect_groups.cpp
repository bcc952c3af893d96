// SPDX-License-Identifier: Apache-2.0
// The pieces under the inspect readers: HLO shapes and TPU tile padding, replica groups in both
// forms, which mesh axes a group set spans, Shardy sharding attributes. Worked examples from XLA's
// and Shardy's tests and from the padded sizes of real reports (docs/inspect.md).
#include "inspect_test_util.hpp"

#include "shardscope/inspect/collective_axes.hpp"
#include "shardscope/inspect/hlo_shape.hpp"
#include "shardscope/inspect/replica_groups.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"
#include "shardscope/inspect/sharding_text.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::inspect_test;

TEST_CASE("inspect shapes: TPU tiles pad the minor physical dimensions") {
  // 4 -> 128 and 8 stays 8: 8,388,608 x 8 x 128 x 4 bytes = 32 GiB (a report printed "32.00G").
  const HloShape a = parseHloShape("s32[8388608,8,4]{2,1,0:T(8,128)}");
  CHECK(a.array.bytes() == 1073741824);
  CHECK(a.array.paddedBytes() == 34359738368);
  // 352 -> 384 on the minor dimension: 384 MiB.
  CHECK(parseHloShape("bf16[128,4096,352]{2,1,0:T(16,128)(2,1)}").array.paddedBytes() == 402653184);
  // minor_to_major {1,2,0}: the minor dimensions are 1 and 2 (4096 each): no padding.
  CHECK(parseHloShape("f32[32,4096,4096]{1,2,0:T(8,128)}").array.paddedBytes() == 2147483648);
  // 1 -> 2 under T(2,128).
  CHECK(parseHloShape("f32[29184,1,2560]{2,1,0:T(2,128)}").array.paddedBytes() == 597688320);
  const HloShape t = parseHloShape("(f32[2], (s32[], bf16[4,4]{1,0:S(1)}))");
  REQUIRE(t.is_tuple);
  CHECK(t.leaves().size() == 3);
  CHECK(t.leaves()[2]->memory_space == 1);
  CHECK(parseHloShape("s4[3]").array.bytes() == 2); // packed, rounded up
  CHECK_THROWS_WITH(parseHloShape("f32[8"), Catch::StartsWith("HLO shape:1:"));
}

TEST_CASE("inspect groups: the iota form expands as XLA's replica_group_test") {
  const DeviceGroups g = parseReplicaGroups("[2,10]<=[4,5]T(1,0)");
  CHECK(g.group_size == 10);
  CHECK(g.ids == std::vector<std::int64_t>{0, 5, 10, 15, 1, 6, 11, 16, 2, 7, 12, 17, 3, 8, 13, 18, 4, 9, 14, 19});
  CHECK(parseReplicaGroups("[1, 64]<=[64]").group_size == 64);
  const DeviceGroups e = parseReplicaGroups("{{0,1},{2,3}}");
  CHECK(e.groupCount() == 2);
  CHECK(parseReplicaGroups("{}").all_devices);
  CHECK_THROWS(parseReplicaGroups("[2,3]<=[4]"));
  CHECK_THROWS(parseReplicaGroups("{{0,1},{2"));
  const auto pairs = parseSourceTargetPairs("{{0,1},{1,2}}");
  REQUIRE(pairs.size() == 2);
  CHECK(pairs[1] == SourceTargetPair{1, 2});
}

TEST_CASE("inspect groups: the mesh axes groups span, whole axes only") {
  const InspectMesh mesh = meshOf({"data", "model"}, {2, 4});
  const auto axesOf = [&](const std::string& text) {
    return spannedAxes(spanOfGroups(parseReplicaGroups(text), mesh), mesh);
  };
  CHECK(axesOf("{{0,1,2,3},{4,5,6,7}}") == Axes{{"model"}});
  CHECK(axesOf("[4,2]<=[2,4]T(1,0)") == Axes{{"data"}}); // {0,4},{1,5},{2,6},{3,7}
  CHECK(axesOf("{}") == Axes{{"data", "model"}});
  CHECK(axesOf("[1,8]<=[8]") == Axes{{"data", "model"}});
  // {0,1},{2,3},..: the minor half of model, a sub-axis: never "model".
  const GroupSpan half = spanOfGroups(parseReplicaGroups("{{0,1},{2,3},{4,5},{6,7}}"), mesh);
  CHECK(half.fit == GroupSpan::Fit::SubAxes);
  CHECK_FALSE(spannedAxes(half, mesh));
  REQUIRE(half.parts.size() == 1);
  CHECK(meshAxisPartName(mesh, half.parts[0]) == "model:(2)2");
}

TEST_CASE("inspect groups: sub-axes of one axis as XLA's MaterializedReplicaGroupsMatchExpectedV2") {
  const InspectMesh mesh = meshOf({"a"}, {8});
  const auto partsOf = [&](const std::string& text) {
    std::vector<std::string> names;
    for (const auto& p : spanOfGroups(parseReplicaGroups(text), mesh).parts) names.push_back(meshAxisPartName(mesh, p));
    return names;
  };
  CHECK(partsOf("[4,2]<=[2,4]T(1,0)") == std::vector<std::string>{"a:(1)2"});
  CHECK(partsOf("[2,4]<=[4,2]T(1,0)") == std::vector<std::string>{"a:(1)4"});
  CHECK(partsOf("[4,2]<=[2,2,2]T(0,2,1)") == std::vector<std::string>{"a:(2)2"});
  CHECK(partsOf("[2,4]<=[8]") == std::vector<std::string>{"a:(2)4"});
  CHECK(partsOf("[4,2]<=[8]") == std::vector<std::string>{"a:(4)2"});
}

TEST_CASE("inspect groups: a device order that fits another order of the axes is named") {
  // On a=2, b=3 (d = 3a + b) the groups {0,2,4},{1,3,5} fit no order: group 0 holds (0,0), (0,2),
  // (1,1). Read with b major (d = 2b + a) they are the groups along b.
  const InspectMesh mesh = meshOf({"a", "b"}, {2, 3});
  const DeviceGroups g = parseReplicaGroups("{{0,2,4},{1,3,5}}");
  CHECK(spanOfGroups(g, mesh).fit == GroupSpan::Fit::NoFit);
  const auto order = fittingAxisOrder(g, mesh);
  REQUIRE(order);
  CHECK(*order == std::vector<std::size_t>{1, 0});
  // {0,2,4,6},{1,3,5,7} on data=2, model=4 (d = 4 data + model) is data with the major half of model.
  const InspectMesh dm = meshOf({"data", "model"}, {2, 4});
  const GroupSpan half = spanOfGroups(parseReplicaGroups("{{0,2,4,6},{1,3,5,7}}"), dm);
  CHECK(half.fit == GroupSpan::Fit::SubAxes);
  std::vector<std::string> names;
  for (const auto& p : half.parts) names.push_back(meshAxisPartName(dm, p));
  CHECK(names == std::vector<std::string>{"data", "model:(1)2"});
}

TEST_CASE("inspect sdy: a Shardy sharding placed on its mesh") {
  const InspectMesh mesh = parseSdyMesh(R"(<["a"=4, "b"=2]>)");
  CHECK(mesh.deviceCount() == 8);
  // Shardy's dim_sharding_with_full_axis_between_sub_axes: {"a":(1)2, "b", "a":(2)2} cuts 8 rows 8 ways.
  const SdySharding s = parseSdySharding(R"(#sdy.sharding<@bar, [{"a":(1)2, "b", "a":(2)2}, {}]>)");
  const SdyPlacement p = sdyPlacement(s, mesh, {8, 8});
  CHECK(p.local_shape == Shape{1, 8});
  CHECK(p.spec == std::vector<std::vector<std::string>>{{"a:(1)2", "b", "a:(2)2"}, {}});
  CHECK(p.replicated_axes.empty());
  const SdySharding open = parseSdySharding(R"(<@m, [{"a", ?}p1, {?}], replicated={"b"}>)");
  CHECK(open.dims[0].open);
  CHECK(open.dims[0].priority == 1);
  CHECK(open.dims[1].open);
  CHECK_THROWS_WITH(parseSdySharding(R"(<@m, [{"a"}p01]>)"), Catch::Contains("Shardy sharding:1:"));
  CHECK_THROWS(sdyPlacement(parseSdySharding(R"(<@m, [{"c"}]>)"), mesh, {8}));
}

TEST_CASE("inspect sharding text: as it stands in a dump, and Shardy's on a mesh") {
  CHECK(hloShardingTextOf("sharding={devices=[2,1]0,1}, metadata={op_name=\"x\"}", nullptr) == "{devices=[2,1]0,1}");
  // The iota form's "<=" is no bracket: the metadata after it is still cut.
  CHECK(hloShardingTextOf("sharding={devices=[4,2]<=[2,4]T(1,0)}, metadata={op_name=\"x\"}", nullptr) ==
        "{devices=[4,2]<=[2,4]T(1,0)}");
  CHECK(hloShardingTextOf("\"{devices=[4,2]<=[8]}\"", nullptr) == "{devices=[4,2]<=[8]}");
  CHECK(hloShardingTextOf("mhlo.sharding = \"{replicated}\"", nullptr) == "{replicated}");
  CHECK_THROWS_WITH(hloShardingTextOf("#sdy.sharding<@mesh, [{\"data\"}, {}]>", nullptr), Catch::Contains("mesh"));
  const InspectMesh mesh = meshOf({"data", "model"}, {4, 2});
  // data cuts rows 4 ways, model (left) replicates: device d = 2 data + model, so the tile
  // assignment is iota(8) in shape [4,1,2]: jax's {devices=[4,1,2]<=[8] last_tile_dim_replicate}.
  CHECK(hloShardingTextOf("#sdy.sharding<@mesh, [{\"data\"}, {}]>", &mesh) ==
        "{devices=[4,1,2]0,1,2,3,4,5,6,7 last_tile_dim_replicate}");
  // model cuts rows, data columns: tile (m, d) holds device 2d + m.
  CHECK(hloShardingTextOf("<@mesh, [{\"model\"}, {\"data\"}]>", &mesh) == "{devices=[2,4]0,2,4,6,1,3,5,7}");
  CHECK(hloShardingTextOf("<@mesh, [], replicated={\"data\"}>", &mesh) == "{replicated}");
  // x:(2)2 is the minor factor of x=4: devices 0 and 2 hold block 0, 1 and 3 block 1.
  const InspectMesh x = meshOf({"x"}, {4});
  CHECK(hloShardingTextOf("<@mesh, [{\"x\":(2)2}]>", &x) == "{devices=[2,2]0,2,1,3 last_tile_dim_replicate}");
  CHECK_THROWS(hloShardingTextOf("<@mesh, [{\"y\"}]>", &x));
  CHECK_THROWS(hloShardingTextOf("<@mesh, [{\"x\"}, {\"x\"}]>", &x));
}
