// SPDX-License-Identifier: Apache-2.0
// Logical axes and the named rule-set presets over Hugging Face parameter names.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
PartitionSpec js(const char* text) { return PartitionSpec::fromJson(Json::parse(text)); }

PartitionSpec specOf(const std::string& preset, const std::string& path, const Shape& shape,
                     const MeshAxes* mesh = nullptr) {
  const RuleSet rules(presetRules(preset, {}, mesh));
  const std::vector<ParamLeaf> leaves = {{path, shape}};
  return matchPartitionRules(rules, leaves)[0].spec;
}
} // namespace

TEST_CASE("PartitionAxis resolves logical names through the five roles", "[sharding_presets]") {
  PartitionAxis axes;
  CHECK(axes.resolve("batch") == std::vector<std::string>{"fsdp", "dp"});
  CHECK(axes.resolve("__BATCH__") == std::vector<std::string>{"fsdp", "dp"});
  CHECK(axes.resolve("LENGTH") == std::vector<std::string>{"sp"});
  CHECK(axes.resolve("kv_heads") == std::vector<std::string>{"tp"});
  CHECK(axes.resolve("experts") == std::vector<std::string>{"ep"});
  CHECK(axes.resolve("head_dim").empty());
  CHECK(axes.resolve("_").empty());
  CHECK_THROWS_WITH(axes.resolve("bogus"), "Unknown semantic axis name: 'bogus'");
  axes.tensor_parallel = "model";
  CHECK(axes.resolveSpec({{"batch"}, {"sequence"}, {"hidden"}}) == js("[[\"fsdp\", \"dp\"], \"sp\", \"model\"]"));
  // Composites are flattened (eformer would nest them) and duplicates dropped.
  CHECK(axes.resolveSpec({{"batch", "sequence"}, {}}) == js("[[\"fsdp\", \"dp\", \"sp\"], null]"));
  CHECK(axes.resolveSpec({{"heads", "vocab"}}) == js("[\"model\"]"));
  axes.custom["pipeline_stage"] = {"pp"};
  axes.custom["wide"] = {"batch", "pp"};
  CHECK(axes.resolve("wide") == std::vector<std::string>{"fsdp", "dp", "pp"});
  axes.custom["loop"] = {"loop"};
  CHECK_THROWS_WITH(axes.resolve("loop"), Catch::StartsWith("Cyclic semantic axis registration"));
}

TEST_CASE("fsdp-tp shards the model width on fsdp and heads/MLP/vocab on tp", "[sharding_presets]") {
  const auto L = "model.layers.3.";
  CHECK(specOf("fsdp-tp", std::string(L) + "self_attn.q_proj.weight", {4096, 4096}) ==
        js("[\"tp\", [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("fsdp-tp", std::string(L) + "self_attn.o_proj.weight", {4096, 4096}) ==
        js("[[\"fsdp\", \"sp\"], \"tp\"]"));
  CHECK(specOf("fsdp-tp", std::string(L) + "mlp.down_proj.weight", {4096, 11008}) ==
        js("[[\"fsdp\", \"sp\"], \"tp\"]"));
  CHECK(specOf("fsdp-tp", "model.embed_tokens.weight", {32000, 4096}) == js("[\"tp\", [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("fsdp-tp", "lm_head.weight", {32000, 4096}) == js("[\"tp\", [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("fsdp-tp", std::string(L) + "input_layernorm.weight", {4096}).empty());
  // flax kernels are [in, out].
  CHECK(specOf("fsdp-tp", "params/model/layers/0/self_attn/q_proj/kernel", {4096, 4096}) ==
        js("[[\"fsdp\", \"sp\"], \"tp\"]"));
  // GPT-2's Conv1D weights are [in, out] too.
  CHECK(specOf("fsdp-tp", "transformer.h.0.attn.c_attn.weight", {768, 2304}) == js("[[\"fsdp\", \"sp\"], \"tp\"]"));
  CHECK(specOf("fsdp-tp", "transformer.h.0.mlp.c_proj.weight", {3072, 768}) == js("[\"tp\", [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("fsdp-tp", "transformer.wte.weight", {50257, 768}) == js("[\"tp\", [\"fsdp\", \"sp\"]]"));
}

TEST_CASE("presets differ in which roles shard", "[sharding_presets]") {
  const std::string q = "model.layers.0.self_attn.q_proj.weight";
  CHECK(specOf("dp", q, {64, 64}).empty());
  CHECK(specOf("fsdp", q, {64, 64}) == js("[null, [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("tp", q, {64, 64}) == js("[\"tp\", null]"));
  CHECK(specOf("sp", q, {64, 64}) == js("[\"tp\", \"sp\"]"));
  CHECK(specOf("zero3", q, {64, 64}) == specOf("fsdp", q, {64, 64}));
  CHECK_THROWS_WITH(presetRules("bogus"), Catch::StartsWith("unknown rule preset 'bogus'; presets: dp, fsdp, tp"));
}

TEST_CASE("the ep preset shards experts, stacked or one tensor each", "[sharding_presets]") {
  CHECK(specOf("ep", "model.layers.1.mlp.experts.7.gate_proj.weight", {1408, 2048}) ==
        js("[\"tp\", [\"ep\", \"fsdp\", \"sp\"]]"));
  CHECK(specOf("ep", "model.layers.1.block_sparse_moe.experts.7.w2.weight", {4096, 14336}) ==
        js("[[\"ep\", \"fsdp\", \"sp\"], \"tp\"]"));
  CHECK(specOf("ep", "params/layers/1/mlp/experts/up_proj/kernel", {64, 2048, 1408}) ==
        js("[\"ep\", [\"fsdp\", \"sp\"], \"tp\"]"));
  CHECK(specOf("ep", "model.layers.1.mlp.gate.weight", {64, 2048}) == js("[null, [\"fsdp\", \"sp\"]]"));
  CHECK(specOf("ep", "model.layers.1.mlp.shared_experts.up_proj.weight", {2816, 2048}) ==
        js("[\"tp\", [\"fsdp\", \"sp\"]]"));
  // Without ep in the preset, per-expert tensors are ordinary MLP weights.
  CHECK(specOf("fsdp-tp", "model.layers.1.mlp.experts.7.gate_proj.weight", {1408, 2048}) ==
        js("[\"tp\", [\"fsdp\", \"sp\"]]"));
}

TEST_CASE("presets resolved for a mesh leave out the axes it lacks", "[sharding_presets]") {
  const MeshAxes mesh({"fsdp", "tp"}, {4, 2});
  const std::string q = "model.layers.0.self_attn.q_proj.weight";
  CHECK(specOf("fsdp-tp", q, {64, 64}, &mesh) == js("[\"tp\", \"fsdp\"]"));
  // Renamed roles.
  PartitionAxis axes;
  axes.fully_sharded_data_parallel = "data";
  axes.tensor_parallel = "model";
  const MeshAxes named({"data", "model"}, {4, 2});
  const RuleSet rules(presetRules("fsdp-tp", axes, &named));
  const std::vector<ParamLeaf> leaves = {{q, Shape{64, 64}}};
  CHECK(matchPartitionRules(rules, leaves)[0].spec == js("[\"model\", \"data\"]"));
}
