// SPDX-License-Identifier: Apache-2.0
// eformer's shape-driven rules where they differ from the golden cases: the documented intent of
// the broken parts, and the diagnostics that flag silent outcomes.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/mesh_partition_helper.hpp"
#include "shardscope/sharding/sharding_rules.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
PartitionSpec js(const char* text) { return PartitionSpec::fromJson(Json::parse(text)); }
const MeshAxes m5({"dp", "fsdp", "ep", "tp", "sp"}, {2, 4, 1, 2, 1});
const MeshAxes dpTp({"dp", "tp"}, {2, 4});
} // namespace

TEST_CASE("AutoShardingRule defaults min_shard_size to the device count", "[sharding_rules]") {
  const AutoShardingRule rule(dpTp);
  CHECK(rule.minShardSize() == 8);
  // 4 elements < 8 devices: left whole; 8 elements: sharded.
  CHECK(rule.specFor({Shape{4}}, nullptr).empty());
  CHECK(rule.specFor({Shape{8}}, nullptr) == js("[\"dp\"]"));
  // Deterministic: axes in mesh order, largest dimension first.
  CHECK(rule.specFor({Shape{1024, 4096}}, nullptr) == js("[\"tp\", \"dp\"]"));
  CHECK(AutoShardingRule(dpTp, {"tp", "dp"}).specFor({Shape{1024, 4096}}, nullptr) == js("[\"dp\", \"tp\"]"));
  CHECK(AutoShardingRule(dpTp, {}, 0).minShardSize() == 8); // Python `0 or default`
  CHECK(AutoShardingRule(dpTp, {"dp"}, 1, true).specFor({Shape{3, 8}}, nullptr) == js("[null, \"dp\"]"));
  CHECK_THROWS_WITH(AutoShardingRule(dpTp, {"zz"}, 1).specFor({Shape{4}}, nullptr), "'zz'");
}

TEST_CASE("MemoryConstrainedShardingRule follows the reference and flags a missed limit", "[sharding_rules]") {
  const ArrayShape big{Shape{4096, 4096}, float32DType()};
  ShardingDiagnostics d;
  CHECK(MemoryConstrainedShardingRule(64 << 20, m5).specFor(big, &d).empty());
  CHECK(MemoryConstrainedShardingRule(16 << 20, m5).specFor(big, &d) == js("[\"fsdp\", null]"));
  CHECK(MemoryConstrainedShardingRule(8 << 20, m5).specFor(big, &d) == js("[\"fsdp\", \"dp\"]"));
  CHECK(d.empty());
  // 1 MiB cannot be reached with one axis per dimension: still 8 MiB, reported.
  CHECK(MemoryConstrainedShardingRule(1 << 20, m5).specFor(big, &d) == js("[\"fsdp\", \"dp\"]"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].kind == ShardingDiagnostic::Kind::OverMemoryLimit);
  CHECK(MemoryConstrainedShardingRule(10, m5).specFor({Shape{6, 10}}, nullptr) == js("[\"tp\", \"dp\"]"));
  CHECK(MemoryConstrainedShardingRule(10, dpTp).specFor({Shape{6, 10}}, nullptr) == js("[null, \"dp\"]"));
}

TEST_CASE("ShapeBased and Composite rules", "[sharding_rules]") {
  auto shape = std::make_shared<ShapeBasedShardingRule>(std::vector<std::pair<ShapePattern, PartitionSpec>>{
      {{std::nullopt, 1024}, js("[\"tp\", null]")}, {{1024, 1024}, js("[null, \"tp\"]")}});
  CHECK(shape->specFor({Shape{1024, 1024}}, nullptr) == js("[\"tp\", null]")); // first pattern wins
  CHECK(shape->specFor({Shape{1024}}, nullptr).empty());
  auto explicitNone = std::make_shared<ShapeBasedShardingRule>(
      std::vector<std::pair<ShapePattern, PartitionSpec>>{{{std::nullopt, std::nullopt}, js("[null, null]")}});
  auto autoRule = std::make_shared<AutoShardingRule>(dpTp, std::vector<std::string>{"tp"}, 1);
  const CompositeShardingRule composite({explicitNone, autoRule});
  std::vector<ShardingDiagnostics> d;
  const std::vector<ArrayShape> arrays = {{Shape{8, 8}}, {Shape{8}}};
  const auto specs = composite.apply(arrays, &d);
  CHECK(specs[0] == js("[null, null]")); // replicated but not P(): it wins (reference behaviour)
  CHECK(specs[1] == js("[\"tp\"]"));
  REQUIRE(d[0].size() == 1);
  CHECK(d[0][0].kind == ShardingDiagnostic::Kind::ReferenceBug);
  CHECK(d[1].empty());
}

