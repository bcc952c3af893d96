// SPDX-License-Identifier: Apache-2.0
// planShards plans each distinct (rule, shape, dtype) once and shares the result; these tests
// check that the shared plans are exactly what planning every parameter on its own gives.
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/shard_plan.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

void checkSamePlan(const PlannedParam& a, const PlannedParam& b) {
  CHECK(a.rule == b.rule);
  CHECK(a.requested == b.requested);
  CHECK(a.spec == b.spec);
  CHECK(a.layout.shape == b.layout.shape);
  CHECK(a.layout.dtype == b.layout.dtype);
  CHECK(a.layout.shard_shape == b.layout.shard_shape);
  CHECK(a.layout.shard_bytes == b.layout.shard_bytes);
  CHECK(a.layout.total_bytes == b.layout.total_bytes);
  CHECK(a.layout.replication == b.layout.replication);
  CHECK(a.layout.uneven == b.layout.uneven);
  CHECK(a.layout.axis_used == b.layout.axis_used);
  REQUIRE(a.layout.dims.size() == b.layout.dims.size());
  for (std::size_t d = 0; d < a.layout.dims.size(); ++d) {
    CHECK(a.layout.dims[d].axes == b.layout.dims[d].axes);
    CHECK(a.layout.dims[d].chunk == b.layout.dims[d].chunk);
  }
  REQUIRE(a.diagnostics.size() == b.diagnostics.size());
  for (std::size_t k = 0; k < a.diagnostics.size(); ++k) {
    CHECK(a.diagnostics[k].kind == b.diagnostics[k].kind);
    CHECK(a.diagnostics[k].dim == b.diagnostics[k].dim);
    CHECK(a.diagnostics[k].axis == b.diagnostics[k].axis);
    CHECK(a.diagnostics[k].message == b.diagnostics[k].message);
  }
}

std::vector<ShardParam> modelParams(const std::string& preset, std::size_t limit) {
  const Model model = loadPresetModel(preset);
  std::vector<ShardParam> params;
  const DType bf16 = parseDType("bf16");
  for (const auto& p : model.params) {
    if (params.size() == limit) break;
    params.push_back({p.path, p.shape, bf16, std::nullopt});
  }
  return params;
}

// The whole batch against one planShards call per parameter, with and without correction (the
// 6-way fsdp axis divides neither 4096 nor 7168: NotDivisible notes, or padded uneven shards).
void checkAgainstSingles(const std::vector<ShardParam>& params) {
  const MeshAxes mesh({"fsdp", "tp"}, {6, 4});
  const RuleSet rules(presetRules("fsdp-tp", {}, &mesh));
  for (const bool correct : {true, false}) {
    INFO("correct = " << correct);
    ShardPlanOptions options;
    options.rules = &rules;
    options.correct = correct;
    const ShardPlan batch = planShards(mesh, params, options);
    REQUIRE(batch.params.size() == params.size());
    DeviceTotalsBuilder totals(mesh);
    std::size_t withNotes = 0;
    for (std::size_t i = 0; i < params.size(); ++i) {
      INFO(params[i].path);
      const ShardPlan single = planShards(mesh, std::span<const ShardParam>(&params[i], 1), options);
      checkSamePlan(batch.params[i], single.params[0]);
      totals.add(single.params[0].layout);
      withNotes += single.params[0].diagnostics.empty() ? 0 : 1;
    }
    CHECK(withNotes > 0); // the comparison covers the diagnostics too
    const DeviceTotals expected = totals.finish();
    CHECK(batch.totals.data_bytes == expected.data_bytes);
    CHECK(batch.totals.padded_bytes == expected.padded_bytes);
    CHECK(batch.totals.total_bytes == expected.total_bytes);
    CHECK(batch.totals.max_bytes == expected.max_bytes);
    CHECK(batch.totals.min_bytes == expected.min_bytes);
  }
}

} // namespace

