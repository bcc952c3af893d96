// SPDX-License-Identifier: Apache-2.0
// Hugging Face config.json families: Llama 4, gpt-oss, OLMo 3, Qwen3-Next, and Kimi K2 through
// DeepSeek-V3's architecture. Each flagship preset against the total its model card or paper
// publishes (within 3%: those totals are rounded), the exact count worked out by hand from the
// config, one layer's tensors against shapes worked out by hand, and what the step model sees.
#include "shardscope/base/json_text.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/step/step_time.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <fstream>
#include <sstream>

using namespace shardscope;

namespace {

const Param* findParam(const Model& m, const std::string& path) {
  for (const auto& p : m.params)
    if (p.path == path) return &p;
  return nullptr;
}

// A tensor's shape; {-1}, which no check expects, when the model has no such tensor.
Shape shapeOf(const Model& m, const std::string& path) {
  const Param* p = findParam(m, path);
  return p ? p->shape : Shape{-1};
}

std::int64_t countMatching(const Model& m, const std::string& needle) {
  return std::count_if(m.params.begin(), m.params.end(),
                       [&](const Param& p) { return p.path.find(needle) != std::string::npos; });
}

Json presetJson(const std::string& name) {
  const auto file = presetModelDirectory() / (name + ".json");
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return parseJsonText(text.str(), file.string());
}

// Within 3% of a published total, which model cards round (116.83B, 109B, 1.04T).
Approx published(double total) { return Approx(total).epsilon(0.03); }

} // namespace

