// SPDX-License-Identifier: Apache-2.0
// Regex rules, the eformer correction step and the diagnostics that make its silent fallbacks
// visible. The Llama-7B figures come from running the real escale code (eformer-jaxpp spec §1.9).
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <catch2/catch.hpp>

#include <chrono>

using namespace shardscope;

namespace {
PartitionSpec js(const char* text) { return PartitionSpec::fromJson(Json::parse(text)); }

bool hasKind(const ShardingDiagnostics& d, ShardingDiagnostic::Kind k) {
  for (const auto& x : d)
    if (x.kind == k) return true;
  return false;
}

// EasyDeL's Llama rules (Nov-2024 .. Feb-2026) resolved with the default PartitionAxis.
std::vector<PartitionRule> easydelLlamaRules() {
  const char* col = "[[\"fsdp\", \"sp\"], \"tp\"]";
  const char* row = "[\"tp\", [\"fsdp\", \"sp\"]]";
  return {
      {"embed_tokens/embedding", js(col)},
      {"self_attn/(q_proj|k_proj|v_proj)/kernel", js(col)},
      {"self_attn/o_proj/kernel", js(row)},
      {"self_attn/.*proj/bias", js("[null]")},
      {"mlp/(gate_proj|up_proj)/kernel", js(col)},
      {"mlp/down_proj/kernel", js(row)},
      {"mlp/.*proj/bias", js("[null]")},
      {".*(input_layernorm|post_attention_layernorm|norm)/kernel", js("[null]")},
      {"lm_head/kernel", js(col)},
      {"score/kernel", js(row)},
      {".*bias", js("[null]")},
      {".*", js("[null]")},
  };
}

std::vector<ParamLeaf> llama7bOneLayer() {
  return {
      {"model/embed_tokens/embedding", Shape{32000, 4096}},
      {"model/layers/0/self_attn/q_proj/kernel", Shape{4096, 4096}},
      {"model/layers/0/self_attn/k_proj/kernel", Shape{4096, 4096}},
      {"model/layers/0/self_attn/v_proj/kernel", Shape{4096, 4096}},
      {"model/layers/0/self_attn/o_proj/kernel", Shape{4096, 4096}},
      {"model/layers/0/mlp/gate_proj/kernel", Shape{4096, 11008}},
      {"model/layers/0/mlp/up_proj/kernel", Shape{4096, 11008}},
      {"model/layers/0/mlp/down_proj/kernel", Shape{11008, 4096}},
      {"model/layers/0/input_layernorm/kernel", Shape{4096}},
      {"model/layers/0/post_attention_layernorm/kernel", Shape{4096}},
      {"model/norm/kernel", Shape{4096}},
      {"lm_head/kernel", Shape{4096, 32000}},
  };
}

struct TreeLayout {
  std::int64_t perDevice = 0;
  std::vector<ArrayLayout> layouts;
  std::vector<ShardingDiagnostics> diags;
};

TreeLayout layOut(const MeshAxes& mesh) {
  const RuleSet rules(easydelLlamaRules());
  const auto leaves = llama7bOneLayer();
  MatchOptions options;
  options.min_size = std::nullopt; // MIN_SHARDING_SIZE
  auto matches = matchPartitionRules(rules, leaves, options);
  TreeLayout out;
  for (std::size_t i = 0; i < leaves.size(); ++i) {
    ShardingDiagnostics d = matches[i].diagnostics;
    const PartitionSpec spec = correctSpec(mesh, *leaves[i].shape, matches[i].spec, &d);
    out.layouts.push_back(layoutArray(mesh, *leaves[i].shape, leaves[i].dtype, spec));
    out.perDevice += out.layouts.back().shard_bytes;
    out.diags.push_back(std::move(d));
  }
  return out;
}
} // namespace

