// SPDX-License-Identifier: Apache-2.0
// Every model config of MaxText at e591f30c (tests/data/maxtext-snapshot: base.yml and the 78
// configs/models/*.yml, verbatim) imports, or names in one line the one thing it cannot model; the
// families' totals match their published parameter counts (each cited below), and one layer of
// each new block has the shapes MaxText's layers give it (worked out from the config by hand).
#include "shardscope/interop/maxtext_import.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

using namespace shardscope;

namespace {

const std::filesystem::path kSnapshot = std::filesystem::path(SHARDSCOPE_TEST_DATA) / "maxtext-snapshot";

Scenario importModel(const std::string& name) {
  MaxTextImportNotes notes;
  std::vector<std::string> overrides{"compile_topology=v5p-8", "model_name=" + name};
  // MaxText's types.py requires scan_layers=false for Gemma 4's small models (per-layer inputs).
  if (name.rfind("gemma4-e", 0) == 0) overrides.emplace_back("scan_layers=false");
  return importMaxText({kSnapshot / "base.yml", kSnapshot / "models" / (name + ".yml")}, overrides, notes);
}

double totalParams(const Scenario& s) {
  double total = 0;
  for (const Json& p : s.model.inline_params) {
    double n = 1;
    for (const Json& d : p["shape"]) n *= d.get<double>();
    total += n;
  }
  return total;
}

Json shapeOf(const Scenario& s, const std::string& path) {
  for (const Json& p : s.model.inline_params)
    if (p["path"] == path) return p["shape"];
  FAIL("no parameter " << path);
  return nullptr;
}

} // namespace

TEST_CASE("every model config of MaxText's snapshot imports or names what it cannot model", "[maxtext]") {
  // What MaxText's configs use that is not built here, one key each.
  const std::map<std::string, std::string> refused{{"deepseek-custom", "MaxText key 'engram_layers'"},
                                                   {"deepseek4-284b", "MaxText key 'decoder_block' = \"deepseek4\""},
                                                   {"deepseek4-tiny", "MaxText key 'decoder_block' = \"deepseek4\""}};
  int imported = 0, configs = 0;
  for (const auto& entry : std::filesystem::directory_iterator(kSnapshot / "models")) {
    const std::string name = entry.path().stem().string();
    INFO(name);
    ++configs;
    if (const auto it = refused.find(name); it != refused.end()) {
      CHECK_THROWS_WITH(importModel(name), Catch::StartsWith(it->second) && Catch::Contains("is not modelled"));
      continue;
    }
    const Scenario s = importModel(name);
    CHECK(totalParams(s) > 0);
    ++imported;
  }
  CHECK(configs == 78);
  CHECK(imported == 75);
}

TEST_CASE("MaxText's flagship configs give their published parameter counts", "[maxtext]") {
  // Published totals: DeepSeek-V3 671B (arXiv 2412.19437, abstract); Kimi K2 1.04T (arXiv
  // 2507.20534); Qwen3-235B-A22B 235B and Qwen3-30B-A3B 30.5B (the Qwen model cards); Gemma 2 27B
  // 26,047,480,320 non-embedding + 1,180,237,824 embedding (arXiv 2408.00118, Table 1); Gemma 3 27B
  // 25.6B language + 1.4B embedding (arXiv 2503.19786, Table 1; its 417M vision encoder is not in
  // MaxText's text decoder); gpt-oss 116.83B and 20.91B (arXiv 2508.10925, Table 1); Llama 4 Scout
  // 109B and Maverick 400B (Meta's model cards; each includes a vision encoder of about 0.87B);
  // GPT-3 175.0B (arXiv 2005.14165, Table 2.1). Within 3%.
  const std::pair<const char*, double> published[] = {
      {"deepseek3-671b", 671e9}, {"kimi-k2-1t", 1.04e12},    {"qwen3-235b-a22b", 235e9}, {"qwen3-30b-a3b", 30.5e9},
      {"gemma2-27b", 27.23e9},   {"gemma3-27b", 27.0e9},     {"gpt-oss-120b", 116.83e9}, {"gpt-oss-20b", 20.91e9},
      {"llama4-17b-16e", 109e9}, {"llama4-17b-128e", 400e9}, {"gpt3-175b", 175.0e9}};
  for (const auto& [name, count] : published) {
    INFO(name);
    CHECK(totalParams(importModel(name)) == Approx(count).epsilon(0.03));
  }
}