TEST_CASE("grouped planning equals planning each parameter alone: mixtral-8x7b", "[shard_plan]") {
  checkAgainstSingles(modelParams("mixtral-8x7b", 100000));
}

TEST_CASE("grouped planning equals planning each parameter alone: deepseek-v3 (first 4 layers)", "[shard_plan]") {
  // 3 dense layers then MoE layers of 256 experts: the first 2500 tensors reach into layer 4.
  checkAgainstSingles(modelParams("deepseek-v3", 2500));
}

TEST_CASE("planShardGroups shares one plan per distinct rule, shape and dtype", "[shard_plan]") {
  const MeshAxes mesh({"fsdp", "tp"}, {2, 4});
  const RuleSet rules(presetRules("fsdp-tp", {}, &mesh));
  const DType bf16 = parseDType("bf16"), f32 = parseDType("f32");
  const Shape big{64, 32}, other{32, 64}, scalar{};
  const PartitionSpec given = PartitionSpec::ofAxes({"tp"});
  const std::vector<ShardParamRef> params = {
      {"model.layers.0.mlp.experts.0.up_proj.weight", &big, &bf16, nullptr},
      {"model.layers.7.mlp.experts.12.up_proj.weight", &big, &bf16, nullptr},   // same group as 0
      {"model.layers.7.mlp.experts.12.down_proj.weight", &big, &bf16, nullptr}, // another rule
      {"model.layers.7.mlp.experts.13.up_proj.weight", &other, &bf16, nullptr}, // another shape
      {"model.layers.7.mlp.experts.14.up_proj.weight", &big, &f32, nullptr},    // another dtype
      {"x", &big, &bf16, &given},
      {"y", &big, &bf16, &given}, // an equal given spec: same group as x
      {"scale", &scalar, &bf16, nullptr},
  };
  ShardPlanOptions options;
  options.rules = &rules;
  const ShardGroups g = planShardGroups(mesh, params, options);
  CHECK(g.group_of == std::vector<std::uint32_t>{0, 0, 1, 2, 3, 4, 4, 5});
  CHECK(g.counts == std::vector<std::int64_t>{2, 1, 1, 1, 2, 1});
  CHECK(g.plans.at(0).rule >= 0);
  CHECK(g.plans.at(1).rule >= 0);
  CHECK(g.plans.at(0).rule != g.plans.at(1).rule);
  CHECK(g.plans.at(0).rule == g.plans.at(2).rule);
  CHECK(g.plans.at(4).rule == -1);
  CHECK(g.plans.at(4).requested == given);
  CHECK(g.plans.at(4).spec == PartitionSpec::ofAxes({"tp", ""})); // padded to the rank by the correction
  CHECK(g.plans.at(4).layout.shard_shape == Shape{16, 32});
  CHECK(g.plans.at(5).rule == -1);
  CHECK(g.plans.at(5).diagnostics.at(0).kind == ShardingDiagnostic::Kind::Scalar);
  CHECK(g.plans.at(3).layout.dtype == f32);
  // Six bf16 arrays of 64x32 (or 32x64), one f32 array of 64x32 and a bf16 scalar.
  CHECK(g.totals.total_bytes == 6 * 2048 * 2 + 2048 * 4 + 2);
}

TEST_CASE("planShards names the same parameter in errors as matching in sorted order", "[shard_plan]") {
  const MeshAxes mesh({"fsdp"}, {2});
  const RuleSet rules({{"^a", PartitionSpec::ofAxes({"fsdp"})}});
  const DType bf16 = parseDType("bf16");
  // Input order z, b, c: neither z nor b matches; JAX flattens sorted, so 'b' is reported.
  const std::vector<ShardParam> params = {
      {"z", {4}, bf16, std::nullopt}, {"b", {4}, bf16, std::nullopt}, {"a", {4}, bf16, std::nullopt}};
  ShardPlanOptions options;
  options.rules = &rules;
  CHECK_THROWS_WITH(planShards(mesh, params, options), "Partition rule not found for param: b");
}