TEST_CASE("rules use re.search: unanchored, first match wins", "[partition_rules]") {
  const RuleSet rules(
      {{"proj", js("[\"tp\"]")}, {"q_proj", js("[\"dp\"]")}, {"^model/norm$", js("[]")}, {"a.b", js("[]")}});
  CHECK(rules.firstMatch("layers/0/attn/q_proj/kernel") == 0);
  CHECK(rules.firstMatch("model/norm") == 2);
  CHECK(rules.firstMatch("x/model/norm") == -1);
  CHECK(rules.firstMatch("model/norm/kernel") == -1); // $ is the end of the whole path
  CHECK(rules.firstMatch("a\nb") == -1);              // '.' stops at a newline, as in Python
  CHECK(rules.firstMatch("axb") == 3);
  // Python-only spellings: named groups, named back-references, \Z; '[?P<]' stays a class.
  const RuleSet named({{"layers/(?P<n>\\d+)/mlp", js("[]")},
                       {"(?:k|v)_proj\\b", js("[]")},
                       {"(?P<x>ab)-(?P=x)\\Z", js("[]")},
                       {"^[?P<]+$", js("[]")}});
  CHECK(named.firstMatch("model/layers/12/mlp/up") == 0);
  CHECK(named.firstMatch("attn/v_proj/w") == 1);
  CHECK(named.firstMatch("ab-ab") == 2);
  CHECK(named.firstMatch("ab-ac") == -1);
  CHECK(named.firstMatch("P<?") == 3);
}

TEST_CASE("a catastrophic regex gives a clear error instead of hanging", "[partition_rules]") {
  const RuleSet rules({{"(a+)+$", js("[]")}});
  const auto start = std::chrono::steady_clock::now();
  CHECK_THROWS_WITH(rules.firstMatch(std::string(40, 'a') + "!"),
                    Catch::StartsWith("partition rule 0 '(a+)+$' is too complex to match against"));
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(30));
}

TEST_CASE("an invalid regex names the rule", "[partition_rules]") {
  CHECK_THROWS_WITH(RuleSet({{"ok", js("[]")}, {"(unclosed", js("[]")}}),
                    Catch::StartsWith("partition rule 1: invalid regular expression '(unclosed'"));
}

TEST_CASE("matchPartitionRules reports every silent decision", "[partition_rules]") {
  const RuleSet rules({{"big", js("[\"tp\", null, \"dp\"]")}, {"small", js("[\"tp\"]")}, {".*", js("[null]")}});
  std::vector<ParamLeaf> leaves = {
      {"big/w", Shape{64, 64}},
      {"small/b", Shape{8}},
      {"step", std::nullopt},
      {"scalar", Shape{}},
  };
  MatchOptions options;
  options.min_size = 100;
  const auto m = matchPartitionRules(rules, leaves, options);
  CHECK(m[0].spec == js("[\"tp\", null]"));
  CHECK(m[0].rule == 0);
  CHECK(hasKind(m[0].diagnostics, ShardingDiagnostic::Kind::SpecTrimmed));
  CHECK(m[1].spec == js("[]"));
  CHECK(m[1].rule == 1);
  CHECK(hasKind(m[1].diagnostics, ShardingDiagnostic::Kind::BelowMinSize));
  CHECK(m[2].spec.empty());
  CHECK(m[2].rule == -1);
  CHECK(hasKind(m[2].diagnostics, ShardingDiagnostic::Kind::NoShape));
  CHECK(hasKind(m[3].diagnostics, ShardingDiagnostic::Kind::Scalar));
  // Non-strict: the spec as written, even for the shape-less leaf.
  options.strict = false;
  const auto loose = matchPartitionRules(rules, leaves, options);
  CHECK(loose[0].spec == js("[\"tp\", null, \"dp\"]"));
  CHECK(loose[2].spec == js("[null]"));
}

TEST_CASE("the unmatched error names the smallest path", "[partition_rules]") {
  const RuleSet rules({{"kernel", js("[\"tp\"]")}});
  std::vector<ParamLeaf> leaves = {{"z/w", Shape{4}}, {"m/kernel", Shape{4}}, {"b/w", Shape{4}}};
  CHECK_THROWS_WITH(matchPartitionRules(rules, leaves), "Partition rule not found for param: b/w");
}