TEST_CASE("gpt-oss-120b and gpt-oss-20b: biased attention with sinks, stacked biased experts", "[model]") {
  // Published totals: "gpt-oss-120b & gpt-oss-20b Model Card", https://arxiv.org/abs/2508.10925:
  // 116.83B and 20.91B total parameters.
  const Model big = loadPresetModel("gpt-oss-120b");
  const Model small = loadPresetModel("gpt-oss-20b");
  CHECK(static_cast<double>(big.parameterCount()) == published(116.83e9));
  CHECK(static_cast<double>(small.parameterCount()) == published(20.91e9));
  // By hand (hidden 2880, 64 heads and 8 KV heads of 64, 201088 tokens, untied):
  // attention q 2880x4096 + 4096, k and v 2 x (2880x512 + 512), o 4096x2880 + 2880, sinks 64 = 26,550,144;
  // MoE of 128 experts: router 2880x128 + 128, gate_up 128x2880x5760 + 128x5760, down 128x2880x2880 +
  // 128x2880 = 3,186,524,288; layer = 26,550,144 + two norms 5,760 + 3,186,524,288 = 3,213,080,192.
  const std::int64_t attention = 2880LL * 4096 + 4096 + 2 * (2880LL * 512 + 512) + 4096LL * 2880 + 2880 + 64;
  CHECK(attention == 26'550'144);
  const auto moe = [](std::int64_t e) {
    return 2880 * e + e + e * 2880 * 5760 + e * 5760 + e * 2880 * 2880 + e * 2880;
  };
  CHECK(moe(128) == 3'186'524'288);
  const std::int64_t embeddings = 2 * 201088LL * 2880 + 2880; // embed_tokens, lm_head, final norm
  CHECK(big.parameterCount() == 36 * (attention + 5760 + moe(128)) + embeddings);
  CHECK(big.parameterCount() == 116'829'156'672);
  CHECK(small.parameterCount() == 24 * (attention + 5760 + moe(32)) + embeddings);
  CHECK(small.parameterCount() == 20'914'757'184);

  // One layer: 64 query heads x 64 = 4096, 8 KV heads x 64 = 512; experts [E, in, out], gate and up
  // fused (2 x 2880 = 5760).
  const std::string p = "model.layers.0.";
  CHECK(shapeOf(big, p + "self_attn.q_proj.weight") == Shape{4096, 2880});
  CHECK(shapeOf(big, p + "self_attn.q_proj.bias") == Shape{4096});
  CHECK(shapeOf(big, p + "self_attn.k_proj.weight") == Shape{512, 2880});
  CHECK(shapeOf(big, p + "self_attn.o_proj.weight") == Shape{2880, 4096});
  CHECK(shapeOf(big, p + "self_attn.o_proj.bias") == Shape{2880});
  CHECK(shapeOf(big, p + "self_attn.sinks") == Shape{64});
  CHECK(shapeOf(big, p + "mlp.router.weight") == Shape{128, 2880});
  CHECK(shapeOf(big, p + "mlp.router.bias") == Shape{128});
  CHECK(shapeOf(big, p + "mlp.experts.gate_up_proj") == Shape{128, 2880, 5760});
  CHECK(shapeOf(big, p + "mlp.experts.gate_up_proj_bias") == Shape{128, 5760});
  CHECK(shapeOf(big, p + "mlp.experts.down_proj") == Shape{128, 2880, 2880});
  CHECK(shapeOf(big, p + "mlp.experts.down_proj_bias") == Shape{128, 2880});
  CHECK(big.params.front().dtype == "bfloat16");

  // The step model: 4 of 128 experts of 2880 per token; 128-token windows on every other layer,
  // sliding first (layer_types).
  const ModelConfig& c = *big.config;
  CHECK(c.experts == 128);
  CHECK(c.experts_per_token == 4);
  CHECK(c.moe_ffn == 2880);
  CHECK(c.head_dim == 64);
  CHECK(c.sliding_window == 128);
  CHECK(c.sliding_window_pattern == 2);
  CHECK(c.isSlidingLayer(0));
  CHECK_FALSE(c.isSlidingLayer(1));
  CHECK(classifyParams(big).moe_layers == 36);

  // OpenAI's own experts_per_token key stands in for num_experts_per_tok, and the alternation is
  // GptOssConfig's default without layer_types.
  Json cfg = presetJson("gpt-oss-20b");
  cfg.erase("num_experts_per_tok");
  cfg.erase("layer_types");
  cfg["experts_per_token"] = 2;
  const ModelConfig fewer = modelConfigFromHf(cfg);
  CHECK(fewer.experts_per_token == 2);
  CHECK(fewer.sliding_window_pattern == 2);
  cfg["experts_per_token"] = 40;
  CHECK_THROWS_WITH(modelConfigFromHf(cfg),
                    "config.json: experts_per_token (40) is larger than num_local_experts (32)");
}

TEST_CASE("Llama 4 Scout and Maverick: the language model, interleaved MoE layers, one shared expert", "[model]") {
  // Published totals (model cards, https://huggingface.co/meta-llama/Llama-4-Scout-17B-16E and
  // https://huggingface.co/meta-llama/Llama-4-Maverick-17B-128E): "17B (Activated) 109B (Total)" and
  // "17B (Activated) 400B (Total)". They include the vision encoder and projector, which are not
  // synthesized (only the language model is); from vision_config (34 layers of width 1408, MLP 5632,
  // 14x14 patches of 336x336 images) with modeling_llama4.py's Llama4VisionModel and
  // Llama4MultiModalProjector: per layer q/k/v/o with biases 4 x (1408^2 + 1408), fc1 1408x5632 + 5632,
  // fc2 5632x1408 + 1408, two LayerNorms (weight and bias) 4 x 1408 = 23,807,872, x 34 = 809,467,648;
  // patch embedding (3 x 14 x 14 = 588) x 1408, class embedding 1408, positions ((336 / 14)^2 + 1 =
  // 577) x 1408, two LayerNorms 4 x 1408, adapter 5632x4096 + 4096x4096, projector 4096x5120.
  const std::int64_t visionLayer = 4 * (1408LL * 1408 + 1408) + 1408LL * 5632 + 5632 + 5632LL * 1408 + 1408 + 4 * 1408;
  CHECK(visionLayer == 23'807'872);
  const std::int64_t vision =
      34 * visionLayer + 588LL * 1408 + 1408 + 577LL * 1408 + 4 * 1408 + 5632LL * 4096 + 4096LL * 4096 + 4096LL * 5120;
  CHECK(vision == 871'932'416);
  const Model scout = loadPresetModel("llama-4-scout-17b-16e");
  const Model maverick = loadPresetModel("llama-4-maverick-17b-128e");
  CHECK(static_cast<double>(scout.parameterCount() + vision) == published(109e9));
  CHECK(static_cast<double>(maverick.parameterCount() + vision) == published(400e9));

  // By hand (hidden 5120, 40 heads and 8 KV heads of 128, 202048 tokens, untied): attention 2 x
  // 5120^2 + 2 x 5120x1024 = 62,914,560; an MoE layer's router 5120xE, experts E x 5120 x 16384
  // (gate and up of 8192) and E x 8192 x 5120, shared expert 3 x 5120x8192; a dense layer 3 x
  // 5120x16384. Scout: 48 MoE layers of 16 experts; Maverick: 24 dense and 24 MoE of 128.
  const std::int64_t attention = 2 * 5120LL * 5120 + 2 * 5120LL * 1024;
  CHECK(attention == 62'914'560);
  const auto moe = [](std::int64_t e) { return 5120 * e + e * 5120 * 16384 + e * 8192 * 5120 + 3 * 5120LL * 8192; };
  CHECK(moe(16) == 2'139'176'960);
  CHECK(moe(128) == 16'232'611'840);
  const std::int64_t norms = 2 * 5120, dense = 3 * 5120LL * 16384;
  const std::int64_t embeddings = 2 * 202048LL * 5120 + 5120;
  CHECK(scout.parameterCount() == 48 * (attention + norms + moe(16)) + embeddings);
  CHECK(scout.parameterCount() == 107'769'861'120);
  CHECK(maverick.parameterCount() ==
        24 * (attention + norms + moe(128)) + 24 * (attention + norms + dense) + embeddings);
  CHECK(maverick.parameterCount() == 400'711'848'960);

  // Maverick's interleave_moe_layer_step 2: layers 1, 3, ... are MoE (Llama4TextConfig's moe_layers
  // default range(step - 1, layers, step)), layers 0, 2, ... dense of intermediate_size_mlp 16384.
  CHECK(shapeOf(maverick, "model.layers.0.feed_forward.gate_proj.weight") == Shape{16384, 5120});
  CHECK(shapeOf(maverick, "model.layers.0.feed_forward.down_proj.weight") == Shape{5120, 16384});
  CHECK_FALSE(findParam(maverick, "model.layers.0.feed_forward.router.weight"));
  const std::string p = "model.layers.1.";
  CHECK(shapeOf(maverick, p + "self_attn.q_proj.weight") == Shape{5120, 5120}); // 40 x 128
  CHECK(shapeOf(maverick, p + "self_attn.k_proj.weight") == Shape{1024, 5120}); // 8 x 128
  CHECK(shapeOf(maverick, p + "feed_forward.router.weight") == Shape{128, 5120});
  CHECK(shapeOf(maverick, p + "feed_forward.experts.gate_up_proj") == Shape{128, 5120, 16384});
  CHECK(shapeOf(maverick, p + "feed_forward.experts.down_proj") == Shape{128, 8192, 5120});
  CHECK(shapeOf(maverick, p + "feed_forward.shared_expert.up_proj.weight") == Shape{8192, 5120});
  CHECK_FALSE(findParam(maverick, p + "self_attn.q_norm.weight")); // the L2 query/key norm has no weight
  CHECK(countMatching(maverick, ".feed_forward.experts.") == 24 * 2);
  // Scout's moe_layers lists all 48.
  CHECK(shapeOf(scout, "model.layers.0.feed_forward.experts.gate_up_proj") == Shape{16, 5120, 16384});
  CHECK(countMatching(scout, ".feed_forward.router.") == 48);

  // The step model: one of E experts of 8192 per token plus a shared one; dense layers 16384 wide.
  const ModelConfig& c = *maverick.config;
  CHECK(c.model_type == "llama4");
  CHECK(c.experts == 128);
  CHECK(c.experts_per_token == 1);
  CHECK(c.moe_ffn == 8192);
  CHECK(c.ffn == 16384);
  CHECK(c.shared_experts == 1);
  CHECK(c.sliding_window == 0); // chunked attention is not modelled as a window
  const ParamRoles roles = classifyParams(maverick);
  CHECK(roles.moe_layers == 24);
  CHECK(roles.layers == 48);
  CHECK(classifyParams(scout).moe_layers == 48);

  // A bare text config (model_type llama4_text) reads the same.
  Json text = presetJson("llama-4-scout-17b-16e")["text_config"];
  const Model bare = modelFromHfConfig(text, "scout-text");
  CHECK(bare.parameterCount() == scout.parameterCount());
  CHECK(bare.config->model_type == "llama4_text");
}

TEST_CASE("OLMo 3: norms after attention and MLP only, query/key norms over all heads", "[model]") {
  // Published: "Olmo 3", https://arxiv.org/abs/2512.13961: models at the "7B and 32B parameter scales".
  const Model m = loadPresetModel("olmo-3-32b");
  CHECK(static_cast<double>(m.parameterCount()) == published(32e9));
  // By hand (hidden 5120, 40 heads and 8 KV heads of 128, MLP 27648, 64 layers, 100278 tokens,
  // untied): attention 2 x 5120^2 + 2 x 5120x1024 + q norm 5120 + k norm 1024 = 62,920,704; MLP
  // 3 x 5120x27648 = 424,673,280; two norms 10,240.
  const std::int64_t layer = 2 * 5120LL * 5120 + 2 * 5120LL * 1024 + 5120 + 1024 + 3 * 5120LL * 27648 + 2 * 5120;
  CHECK(layer == 487'604'224);
  CHECK(m.parameterCount() == 64 * layer + 2 * 100278LL * 5120 + 5120);
  CHECK(m.parameterCount() == 32'233'522'176);

  const std::string p = "model.layers.0.";
  CHECK_FALSE(findParam(m, p + "input_layernorm.weight"));
  CHECK(shapeOf(m, p + "self_attn.q_proj.weight") == Shape{5120, 5120});
  CHECK(shapeOf(m, p + "self_attn.k_proj.weight") == Shape{1024, 5120});
  CHECK(shapeOf(m, p + "self_attn.q_norm.weight") == Shape{5120}); // 40 heads x 128
  CHECK(shapeOf(m, p + "self_attn.k_norm.weight") == Shape{1024}); // 8 KV heads x 128
  CHECK(shapeOf(m, p + "post_attention_layernorm.weight") == Shape{5120});
  CHECK(shapeOf(m, p + "post_feedforward_layernorm.weight") == Shape{5120});
  CHECK(shapeOf(m, p + "mlp.gate_proj.weight") == Shape{27648, 5120});
  CHECK(countMatching(m, "bias") == 0);

  // Three sliding layers of 4096 tokens, then a full one (Olmo3Config's default layer_types).
  const ModelConfig& c = *m.config;
  CHECK(c.sliding_window == 4096);
  CHECK(c.sliding_window_pattern == 4);
  CHECK(c.isSlidingLayer(2));
  CHECK_FALSE(c.isSlidingLayer(3));

  // OLMo 3 7B with its layer_types listed (allenai Olmo 3 7B config.json: hidden 4096, 32 heads, no
  // GQA, MLP 11008): 32 x (4 x 4096^2 + 2 x 4096 + 3 x 4096x11008 + 2 x 4096) + 2 x 100278x4096 + 4096.
  Json seven = presetJson("olmo-3-32b");
  seven["hidden_size"] = 4096;
  seven["num_hidden_layers"] = 32;
  seven["num_attention_heads"] = 32;
  seven["num_key_value_heads"] = 32;
  seven["intermediate_size"] = 11008;
  Json types = Json::array();
  for (int i = 0; i < 32; ++i) types.push_back(i % 4 == 3 ? "full_attention" : "sliding_attention");
  seven["layer_types"] = types;
  const Model s = modelFromHfConfig(seven, "olmo-3-7b");
  CHECK(s.parameterCount() ==
        32 * (4 * 4096LL * 4096 + 2 * 4096 + 3 * 4096LL * 11008 + 2 * 4096) + 2 * 100278LL * 4096 + 4096);
  CHECK(s.parameterCount() == 7'298'011'136);
  CHECK(s.config->sliding_window_pattern == 4);
}

TEST_CASE("Qwen3-Next-80B-A3B: Gated DeltaNet and gated attention layers, 512 experts and a shared one", "[model]") {
  // Published: model card https://huggingface.co/Qwen/Qwen3-Next-80B-A3B-Instruct, 80B total
  // parameters of which 3B are active per token (the Hub's own "81B" counts the multi-token-prediction
  // block, which transformers does not load).
  const Model m = loadPresetModel("qwen3-next-80b-a3b");
  CHECK(static_cast<double>(m.parameterCount()) == published(80e9));
  // By hand (hidden 2048, 48 layers of which every 4th has full attention, 151936 tokens, untied):
  // Gated DeltaNet: keys 16 heads x 128 = 2048, values 32 x 128 = 4096; in_proj_qkvz 2048 x (2 x 2048
  // + 2 x 4096), in_proj_ba 2048 x 64, conv1d 8192 x 4, A_log and dt_bias 32 each, norm 128, out_proj
  // 4096x2048 = 33,718,464. Full attention: q (with the output gate) 2048 x 2 x 16 x 256, k and v
  // 2 x 2048 x 512, o 4096x2048, q/k norms 2 x 256 = 27,263,488. MoE: router 2048x512, 512 experts of
  // 3 x 2048x512, shared expert 3 x 2048x512, its gate 2048 = 1,614,809,088.
  const std::int64_t gdn = 2048LL * 12288 + 2048 * 64 + 8192 * 4 + 32 + 32 + 128 + 4096LL * 2048;
  CHECK(gdn == 33'718'464);
  const std::int64_t full = 2048LL * 2 * 16 * 256 + 2 * 2048LL * 512 + 4096LL * 2048 + 2 * 256;
  CHECK(full == 27'263'488);
  const std::int64_t moe = 2048LL * 512 + 512 * 3 * 2048LL * 512 + 3 * 2048LL * 512 + 2048;
  CHECK(moe == 1'614'809'088);
  const std::int64_t norms = 2 * 2048;
  CHECK(m.parameterCount() == 36 * (gdn + norms + moe) + 12 * (full + norms + moe) + 2 * 151936LL * 2048 + 2048);
  CHECK(m.parameterCount() == 79'674'391'296);

  const std::string linear = "model.layers.0.";
  CHECK(shapeOf(m, linear + "linear_attn.in_proj_qkvz.weight") == Shape{12288, 2048});
  CHECK(shapeOf(m, linear + "linear_attn.in_proj_ba.weight") == Shape{64, 2048});
  CHECK(shapeOf(m, linear + "linear_attn.conv1d.weight") == Shape{8192, 1, 4}); // 2 x 2048 + 4096 channels
  CHECK(shapeOf(m, linear + "linear_attn.A_log") == Shape{32});
  CHECK(shapeOf(m, linear + "linear_attn.dt_bias") == Shape{32});
  CHECK(shapeOf(m, linear + "linear_attn.norm.weight") == Shape{128});
  CHECK(shapeOf(m, linear + "linear_attn.out_proj.weight") == Shape{2048, 4096});
  CHECK_FALSE(findParam(m, linear + "self_attn.q_proj.weight"));
  const std::string attention = "model.layers.3.";
  CHECK(shapeOf(m, attention + "self_attn.q_proj.weight") == Shape{8192, 2048}); // 2 x 16 heads x 256
  CHECK(shapeOf(m, attention + "self_attn.k_proj.weight") == Shape{512, 2048});  // 2 KV heads x 256
  CHECK(shapeOf(m, attention + "self_attn.o_proj.weight") == Shape{2048, 4096});
  CHECK(shapeOf(m, attention + "self_attn.q_norm.weight") == Shape{256});
  CHECK_FALSE(findParam(m, attention + "linear_attn.in_proj_qkvz.weight"));
  CHECK(shapeOf(m, attention + "mlp.gate.weight") == Shape{512, 2048});
  CHECK(shapeOf(m, attention + "mlp.experts.511.down_proj.weight") == Shape{2048, 512});
  CHECK(shapeOf(m, attention + "mlp.shared_expert.gate_proj.weight") == Shape{512, 2048});
  CHECK(shapeOf(m, attention + "mlp.shared_expert_gate.weight") == Shape{1, 2048});
  CHECK(countMatching(m, ".linear_attn.in_proj_qkvz.") == 36);

  // The step model: 36 layers without a quadratic core or KV cache; 10 of 512 experts of 512 and a
  // shared one per token.
  const ModelConfig& c = *m.config;
  CHECK(c.linear_attention_layers == 36);
  CHECK(c.head_dim == 256);
  CHECK(c.experts == 512);
  CHECK(c.experts_per_token == 10);
  CHECK(c.moe_ffn == 512);
  CHECK(c.shared_experts == 1);
  CHECK(classifyParams(m).moe_layers == 48);

  // layer_types, when listed, says which layers are linear.
  Json cfg = presetJson("qwen3-next-80b-a3b");
  cfg["num_hidden_layers"] = 4;
  cfg["num_experts"] = 4;
  cfg["num_experts_per_tok"] = 2;
  cfg["layer_types"] = {"full_attention", "linear_attention", "linear_attention", "full_attention"};
  const Model small = modelFromHfConfig(cfg, "qwen3-next-tiny");
  CHECK(small.config->linear_attention_layers == 2);
  CHECK(findParam(small, "model.layers.0.self_attn.q_proj.weight"));
  CHECK(findParam(small, "model.layers.1.linear_attn.out_proj.weight"));
  cfg["layer_types"][2] = "sliding_attention";
  CHECK_THROWS_WITH(
      modelFromHfConfig(cfg, "x"),
      Catch::Matchers::StartsWith("config.json: layer_types[2] must be one of full_attention, linear_attention, got "));
}

TEST_CASE("Kimi K2: DeepSeek-V3's architecture with 384 experts, 64 heads and one dense layer", "[model]") {
  // Published: "Kimi K2: Open Agentic Intelligence", https://arxiv.org/abs/2507.20534: "1.04 trillion
  // total parameters with 32 billion activated" (as MaxText's tests/end_to_end/tpu/kimi/Run_Kimi.md
  // quotes it); the model card, https://huggingface.co/moonshotai/Kimi-K2-Instruct, rounds to 1T.
  const Model m = loadPresetModel("kimi-k2");
  CHECK(static_cast<double>(m.parameterCount()) == published(1.04e12));
  CHECK(static_cast<double>(m.parameterCount()) == published(1e12));
  // By hand (hidden 7168, 64 heads, q_lora 1536, kv_lora 512, nope 128, rope 64, v 128, 163840
  // tokens, untied): MLA q_a 7168x1536 + norm 1536 + q_b 1536 x 64 x 192 + kv_a 7168 x 576 + norm 512 +
  // kv_b 512 x 64 x 256 + o 64 x 128 x 7168 = 101,124,096; the dense layer's MLP 3 x 7168x18432; an
  // MoE layer's router 7168x384 + correction bias 384, 384 experts and one shared of 3 x 7168x2048.
  const std::int64_t mla =
      7168LL * 1536 + 1536 + 1536LL * 64 * 192 + 7168LL * 576 + 512 + 512LL * 64 * 256 + 64LL * 128 * 7168;
  CHECK(mla == 101'124'096);
  const std::int64_t moe = 7168LL * 384 + 384 + 385 * 3 * 7168LL * 2048;
  CHECK(moe == 16'958'226'816);
  const std::int64_t norms = 2 * 7168;
  CHECK(m.parameterCount() ==
        (mla + norms + 3 * 7168LL * 18432) + 60 * (mla + norms + moe) + 2 * 163840LL * 7168 + 7168);
  CHECK(m.parameterCount() == 1'026'408'232'448);

  CHECK(shapeOf(m, "model.layers.0.mlp.gate_proj.weight") == Shape{18432, 7168});
  const std::string p = "model.layers.1.";
  CHECK(shapeOf(m, p + "self_attn.q_b_proj.weight") == Shape{64 * 192, 1536});
  CHECK(shapeOf(m, p + "self_attn.kv_b_proj.weight") == Shape{64 * 256, 512});
  CHECK(shapeOf(m, p + "self_attn.o_proj.weight") == Shape{7168, 64 * 128});
  CHECK(shapeOf(m, p + "mlp.gate.weight") == Shape{384, 7168});
  CHECK(shapeOf(m, p + "mlp.gate.e_score_correction_bias") == Shape{384});
  CHECK(shapeOf(m, p + "mlp.experts.383.down_proj.weight") == Shape{7168, 2048});
  CHECK(shapeOf(m, p + "mlp.shared_experts.up_proj.weight") == Shape{2048, 7168});

  const ModelConfig& c = *m.config;
  CHECK(c.model_type == "kimi_k2");
  CHECK(c.usesMla());
  CHECK(c.first_dense_layers == 1);
  CHECK(c.experts == 384);
  CHECK(c.experts_per_token == 8);
  CHECK(c.shared_experts == 1);
  CHECK(classifyParams(m).moe_layers == 60);
}
