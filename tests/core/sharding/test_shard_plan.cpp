// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/shard_plan.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("planShards: given specs, rules, correction and totals in one call", "[shard_plan]") {
  const MeshAxes mesh({"fsdp", "tp"}, {3, 4});
  const RuleSet rules(presetRules("fsdp-tp", {}, &mesh));
  const DType bf16 = parseDType("bf16");
  const std::vector<ShardParam> params = {
      {"model.layers.0.self_attn.q_proj.weight", {64, 48}, bf16, std::nullopt}, // rule: P('tp', 'fsdp')
      {"model.layers.0.mlp.down_proj.weight", {64, 128}, bf16, std::nullopt},   // rule: P('fsdp', 'tp'); 64 % 3 != 0
      {"extra", {10}, bf16, PartitionSpec::ofAxes({"tp"})},                     // given; 10 % 4 != 0
  };
  ShardPlanOptions options;
  options.rules = &rules;
  const ShardPlan plan = planShards(mesh, params, options);
  CHECK(plan.params[0].spec == PartitionSpec::ofAxes({"tp", "fsdp"}));
  CHECK(plan.params[0].layout.shard_shape == Shape{16, 16});
  CHECK(plan.params[1].requested == PartitionSpec::ofAxes({"fsdp", "tp"}));
  CHECK(plan.params[1].spec == PartitionSpec::ofAxes({"", "tp"}));
  CHECK(plan.params[1].layout.shard_shape == Shape{64, 32});
  CHECK(plan.params[1].diagnostics.at(0).kind == ShardingDiagnostic::Kind::NotDivisible);
  CHECK(plan.params[2].rule == -1);
  CHECK(plan.params[2].spec.empty());
  CHECK(plan.totals.padded_bytes == (16 * 16 + 64 * 32 + 10) * 2);
  CHECK(plan.totals.max_bytes == plan.totals.padded_bytes);
  CHECK(plan.totals.total_bytes == (64 * 48 + 64 * 128 + 10) * 2);

  // Without correction the same plan keeps the uneven dimension and pads it.
  options.correct = false;
  const ShardPlan raw = planShards(mesh, params, options);
  CHECK(raw.params[1].layout.uneven);
  CHECK(raw.params[1].layout.shard_shape == Shape{22, 32});
  CHECK(raw.totals.min_bytes < raw.totals.max_bytes); // the last fsdp block holds 20 rows, not 22
  options.allow_uneven = false;
  CHECK_THROWS_WITH(planShards(mesh, params, options),
                    Catch::StartsWith("parameter 'model.layers.0.mlp.down_proj.weight'"));

  options = {};
  CHECK_THROWS_WITH(planShards(mesh, params, options),
                    "parameter 'model.layers.0.self_attn.q_proj.weight' has no spec and no partition rules were given");
}