TEST_CASE("correction drops what does not fit and says why", "[partition_rules]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 4});
  ShardingDiagnostics d;
  CHECK(correctSpec(mesh, {8, 16, 512}, js("[[\"fsdp\", \"dp\"], \"sp\", \"tp\"]"), &d) == js("[null, null, \"tp\"]"));
  REQUIRE(d.size() == 2);
  CHECK(d[0].kind == ShardingDiagnostic::Kind::AxisMissing);
  CHECK(d[0].dim == 0);
  CHECK(d[0].axis == "fsdp");
  CHECK(d[1].axis == "sp");

  d.clear();
  CHECK(correctSpec(mesh, {6, 8}, js("[\"tp\", \"dp\"]"), &d) == js("[null, \"dp\"]"));
  REQUIRE(d.size() == 1);
  CHECK(d[0].kind == ShardingDiagnostic::Kind::NotDivisible);
  CHECK(d[0].message == "dimension 0 (size 6) is not divisible by 'tp' = 4: replicated instead");

  d.clear();
  CHECK(correctSpec(mesh, {3, 3}, js("[\"tp\", \"dp\"]"), &d).empty());
  CHECK(hasKind(d, ShardingDiagnostic::Kind::AllReplicated));

  d.clear();
  CHECK(correctSpec(mesh, {8, 8}, js("[\"dp\", \"dp\"]"), &d) == js("[\"dp\", \"dp\"]"));
  CHECK(hasKind(d, ShardingDiagnostic::Kind::DuplicateAxis));

  CHECK(correctSpec(mesh, {8}, js("[\"tp\", null, \"dp\"]")) == js("[\"tp\"]"));
  CHECK(correctSpec(mesh, {8, 8, 8}, js("[\"dp\"]")) == js("[\"dp\", null, null]"));
  CHECK(correctSpec(mesh, {8, 8}, PartitionSpec::parse("P(UNCONSTRAINED, 'tp')")) == js("[null, \"tp\"]"));
  CHECK_THROWS_WITH(getCorrectedNamedSharding(nullptr, {8}, js("[\"dp\"]")),
                    "No mesh found under this context manager.");
  CHECK(getCorrectedNamedSharding(nullptr, {8}, js("[\"dp\"]"), false).empty());
  // with_sharding_constraint: P() is "no constraint", not "replicated".
  CHECK_FALSE(withShardingConstraintSpec(&mesh, {8, 8}, js("[]")).has_value());
  CHECK(withShardingConstraintSpec(&mesh, {8, 8}, js("[null, null]")) == js("[]"));
  CHECK_FALSE(withShardingConstraintSpec(nullptr, {8, 8}, js("[\"dp\"]")).has_value());
}

TEST_CASE("Llama-7B one layer: the reference's per-device bytes", "[partition_rules]") {
  const MeshAxes fsdp8({"dp", "fsdp", "ep", "tp", "sp"}, {1, 8, 1, 1, 1});
  auto a = layOut(fsdp8);
  CHECK(a.perDevice == 232308736);
  CHECK(a.layouts[0].shard_shape == Shape{4000, 4096});
  CHECK(a.layouts[7].shard_shape == Shape{11008, 512});

  const MeshAxes fsdp2tp4({"dp", "fsdp", "ep", "tp", "sp"}, {1, 2, 1, 4, 1});
  auto b = layOut(fsdp2tp4);
  CHECK(b.perDevice == 232308736);
  CHECK(b.layouts[0].shard_shape == Shape{16000, 1024});
  CHECK(b.layouts[7].shard_shape == Shape{2752, 2048});

  const MeshAxes dp2({"dp", "fsdp", "ep", "tp", "sp"}, {2, 2, 1, 2, 1});
  CHECK(layOut(dp2).perDevice == 464568320);

  // fsdp=3 divides nothing: everything silently replicated -- visible here as diagnostics.
  const MeshAxes fsdp3({"dp", "fsdp", "ep", "tp", "sp"}, {1, 3, 1, 1, 1});
  auto c = layOut(fsdp3);
  CHECK(c.perDevice == 1858125824);
  CHECK(c.layouts[0].shard_shape == Shape{32000, 4096});
  CHECK(hasKind(c.diags[0], ShardingDiagnostic::Kind::NotDivisible));
  CHECK(hasKind(c.diags[7], ShardingDiagnostic::Kind::NotDivisible));
  // The norms never reached the mesh: below MIN_SHARDING_SIZE is not a sharding decision.
  CHECK(c.diags[8].empty());
}