TEST_CASE("one layer of each new MaxText block has the shapes its config gives", "[maxtext]") {
  // DeepSeek-V3 (deepseek3-671b.yml): emb 7168, 128 heads, q_lora 1536, kv_lora 512, nope 128,
  // rope 64, v 128; 3 dense + 58 MoE layers stacked on axis 1; 256 experts of 2048, 1 shared.
  const Scenario ds = importModel("deepseek3-671b");
  const std::string moe = "params/decoder/moe_layers/";
  CHECK(shapeOf(ds, moe + "self_attention/wq_a/kernel") == Json({7168, 58, 1536}));
  CHECK(shapeOf(ds, moe + "self_attention/wq_b/kernel") == Json({1536, 58, 128, 192}));
  CHECK(shapeOf(ds, moe + "self_attention/wkv_a/kernel") == Json({7168, 58, 576}));
  CHECK(shapeOf(ds, moe + "self_attention/wkv_b/kernel") == Json({512, 58, 128, 256}));
  CHECK(shapeOf(ds, moe + "self_attention/out/kernel") == Json({128, 58, 128, 7168}));
  CHECK(shapeOf(ds, moe + "DeepSeekMoeBlock_0/MoeBlock_0/wi_0") == Json({256, 58, 7168, 2048}));
  CHECK(shapeOf(ds, moe + "DeepSeekMoeBlock_0/MoeBlock_0/gate/bias") == Json({256, 58}));
  CHECK(shapeOf(ds, moe + "DeepSeekMoeBlock_0/shared_experts/wi_0/kernel") == Json({7168, 58, 2048}));
  CHECK(shapeOf(ds, "params/decoder/dense_layers/mlp/wi_0/kernel") == Json({7168, 3, 18432}));
  // gpt-oss-20b: emb 2880, 64 heads, 8 kv heads of 64; 32 experts of 2880; blocks of 2 (local,
  // global) stacked 12 times; biases and sinks.
  const Scenario oss = importModel("gpt-oss-20b");
  const std::string g = "params/decoder/layers/layers_0/";
  CHECK(shapeOf(oss, g + "GptOssAttention/query/kernel") == Json({2880, 12, 64, 64}));
  CHECK(shapeOf(oss, g + "GptOssAttention/query/bias") == Json({64, 12, 64}));
  CHECK(shapeOf(oss, g + "GptOssAttention/sinks") == Json({64, 12}));
  CHECK(shapeOf(oss, g + "GptOssMlp/wi_0") == Json({32, 12, 2880, 2880}));
  CHECK(shapeOf(oss, g + "GptOssMlp/wo_bias") == Json({32, 12, 2880}));
  // Llama 4 Maverick: 48 layers in blocks of 4 (interleave 2: layers_1 and layers_3 are MoE with
  // 128 experts of 8192 and one shared expert; layers_0 and layers_2 dense of 16384).
  const Scenario mav = importModel("llama4-17b-128e");
  CHECK(shapeOf(mav, "params/decoder/layers/layers_0/mlp/wi_0/kernel") == Json({5120, 12, 16384}));
  CHECK(shapeOf(mav, "params/decoder/layers/layers_1/Llama4MoEBlock_0/MoeBlock_0/wi_0") == Json({128, 12, 5120, 8192}));
  CHECK(shapeOf(mav, "params/decoder/layers/layers_1/Llama4MoEBlock_0/shared_experts/wo/kernel") ==
        Json({8192, 12, 5120}));
  // Gemma 2 27B: one scanned layer holds a local and a global layer (23 pairs, 46 layers).
  const Scenario g2 = importModel("gemma2-27b");
  CHECK(shapeOf(g2, "params/decoder/layers/self_attention_global/query/kernel") == Json({4608, 23, 32, 128}));
  CHECK(g2.model.inline_architecture["num_layers"] == 46);
  // Gemma 3 27B: 62 layers = 10 blocks of six and 2 more; query and key norms.
  const Scenario g3 = importModel("gemma3-27b");
  CHECK(shapeOf(g3, "params/decoder/layers/layers_5/self_attention/key_norm/scale") == Json({128, 10}));
  CHECK(shapeOf(g3, "params/decoder/layers_remainder/layers_1/mlp/wo/kernel") == Json({21504, 5376}));
  // Qwen3-Next: blocks of 4 (three Gated DeltaNet, one full attention) stacked 12 times.
  const Scenario qn = importModel("qwen3-next-80b-a3b");
  CHECK(shapeOf(qn, "params/decoder/layers/layer_0/attention/in_proj_qkvz/kernel") == Json({2048, 12, 12288}));
  CHECK(shapeOf(qn, "params/decoder/layers/layer_3/attention/attention/query/kernel") == Json({2048, 12, 16, 512}));
  CHECK(qn.model.inline_architecture["linear_attention_layers"] == 36);
  // GPT-3 175B: fused qkv (emb, 3, heads, head_dim) with its bias, a position embedder.
  const Scenario gpt = importModel("gpt3-175b");
  CHECK(shapeOf(gpt, "params/decoder/layers/self_attention/qkv_proj/kernel") == Json({12288, 96, 3, 96, 128}));
  CHECK(shapeOf(gpt, "params/decoder/position_embedder/embedding") == Json({16384, 12288}));
}
