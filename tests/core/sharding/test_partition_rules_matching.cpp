// SPDX-License-Identifier: Apache-2.0
// The fast batch matcher (literal prefilter + digit memo) must answer exactly what a plain regex
// search answers. The reference here is std::regex (ECMAScript), an independent engine that
// agrees with Python `re` on the syntax these patterns use.
// GCC 12 reports -Wmaybe-uninitialized inside libstdc++'s <regex> (std::function copies in the
// NFA builder) when built with -O1 and sanitizers (the asan preset): a known false positive in
// the system header, silenced for this file only.
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#endif

#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/partition_rules.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <regex>

using namespace shardscope;

namespace {

int referenceFirstMatch(const std::vector<std::regex>& res, const std::string& path) {
  for (std::size_t i = 0; i < res.size(); ++i)
    if (std::regex_search(path, res[i])) return static_cast<int>(i);
  return -1;
}

std::vector<std::string> samplePaths() {
  std::vector<std::string> paths;
  const char* leaves[] = {"self_attn.q_proj.weight",
                          "self_attn.k_proj.weight",
                          "self_attn.v_proj.weight",
                          "self_attn.o_proj.weight",
                          "self_attn.q_proj.bias",
                          "mlp.gate_proj.weight",
                          "mlp.up_proj.weight",
                          "mlp.down_proj.weight",
                          "input_layernorm.weight",
                          "post_attention_layernorm.weight",
                          "mlp.experts.3.gate_proj.weight",
                          "mlp.experts.17.down_proj.weight",
                          "block_sparse_moe.experts.5.w1.weight",
                          "block_sparse_moe.experts.5.w2.weight",
                          "block_sparse_moe.gate.weight",
                          "mlp.gate.weight",
                          "mlp.shared_experts.up_proj.weight",
                          "self_attn.kv_a_proj_with_mqa.weight",
                          "self_attn.q_b_proj.weight",
                          "attn.c_attn.weight",
                          "mlp.c_proj.weight",
                          "self_attn/q_proj/kernel",
                          "mlp/experts/gate_proj/kernel",
                          "mlp/down_proj/kernel"};
  for (const char* prefix : {"model.layers.", "model/layers/", "transformer.h.", "params/model/layers/"})
    for (int layer : {0, 1, 7, 10, 11, 99, 125})
      for (const char* leaf : leaves) paths.push_back(prefix + std::to_string(layer) + "." + leaf);
  for (const char* p : {"model.embed_tokens.weight", "lm_head.weight", "model.norm.weight", "transformer.wte.weight",
                        "transformer.wpe.weight", "transformer.ln_f.bias", "lm_head/kernel",
                        "model/embed_tokens/embedding", "score.weight", "w1", "w2", "x"})
    paths.emplace_back(p);
  return paths;
}

void checkSameAnswers(const std::vector<PartitionRule>& rules) {
  const RuleSet set(rules);
  std::vector<std::regex> res;
  for (const auto& r : rules) res.emplace_back(r.pattern, std::regex::ECMAScript);
  const auto paths = samplePaths();
  const auto fast = set.firstMatches(paths);
  for (std::size_t k = 0; k < paths.size(); ++k) {
    INFO(paths[k]);
    CHECK(fast[k] == referenceFirstMatch(res, paths[k]));
    CHECK(set.firstMatch(paths[k]) == fast[k]);
  }
}

} // namespace

TEST_CASE("batch matching agrees with a plain regex search on every preset", "[partition_rules]") {
  for (const auto& preset : rulePresets()) {
    INFO(preset.name);
    checkSameAnswers(presetRules(preset.name));
  }
}

TEST_CASE("batch matching agrees on digit-sensitive and literal-heavy patterns", "[partition_rules]") {
  const PartitionSpec none;
  checkSameAnswers({{"layers[./]1[./]", none},       // only layer 1 (digit-sensitive)
                    {"layers[./]1\\d[./]mlp", none}, // layers 10-19
                    {"h\\.7\\.", none},
                    {"experts[./]\\d+[./]w1", none},
                    {"q_?proj", none}, // optional '_' must not be required
                    {"(gate|up)_proj\\.weight$", none},
                    {"ln_f|norm", none}, // top-level alternation: no prefilter
                    {"o_proj.(weight|kernel)", none},
                    {"^transformer", none},
                    {"k_pro+j", none},
                    {"[./]c_(attn|proj)[./]", none},
                    {"wte|wpe", none},
                    {"emb.*ing", none},
                    {"x{1,2}$", none}});
}

TEST_CASE("batch matching agrees with one-by-one matching on many random rule sets", "[partition_rules]") {
  // Rules built from fragments that exercise every path of the batch matcher: shared and nested
  // anchor literals ("proj" inside "q_proj"), rules without literals, digit-sensitive and
  // digit-insensitive rules interleaved, and paths that share a memo key but differ in digits.
  const std::vector<std::string> fragments = {
      "q_proj",   "proj",     "k_proj",     "layers\\.1\\.", "layers\\.\\d+\\.", "experts\\.2", "w1",
      "w\\d",     "mlp",      "(gate|up)",  "\\.weight$",    "^model",           "norm",        "e",
      "_proj\\.", "[0-9]{2}", "embed.*ing", "lm_head",       "attn\\.o",         "s\\.1",       "3"};
  std::vector<std::string> paths;
  for (int layer : {0, 1, 2, 12, 21, 100})
    for (const char* leaf :
         {"self_attn.q_proj.weight", "self_attn.k_proj.weight", "self_attn.o_proj.weight", "mlp.gate_proj.weight",
          "mlp.up_proj.bias", "mlp.experts.2.w1.weight", "mlp.experts.23.w3.weight", "input_layernorm.weight"})
      for (const char* prefix : {"model.layers.", "layers.", "h."})
        paths.push_back(std::string(prefix) + std::to_string(layer) + "." + leaf);
  for (const char* p : {"model.embed_tokens.weight", "lm_head.weight", "model.norm.weight", "x", "33"})
    paths.emplace_back(p);

  std::uint64_t state = 12345;
  auto next = [&] {
    state = state * 6364136223846793005ULL + 1442695040888963407ULL;
    return static_cast<std::size_t>(state >> 33);
  };
  for (int trial = 0; trial < 40; ++trial) {
    std::vector<PartitionRule> rules;
    const std::size_t count = 1 + next() % 60;
    for (std::size_t i = 0; i < count; ++i) {
      std::string pattern = fragments[next() % fragments.size()];
      if (next() % 3 == 0) pattern += ".*" + fragments[next() % fragments.size()];
      rules.push_back({pattern, PartitionSpec()});
    }
    const RuleSet set(rules);
    const auto batch = set.firstMatches(paths);
    for (std::size_t k = 0; k < paths.size(); ++k) {
      INFO("trial " << trial << ", path " << paths[k]);
      REQUIRE(batch[k] == set.firstMatch(paths[k]));
    }
  }
}
