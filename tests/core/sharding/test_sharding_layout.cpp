// SPDX-License-Identifier: Apache-2.0
// Shard shapes, per-device index ranges and per-device totals, checked against expectations
// worked out by hand or by brute force over every device.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace shardscope;

namespace {
const DType f32 = float32DType();
PartitionSpec js(const char* text) { return PartitionSpec::fromJson(Json::parse(text)); }
MeshAxes dpTp() { return MeshAxes({"dp", "tp"}, {2, 4}); }
} // namespace

TEST_CASE("shard shapes and replication by hand", "[sharding]") {
  const MeshAxes mesh = dpTp();
  auto l = layoutArray(mesh, {8, 12}, f32, js("[\"dp\", \"tp\"]"));
  CHECK(l.shard_shape == Shape{4, 3});
  CHECK(l.replication == 1);
  CHECK(l.shard_bytes == 4 * 3 * 4);
  CHECK(l.total_bytes == 8 * 12 * 4);
  CHECK_FALSE(l.uneven);

  l = layoutArray(mesh, {16, 5}, f32, js("[[\"dp\", \"tp\"]]"));
  CHECK(l.shard_shape == Shape{2, 5});
  CHECK(l.shards == 8);
  CHECK(l.replication == 1);

  l = layoutArray(mesh, {8, 8}, f32, js("[\"tp\"]"));
  CHECK(l.shard_shape == Shape{2, 8});
  CHECK(l.replication == 2);
  CHECK(l.axis_used == std::vector<bool>{false, true});

  l = layoutArray(mesh, {3, 5}, f32, js("[]"));
  CHECK(l.shard_shape == Shape{3, 5});
  CHECK(l.replication == 8);

  l = layoutArray(mesh, {}, f32, js("[]"));
  CHECK(l.shard_elements == 1);
  CHECK(l.shard_bytes == 4);
}

TEST_CASE("block index puts the first listed axis major", "[sharding]") {
  const MeshAxes mesh = dpTp();
  // Device at dp=1, tp=2 is grid position 1*4 + 2 = 6.
  auto major = layoutArray(mesh, {8}, f32, js("[[\"dp\", \"tp\"]]"));
  CHECK(blockIndex(major, mesh, 6) == Shape{1 * 4 + 2});
  CHECK(deviceIndexRanges(major, mesh, 6) == std::vector<IndexRange>{{6, 7}});
  auto minor = layoutArray(mesh, {8}, f32, js("[[\"tp\", \"dp\"]]"));
  CHECK(blockIndex(minor, mesh, 6) == Shape{2 * 2 + 1});
  CHECK(deviceIndexRanges(minor, mesh, 6) == std::vector<IndexRange>{{5, 6}});
  // Unused axes do not move the block: dp=0 and dp=1 at tp=3 hold the same rows.
  auto tpOnly = layoutArray(mesh, {8, 2}, f32, js("[\"tp\"]"));
  CHECK(deviceIndexRanges(tpOnly, mesh, 3) == deviceIndexRanges(tpOnly, mesh, 7));
  CHECK(deviceIndexRanges(tpOnly, mesh, 3) == std::vector<IndexRange>{{6, 8}, {0, 2}});
  CHECK_THROWS_AS(blockIndex(tpOnly, mesh, 8), Error);
}

TEST_CASE("uneven dimensions use ceil-sized blocks with a short or empty tail", "[sharding]") {
  const MeshAxes mesh({"tp"}, {4});
  ShardingDiagnostics diags;
  LayoutOptions options;
  options.diagnostics = &diags;
  auto l = layoutArray(mesh, {10}, f32, js("[\"tp\"]"), options);
  CHECK(l.uneven);
  CHECK(l.shard_shape == Shape{3});
  CHECK(devicesIndicesMap(l, mesh) == std::vector<std::vector<IndexRange>>{{{0, 3}}, {{3, 6}}, {{6, 9}}, {{9, 10}}});
  REQUIRE(diags.size() == 1);
  CHECK(diags[0].kind == ShardingDiagnostic::Kind::UnevenShard);
  CHECK(diags[0].dim == 0);
  CHECK(diags[0].axis == "tp");

  // 5 over 4: blocks of 2, the last device holds nothing.
  auto e = layoutArray(mesh, {5}, f32, js("[\"tp\"]"));
  CHECK(devicesIndicesMap(e, mesh) == std::vector<std::vector<IndexRange>>{{{0, 2}}, {{2, 4}}, {{4, 5}}, {{5, 5}}});
  CHECK(heldElements(e, mesh, 3) == 0);
  CHECK(e.shard_bytes == 8); // every device still allocates the padded block
}

