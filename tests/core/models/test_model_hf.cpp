// SPDX-License-Identifier: Apache-2.0
// Hugging Face config.json synthesis: published parameter totals, tensor names and shapes.
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <map>

using namespace shardscope;

namespace {

const Param* findParam(const Model& m, const std::string& path) {
  for (const auto& p : m.params)
    if (p.path == path) return &p;
  return nullptr;
}

std::int64_t countMatching(const Model& m, const std::string& needle) {
  return std::count_if(m.params.begin(), m.params.end(),
                       [&](const Param& p) { return p.path.find(needle) != std::string::npos; });
}

} // namespace

TEST_CASE("every preset matches its published parameter count", "[model]") {
  // Totals from the model cards / safetensors index metadata (Llama 3.1, Mixtral, Qwen2.5, Gemma 2,
  // GPT-2) and DeepSeek-V3's 671B without the multi-token-prediction module; each was re-derived
  // by hand from the config's dimensions while writing this test.
  const std::map<std::string, std::int64_t> published = {
      {"llama-3.1-8b", 8'030'261'248},     {"llama-3.1-70b", 70'553'706'496},
      {"llama-3.1-405b", 405'853'388'800}, {"mixtral-8x7b", 46'702'792'704},
      {"qwen2.5-72b", 72'706'203'648},     {"gemma-2-27b", 27'227'128'320},
      {"deepseek-v3", 671'026'419'200},    {"gpt2", 124'439'808},
  };
  // These publish rounded totals; test_hf_families.cpp checks them within 3%.
  const std::vector<std::string> rounded = {
      "gpt-oss-120b", "gpt-oss-20b", "llama-4-scout-17b-16e", "llama-4-maverick-17b-128e", "qwen3-next-80b-a3b",
      "olmo-3-32b",   "kimi-k2"};
  const auto names = presetModelNames();
  REQUIRE(names.size() == published.size() + rounded.size());
  for (const auto& name : rounded) CHECK(std::find(names.begin(), names.end(), name) != names.end());
  for (const auto& [name, total] : published) {
    INFO(name);
    REQUIRE(std::find(names.begin(), names.end(), name) != names.end());
    const Model m = loadPresetModel(name);
    CHECK(m.name == name);
    CHECK(m.parameterCount() == total);
    REQUIRE(m.config);
  }
}

TEST_CASE("Llama-3.1-8B tensors have Hugging Face names and Linear shapes", "[model]") {
  const Model m = loadPresetModel("llama-3.1-8b");
  CHECK(m.params.size() == 1 + 32 * 9 + 2);
  const Param* q = findParam(m, "model.layers.0.self_attn.q_proj.weight");
  REQUIRE(q);
  CHECK(q->shape == Shape{4096, 4096});
  CHECK(q->dtype == "bfloat16");
  CHECK(findParam(m, "model.layers.31.self_attn.k_proj.weight")->shape == Shape{1024, 4096});
  CHECK(findParam(m, "model.layers.5.mlp.down_proj.weight")->shape == Shape{4096, 14336});
  CHECK(findParam(m, "lm_head.weight")->shape == Shape{128256, 4096});
  CHECK(findParam(m, "model.norm.weight")->shape == Shape{4096});
  CHECK_FALSE(findParam(m, "model.layers.32.input_layernorm.weight"));
  CHECK(countMatching(m, "bias") == 0);
  CHECK(m.parameterBytes() == Approx(2.0 * 8'030'261'248));
  CHECK(m.config->kv_heads == 8);
  CHECK(m.config->head_dim == 128);
}

TEST_CASE("tied embeddings have no lm_head, GPT-2 uses Conv1D [in, out]", "[model]") {
  const Model gpt2 = loadPresetModel("gpt2");
  CHECK_FALSE(findParam(gpt2, "lm_head.weight"));
  CHECK(gpt2.params.front().dtype == "float32"); // no torch_dtype in GPT-2's config
  CHECK(findParam(gpt2, "transformer.h.0.attn.c_attn.weight")->shape == Shape{768, 2304});
  CHECK(findParam(gpt2, "transformer.h.11.mlp.c_fc.weight")->shape == Shape{768, 3072});
  CHECK(findParam(gpt2, "transformer.h.11.mlp.c_proj.weight")->shape == Shape{3072, 768});
  CHECK(findParam(gpt2, "transformer.wpe.weight")->shape == Shape{1024, 768});
  const Model gemma = loadPresetModel("gemma-2-27b");
  CHECK_FALSE(findParam(gemma, "lm_head.weight"));
  CHECK(findParam(gemma, "model.layers.45.pre_feedforward_layernorm.weight"));
  CHECK(findParam(gemma, "model.layers.45.post_feedforward_layernorm.weight"));
  CHECK(findParam(gemma, "model.layers.0.self_attn.q_proj.weight")->shape == Shape{4096, 4608}); // 32 heads x 128
  CHECK(gemma.config->sliding_window == 4096);
  CHECK(gemma.config->isSlidingLayer(0));
  CHECK_FALSE(gemma.config->isSlidingLayer(1));
}

TEST_CASE("GPT-2 blocks with grouped-query attention: Megatron's GPT with --num-query-groups", "[model]") {
  // Megatron-LM's functional test gpt3_7b_tp4_pp1_memory_speed: 32 layers, hidden 4096, 32 heads in
  // 8 query groups, MLP 4 x hidden, untied, 8192 learned positions, vocabulary 131073 padded to 131584.
  const Json cfg = {{"model_type", "gpt2"},        {"n_layer", 32},    {"n_embd", 4096},       {"n_head", 32},
                    {"num_key_value_heads", 8},    {"n_inner", 16384}, {"vocab_size", 131584}, {"n_positions", 8192},
                    {"tie_word_embeddings", false}};
  const Model m = modelFromHfConfig(cfg, "megatron-7b");
  CHECK(m.config->kv_heads == 8);
  // Queries 4096 plus keys and values of 8 heads of 128 each: 4096 + 2 x 1024.
  CHECK(findParam(m, "transformer.h.0.attn.c_attn.weight")->shape == Shape{4096, 6144});
  CHECK(findParam(m, "transformer.h.0.attn.c_attn.bias")->shape == Shape{6144});
  CHECK(findParam(m, "lm_head.weight")->shape == Shape{131584, 4096});
  // Per layer, by hand: 4096 x 6144 + 6144 + 4096 x 4096 + 4096 + 2 x 4096 x 16384 + 16384 + 4096
  // + two LayerNorms of 2 x 4096; then two 131584 x 4096 embeddings, 8192 x 4096 positions, ln_f.
  const std::int64_t layer = 4096LL * 6144 + 6144 + 4096LL * 4096 + 4096 + 2 * 4096LL * 16384 + 16384 + 4096 + 4 * 4096;
  CHECK(m.parameterCount() == 32 * layer + 2 * 131584LL * 4096 + 8192LL * 4096 + 2 * 4096);
  Json bad = cfg;
  bad["num_key_value_heads"] = 5;
  CHECK_THROWS_WITH(modelFromHfConfig(bad, "x"), "config.json: num_key_value_heads (5) does not divide n_head (32)");
}

TEST_CASE("Qwen2 biases q, k and v but not o", "[model]") {
  const Model m = loadPresetModel("qwen2.5-72b");
  CHECK(findParam(m, "model.layers.0.self_attn.q_proj.bias")->shape == Shape{8192});
  CHECK(findParam(m, "model.layers.0.self_attn.k_proj.bias")->shape == Shape{1024});
  CHECK(findParam(m, "model.layers.0.self_attn.v_proj.bias"));
  CHECK_FALSE(findParam(m, "model.layers.0.self_attn.o_proj.bias"));
  CHECK(countMatching(m, ".bias") == 80 * 3);
  CHECK(m.config->sliding_window == 0); // use_sliding_window is false
}

TEST_CASE("Mixtral has a router and eight experts per layer", "[model]") {
  const Model m = loadPresetModel("mixtral-8x7b");
  CHECK(findParam(m, "model.layers.0.block_sparse_moe.gate.weight")->shape == Shape{8, 4096});
  CHECK(findParam(m, "model.layers.31.block_sparse_moe.experts.7.w1.weight")->shape == Shape{14336, 4096});
  CHECK(findParam(m, "model.layers.31.block_sparse_moe.experts.7.w2.weight")->shape == Shape{4096, 14336});
  CHECK(countMatching(m, ".experts.") == 32 * 8 * 3);
  CHECK(m.config->experts == 8);
  CHECK(m.config->experts_per_token == 2);
}

TEST_CASE("DeepSeek-V3: MLA projections, dense first layers, shared and routed experts", "[model]") {
  const Model m = loadPresetModel("deepseek-v3");
  const auto& c = *m.config;
  CHECK(c.usesMla());
  CHECK(c.first_dense_layers == 3);
  CHECK(findParam(m, "model.layers.0.self_attn.q_a_proj.weight")->shape == Shape{1536, 7168});
  CHECK(findParam(m, "model.layers.0.self_attn.q_b_proj.weight")->shape == Shape{128 * 192, 1536});
  CHECK(findParam(m, "model.layers.0.self_attn.kv_a_proj_with_mqa.weight")->shape == Shape{576, 7168});
  CHECK(findParam(m, "model.layers.0.self_attn.kv_b_proj.weight")->shape == Shape{128 * 256, 512});
  CHECK(findParam(m, "model.layers.0.self_attn.o_proj.weight")->shape == Shape{7168, 128 * 128});
  CHECK(findParam(m, "model.layers.2.mlp.gate_proj.weight")->shape == Shape{18432, 7168});
  CHECK_FALSE(findParam(m, "model.layers.2.mlp.gate.weight"));
  CHECK(findParam(m, "model.layers.3.mlp.gate.weight")->shape == Shape{256, 7168});
  CHECK(findParam(m, "model.layers.3.mlp.gate.e_score_correction_bias")->shape == Shape{256});
  CHECK(findParam(m, "model.layers.60.mlp.experts.255.down_proj.weight")->shape == Shape{7168, 2048});
  CHECK(findParam(m, "model.layers.3.mlp.shared_experts.up_proj.weight")->shape == Shape{2048, 7168});
  CHECK(countMatching(m, ".mlp.experts.") == 58 * 256 * 3);
  CHECK_FALSE(findParam(m, "model.layers.61.input_layernorm.weight")); // no MTP layer
}

TEST_CASE("Qwen3 and Gemma 3 get q_norm and k_norm, Qwen3-8B count", "[model]") {
  // Qwen/Qwen3-8B config.json; 8,190,735,360 = 2*151936*4096 + 36*(2*4096^2 + 2*1024*4096 + 2*128
  // + 3*4096*12288 + 2*4096) + 4096, the model card's "8.2B".
  const Json qwen3 = {{"model_type", "qwen3"},   {"hidden_size", 4096},       {"intermediate_size", 12288},
                      {"num_hidden_layers", 36}, {"num_attention_heads", 32}, {"num_key_value_heads", 8},
                      {"head_dim", 128},         {"vocab_size", 151936},      {"tie_word_embeddings", false},
                      {"attention_bias", false}, {"torch_dtype", "bfloat16"}};
  const Model q = modelFromHfConfig(qwen3, "qwen3-8b");
  CHECK(q.parameterCount() == 8'190'735'360);
  CHECK(findParam(q, "model.layers.0.self_attn.q_norm.weight")->shape == Shape{128});
  CHECK(findParam(q, "model.layers.35.self_attn.k_norm.weight"));
  CHECK(countMatching(q, "bias") == 0);

  const Json gemma3 = {{"model_type", "gemma3"},
                       {"text_config",
                        {{"model_type", "gemma3_text"},
                         {"hidden_size", 64},
                         {"intermediate_size", 128},
                         {"num_hidden_layers", 12},
                         {"num_attention_heads", 4},
                         {"num_key_value_heads", 2},
                         {"head_dim", 32},
                         {"vocab_size", 1000},
                         {"sliding_window", 512}}},
                       {"torch_dtype", "bfloat16"}};
  const Model g = modelFromHfConfig(gemma3, "gemma3-tiny");
  CHECK(findParam(g, "model.layers.0.self_attn.q_norm.weight")->shape == Shape{32});
  CHECK(findParam(g, "model.layers.0.pre_feedforward_layernorm.weight"));
  CHECK_FALSE(findParam(g, "lm_head.weight"));
  CHECK(g.params.front().dtype == "bfloat16");
  // 1000*64 + 12*(64*128 + 2*64*64 + 128*64 + 2*32 + 3*64*128 + 4*64) + 64
  CHECK(g.parameterCount() == 64000 + 12 * (8192 + 8192 + 8192 + 64 + 24576 + 256) + 64);
  CHECK(g.config->sliding_window_pattern == 6);
  CHECK(g.config->isSlidingLayer(4));
  CHECK_FALSE(g.config->isSlidingLayer(5));
}

TEST_CASE("Llama attention_bias and mlp_bias add biases", "[model]") {
  const Json cfg = {{"model_type", "llama"},  {"hidden_size", 16},        {"intermediate_size", 32},
                    {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"vocab_size", 10},
                    {"attention_bias", true}, {"mlp_bias", true}};
  const Model m = modelFromHfConfig(cfg, "tiny");
  CHECK(findParam(m, "model.layers.0.self_attn.o_proj.bias")->shape == Shape{16});
  CHECK(findParam(m, "model.layers.0.mlp.down_proj.bias")->shape == Shape{16});
  CHECK(m.config->kv_heads == 4);
  CHECK(m.params.front().dtype == "float32");
}

TEST_CASE("config.json errors name the key", "[model]") {
  Json cfg = {{"model_type", "llama"},  {"hidden_size", 16},        {"intermediate_size", 32},
              {"num_hidden_layers", 1}, {"num_attention_heads", 4}, {"vocab_size", 10}};
  REQUIRE_NOTHROW(modelFromHfConfig(cfg, "ok"));
  auto without = cfg;
  without.erase("hidden_size");
  CHECK_THROWS_WITH(modelFromHfConfig(without, "x"), "config.json: hidden_size is missing");
  auto negative = cfg;
  negative["num_hidden_layers"] = -2;
  CHECK_THROWS_WITH(modelFromHfConfig(negative, "x"),
                    "config.json: num_hidden_layers must be a positive integer, got -2");
  auto text = cfg;
  text["vocab_size"] = "big";
  CHECK_THROWS_WITH(modelFromHfConfig(text, "x"), "config.json: vocab_size must be a positive integer, got \"big\"");
  auto huge = cfg;
  huge["intermediate_size"] = std::int64_t{1} << 40;
  CHECK_THROWS_WITH(modelFromHfConfig(huge, "x"),
                    "config.json: intermediate_size must be at most 2147483648, got 1099511627776");
  auto fractional = cfg;
  fractional["hidden_size"] = 16.5; // 16.0 would do: Python-written configs say 4096.0
  CHECK_THROWS_WITH(modelFromHfConfig(fractional, "x"),
                    "config.json: hidden_size must be a positive integer, got 16.5");
  fractional["hidden_size"] = 16.0;
  CHECK(modelFromHfConfig(fractional, "x").config->hidden == 16);
  auto gqa = cfg;
  gqa["num_key_value_heads"] = 3;
  CHECK_THROWS_WITH(modelFromHfConfig(gqa, "x"),
                    "config.json: num_key_value_heads (3) does not divide num_attention_heads (4)");
  auto dtype = cfg;
  dtype["torch_dtype"] = "float7";
  CHECK_THROWS_WITH(modelFromHfConfig(dtype, "x"), Catch::Contains("unknown dtype 'float7'"));
  auto unknown = cfg;
  unknown["model_type"] = "bert";
  try {
    modelFromHfConfig(unknown, "x");
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::NotImplementedError);
    CHECK_THAT(e.what(), Catch::Contains("model_type 'bert' is not supported"));
  }
  CHECK_THROWS_WITH(modelFromHfConfig(Json::array(), "x"), "config.json must be a JSON object, got a list");
  CHECK_THROWS_WITH(loadPresetModel("llama-9"),
                    Catch::Contains("unknown model preset 'llama-9' (known: deepseek-v3, gemma-2-27b"));
}

TEST_CASE("layer_types decides which layers use a sliding window", "[model]") {
  Json cfg = {{"model_type", "gemma3_text"},
              {"hidden_size", 16},
              {"intermediate_size", 32},
              {"num_hidden_layers", 4},
              {"num_attention_heads", 2},
              {"head_dim", 8},
              {"vocab_size", 10},
              {"sliding_window", 512},
              {"layer_types", {"sliding_attention", "sliding_attention", "full_attention", "sliding_attention"}}};
  auto c = modelConfigFromHf(cfg);
  CHECK(c.sliding_window_pattern == 3);
  CHECK(c.isSlidingLayer(0));
  CHECK_FALSE(c.isSlidingLayer(2));
  CHECK(c.isSlidingLayer(3));
  cfg["layer_types"] = {"full_attention", "full_attention", "full_attention", "full_attention"};
  CHECK(modelConfigFromHf(cfg).sliding_window == 0);
  cfg["layer_types"] = {"sliding_attention", "full_attention", "full_attention", "sliding_attention"};
  CHECK_THROWS_WITH(
      modelConfigFromHf(cfg),
      "config.json: layer_types: layer 2 breaks the periodic sliding/global pattern this estimate supports");
  cfg["layer_types"] = {"sliding_attention"};
  CHECK_THROWS_WITH(modelConfigFromHf(cfg), "config.json: layer_types must be a list of 4 layer types, got 1");
  cfg["layer_types"] = {"sliding_attention", "local", "full_attention", "full_attention"};
  CHECK_THROWS_WITH(modelConfigFromHf(cfg),
                    "config.json: layer_types[1] must be one of full_attention, sliding_attention, got \"local\"");
}