TEST_CASE("ShardingAnalyzer validates tuple entries and estimates true per-device bytes", "[sharding_rules]") {
  const ShardingAnalyzer analyzer(dpTp);
  const std::vector<ArrayShape> arrays = {{Shape{1024, 4096}}, {Shape{6}}, {Shape{10, 8}}, {Shape{6, 8}}, {Shape{8}}};
  const std::vector<PartitionSpec> specs = {js("[\"dp\", \"tp\"]"), js("[\"tp\"]"), js("[\"tp\", null]"),
                                            js("[[\"dp\", \"tp\"]]"), js("[\"zz\", \"tp\"]")};
  const auto issues = analyzer.validatePartitionSpecs(arrays, specs);
  REQUIRE(issues.size() == 5);
  CHECK(issues[0] == "Array shape (6,) not divisible by mesh axis tp size 4");
  CHECK(issues[1] == "Array shape (10, 8) not divisible by mesh axis tp size 4");
  CHECK(issues[2] == "Array shape (6, 8) not divisible by mesh axis ('dp', 'tp') size 8");
  CHECK(issues[3] == "Array shape (8,) dimension 0: mesh axis zz is not in the mesh {'dp': 2, 'tp': 4}");
  CHECK(issues[4] ==
        "Array shape (8,) has no dimension 1 for mesh axis tp (spec P('zz', 'tp') is longer than the rank)");

  // The spec's example: w (1024, 4096) P('dp','tp'), b (6,) P('tp'), e (10, 8) P('tp', None), f32.
  const std::vector<ArrayShape> tree = {{Shape{1024, 4096}}, {Shape{6}}, {Shape{10, 8}}};
  const std::vector<PartitionSpec> treeSpecs = {js("[\"dp\", \"tp\"]"), js("[\"tp\"]"), js("[\"tp\", null]")};
  const MemoryUsage usage = analyzer.estimateMemoryUsage(tree, treeSpecs);
  CHECK(usage.total_size == (1024 * 4096 + 6 + 80) * 4);
  // w: (512, 1024) x 4 B; b: blocks of ceil(6/4) = 2 -> 8 B; e: blocks of 3 rows -> 3*8*4 = 96 B.
  CHECK(usage.size_per_device == 512 * 1024 * 4 + 8 + 96);
}

TEST_CASE("MeshPartitionHelper flags the fallback's unchecked divisibility", "[sharding_rules]") {
  const MeshPartitionHelper helper(m5);
  ShardingDiagnostics d;
  CHECK(helper.autoSpec({3, 5}, 1024, &d) == js("[\"fsdp\", \"sp\"]"));
  REQUIRE(d.size() == 1); // sp has size 1 and divides 5; fsdp=4 does not divide 3
  CHECK(d[0].kind == ShardingDiagnostic::Kind::ReferenceBug);
  CHECK(d[0].dim == 0);
  d.clear();
  CHECK(helper.autoSpec({1024, 4096}, 1024, &d) == js("[\"fsdp\", \"sp\"]"));
  CHECK(d.empty());
  const std::vector<Shape> shapes = {{4, 4}, {8}, {4, 4}};
  const auto analysis = helper.analyze(shapes);
  REQUIRE(analysis.size() == 2);
  CHECK(analysis[1].second == std::vector<ShardingMethod>{{"dp"}, {"tp"}, {"fsdp"}});
  CHECK_THROWS_WITH(helper.createPartitionSpec({4096}, {{"zz"}}), "'zz'");
}