TEST_CASE("layout validation names the parameter, the dimension and the axis", "[sharding]") {
  const MeshAxes mesh = dpTp();
  LayoutOptions o;
  o.param = "w";
  CHECK_THROWS_WITH(layoutArray(mesh, {8, 8}, f32, js("[null, \"zz\"]"), o),
                    Catch::StartsWith("parameter 'w': dimension 1") && Catch::Contains("'zz'") &&
                        Catch::Contains("not in the mesh {'dp': 2, 'tp': 4}"));
  CHECK_THROWS_WITH(layoutArray(mesh, {8, 8}, f32, js("[\"dp\", \"dp\"]"), o),
                    Catch::Contains("mesh axis 'dp' is used twice") && Catch::Contains("dimensions 0 and 1"));
  CHECK_THROWS_WITH(layoutArray(mesh, {8}, f32, js("[[\"tp\", \"tp\"]]"), o), Catch::Contains("within dimension 0"));
  CHECK_THROWS_WITH(layoutArray(mesh, {8}, f32, js("[\"dp\", \"tp\"]"), o),
                    Catch::Contains("has 2 entries but the array has rank 1"));
  CHECK_THROWS_WITH(layoutArray(mesh, {8}, f32, js("[[\"dp\", null]]"), o), Catch::Contains("None inside the tuple"));
  o.allow_uneven = false;
  CHECK_THROWS_WITH(layoutArray(mesh, {6, 8}, f32, js("[\"tp\"]"), o),
                    Catch::Contains("dimension 0 (size 6) is not divisible by 'tp'(4) = 4"));
  CHECK_NOTHROW(layoutArray(mesh, {8, 8}, f32, js("[\"tp\"]"), o));
}

TEST_CASE("replica groups gather the devices that hold the same block", "[sharding]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 2});
  auto l = layoutArray(mesh, {4}, f32, js("[\"tp\"]"));
  // Positions: (dp0,tp0)=0, (dp0,tp1)=1, (dp1,tp0)=2, (dp1,tp1)=3.
  CHECK(replicaGroups(l, mesh) == std::vector<std::vector<std::int64_t>>{{0, 2}, {1, 3}});
  auto full = layoutArray(mesh, {4}, f32, js("[[\"dp\", \"tp\"]]"));
  CHECK(replicaGroups(full, mesh) == std::vector<std::vector<std::int64_t>>{{0}, {1}, {2}, {3}});
  auto rep = layoutArray(mesh, {4}, f32, js("[]"));
  CHECK(replicaGroups(rep, mesh) == std::vector<std::vector<std::int64_t>>{{0, 1, 2, 3}});
}

TEST_CASE("per-device totals equal a brute-force sum over every device", "[sharding]") {
  const MeshAxes mesh({"a", "b", "c"}, {3, 4, 5});
  const DType bf16 = parseDType("bfloat16");
  const DType i4 = parseDType("int4");
  std::vector<ArrayLayout> layouts = {
      layoutArray(mesh, {12, 7}, f32, js("[\"b\", \"a\"]")),           // dim 1 uneven over a
      layoutArray(mesh, {61}, bf16, js("[[\"c\", \"b\"]]")),           // 61 over 20: blocks of 4, tail 1, then empty
      layoutArray(mesh, {20, 20}, f32, js("[[\"a\", \"c\"], \"b\"]")), // 20 over 15 uneven, 20 over 4 even
      layoutArray(mesh, {9, 3}, i4, js("[\"a\"]")),                    // even, packed dtype
      layoutArray(mesh, {5, 5}, i4, js("[\"c\", \"b\"]")),             // uneven, packed: bytes per device round up
      layoutArray(mesh, {}, f32, js("[]")),
  };
  const DeviceTotals t = deviceTotals(mesh, layouts);
  REQUIRE(t.data_bytes.size() == 60);
  std::int64_t maxBytes = -1, minBytes = 1LL << 60;
  for (std::int64_t p = 0; p < 60; ++p) {
    std::int64_t bytes = 0, elems = 0;
    for (const auto& l : layouts) {
      const std::int64_t held = heldElements(l, mesh, p);
      elems += held;
      bytes += l.dtype.bytesFor(held);
    }
    INFO("position " << p);
    CHECK(t.data_bytes[static_cast<std::size_t>(p)] == bytes);
    CHECK(t.data_elements[static_cast<std::size_t>(p)] == elems);
    maxBytes = std::max(maxBytes, bytes);
    minBytes = std::min(minBytes, bytes);
  }
  CHECK(t.max_bytes == maxBytes);
  CHECK(t.min_bytes == minBytes);
  CHECK(t.data_bytes[static_cast<std::size_t>(t.argmax)] == maxBytes);
  std::int64_t padded = 0, total = 0;
  for (const auto& l : layouts) {
    padded += l.shard_bytes;
    total += l.total_bytes;
  }
  CHECK(t.padded_bytes == padded);
  CHECK(t.total_bytes == total);
}

TEST_CASE("every element is held replication times across the devices", "[sharding]") {
  const MeshAxes mesh({"x", "y"}, {3, 4});
  for (const char* spec : {"[\"x\"]", "[\"y\", \"x\"]", "[[\"y\", \"x\"]]", "[null, \"y\"]", "[]"}) {
    auto l = layoutArray(mesh, {10, 7}, f32, js(spec));
    std::int64_t sum = 0;
    for (std::int64_t p = 0; p < mesh.deviceCount(); ++p) sum += heldElements(l, mesh, p);
    INFO(spec);
    CHECK(sum == l.total_elements * l.replication);
    CHECK(l.replication * l.shards == mesh.deviceCount());
  }
}

TEST_CASE("DeviceTotalsBuilder counts repeated arrays", "[sharding]") {
  const MeshAxes mesh({"tp"}, {4});
  DeviceTotalsBuilder b(mesh);
  b.add(layoutArray(mesh, {8, 8}, f32, js("[\"tp\"]")), 10);
  b.add(layoutArray(mesh, {6}, f32, js("[\"tp\"]")), 2); // blocks 2,2,2,0
  const auto t = b.finish();
  CHECK(t.data_bytes == std::vector<std::int64_t>{10 * 64 + 2 * 8, 10 * 64 + 2 * 8, 10 * 64 + 2 * 8, 10 * 64});
  CHECK(t.argmax == 0);
  CHECK(t.argmin == 3);
  CHECK(t.padded_bytes == 10 * 64 + 2 * 8);
  CHECK(t.mean_bytes == Approx((3 * 656 + 640) / 4.0));
  CHECK_THROWS_AS(DeviceTotalsBuilder(MeshAxes({"a", "b"}, {1 << 14, 1 << 14})), Error);
}

TEST_CASE("mesh axes validate names and sizes", "[sharding]") {
  CHECK_THROWS_WITH(MeshAxes({"a", "a"}, {2, 2}), Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(MeshAxes({"a"}, {0}), Catch::Contains("at least 1"));
  // 2^32 x 2^32 wraps to 0 in 64 bits; it must be refused, not accepted as an empty mesh.
  CHECK_THROWS_WITH(MeshAxes({"a", "b"}, {std::int64_t{1} << 32, std::int64_t{1} << 32}),
                    Catch::Contains("more than 2^32"));
  CHECK_THROWS_WITH(MeshAxes::fromJson(Json::parse("[[\"a\", \"2\"]]")), Catch::Contains("mesh_axes[0]"));
  CHECK(MeshAxes::fromJson(Json::parse("[[\"a\", 2], [\"b\", 3]]")).deviceCount() == 6);
  CHECK(MeshAxes({"a", "b", "c"}, {2, 3, 4}).strides() == std::vector<std::int64_t>{12, 4, 1});
}
