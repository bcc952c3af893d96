// SPDX-License-Identifier: Apache-2.0
// Reads the architecture numbers out of a Hugging Face config.json. Key names and defaults follow
// each family's transformers configuration class, so a config that omits a key means what it
// means to transformers (num_key_value_heads defaults to num_attention_heads, Gemma ties its
// embeddings, ...).
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <algorithm>
#include <cmath>
#include <tuple>

namespace shardscope {

namespace {

// The families we synthesize, by HF model_type.
const std::vector<std::string> kSupported = {"llama",       "mistral",     "mixtral",     "qwen2",  "qwen3",
                                             "qwen3_moe",   "qwen3_next",  "gemma",       "gemma2", "gemma3",
                                             "gemma3_text", "gpt2",        "gpt_oss",     "llama4", "llama4_text",
                                             "olmo3",       "deepseek_v2", "deepseek_v3", "kimi_k2"};

// Configs written by Python sometimes say 4096.0: integral floats are accepted. Each number is at
// most 2^31, so products of a few of them stay exact in int64.
constexpr std::int64_t kLimit = std::int64_t{1} << 31;
IntRange atLeast(std::int64_t minimum) { return {minimum, kLimit, true}; }

std::int64_t requireInt(const JsonField& config, const char* key, std::int64_t minimum = 1) {
  return config[key].toInt(atLeast(minimum));
}

std::int64_t optInt(const JsonField& config, const char* key, std::int64_t fallback, std::int64_t minimum = 0) {
  return config[key].intOr(fallback, atLeast(minimum));
}

bool optBool(const JsonField& config, const char* key, bool fallback) { return config[key].boolOr(fallback); }

bool tiesByDefault(const std::string& type) {
  return type == "gemma" || type == "gemma2" || type == "gemma3" || type == "gemma3_text" || type == "gpt2";
}

// transformers >= 4.53 lists each layer's attention in "layer_types" ("sliding_attention" /
// "full_attention"). It overrides the family default when present; ModelConfig keeps it as the
// period of global layers, which every released model follows.
void applyLayerTypes(const JsonField& config, ModelConfig& c) {
  const JsonField types = config["layer_types"];
  if (!types.present()) return;
  const std::string expected = "a list of " + std::to_string(c.num_layers) + " layer types";
  if (static_cast<std::int64_t>(types.toArray(expected).size()) != c.num_layers)
    types.fail("must be " + expected + ", got " + std::to_string(types.json().size()));
  std::vector<bool> sliding;
  for (std::size_t i = 0; i < types.json().size(); ++i)
    sliding.push_back(types[i].toChoice({"full_attention", "sliding_attention"}) == 1);
  const auto firstGlobal = std::find(sliding.begin(), sliding.end(), false);
  if (std::find(sliding.begin(), sliding.end(), true) == sliding.end()) {
    c.sliding_window = 0; // every layer global
    return;
  }
  if (c.sliding_window <= 0) c.sliding_window = optInt(config, "sliding_window", 0);
  if (c.sliding_window <= 0) types.fail("has sliding layers but sliding_window is missing");
  c.sliding_window_pattern = firstGlobal == sliding.end() ? 0 : (firstGlobal - sliding.begin()) + 1;
  for (std::int64_t i = 0; i < c.num_layers; ++i)
    if (c.isSlidingLayer(i) != sliding[static_cast<std::size_t>(i)])
      throwNotImplemented(types.subject() + ": layer " + std::to_string(i) +
                          " breaks the periodic sliding/global pattern this estimate supports");
}

// The key giving experts per token: gpt-oss configs may carry only OpenAI's experts_per_token.
const char* perTokenKey(const JsonField& config, const std::string& type) {
  const bool openAiKey =
      type == "gpt_oss" && !config["num_experts_per_tok"].present() && config["experts_per_token"].present();
  return openAiKey ? "experts_per_token" : "num_experts_per_tok";
}

// Qwen3-Next: Gated DeltaNet layers (linear attention) with a full-attention layer every
// full_attention_interval-th (index interval-1, 2*interval-1, ...), or as layer_types lists them.
void applyLinearAttention(const JsonField& config, ModelConfig& c) {
  const JsonField types = config["layer_types"];
  if (!types.present()) {
    c.linear_attention_layers = c.num_layers - c.num_layers / optInt(config, "full_attention_interval", 4, 1);
    return;
  }
  const std::string expected = "a list of " + std::to_string(c.num_layers) + " layer types";
  if (static_cast<std::int64_t>(types.toArray(expected).size()) != c.num_layers)
    types.fail("must be " + expected + ", got " + std::to_string(types.json().size()));
  c.linear_attention_layers = 0;
  for (std::size_t i = 0; i < types.json().size(); ++i)
    c.linear_attention_layers += types[i].toChoice({"full_attention", "linear_attention"}) == 1 ? 1 : 0;
}

// GPT-2 names its sizes its own way (n_layer, n_embd, ...) and has an ungated MLP.
void readGpt2(const JsonField& config, ModelConfig& c) {
  c.num_layers = requireInt(config, "n_layer");
  c.hidden = requireInt(config, "n_embd");
  c.heads = requireInt(config, "n_head");
  // Not a GPT-2 key: Megatron's GPT with grouped-query attention (--num-query-groups) keeps
  // GPT-2's blocks with fewer key/value heads; the Hugging Face name says how many.
  c.kv_heads = optInt(config, "num_key_value_heads", c.heads, 1);
  if (c.heads % c.kv_heads != 0)
    config["num_key_value_heads"].fail("(" + std::to_string(c.kv_heads) + ") does not divide n_head (" +
                                       std::to_string(c.heads) + ")");
  c.vocab = requireInt(config, "vocab_size");
  c.max_positions = requireInt(config, "n_positions");
  c.ffn = optInt(config, "n_inner", 4 * c.hidden, 1);
  if (c.hidden % c.heads != 0)
    config["n_embd"].fail("(" + std::to_string(c.hidden) + ") is not a multiple of n_head (" + std::to_string(c.heads) +
                          ")");
  c.head_dim = c.hidden / c.heads;
  c.gated_mlp = false;
}

// The experts of a mixture-of-experts family, and DeepSeek's latent attention (MLA).
void readExperts(const JsonField& config, ModelConfig& c) {
  const std::string& t = c.model_type;
  if (t == "mixtral") {
    c.experts = requireInt(config, "num_local_experts");
    c.experts_per_token = requireInt(config, "num_experts_per_tok");
    c.moe_ffn = c.ffn;
  } else if (t == "qwen3_moe") {
    c.experts = requireInt(config, "num_experts");
    c.experts_per_token = requireInt(config, "num_experts_per_tok");
    c.moe_ffn = requireInt(config, "moe_intermediate_size");
  } else if (t == "llama4" || t == "llama4_text") {
    // Llama4TextConfig: intermediate_size is an expert's width, intermediate_size_mlp the dense
    // layers' (Maverick interleaves them); each MoE layer adds one shared expert as wide as a routed one.
    c.experts = requireInt(config, "num_local_experts");
    c.experts_per_token = requireInt(config, "num_experts_per_tok");
    c.moe_ffn = c.ffn;
    c.ffn = optInt(config, "intermediate_size_mlp", 16384, 1);
    c.shared_experts = 1;
  } else if (t == "gpt_oss") {
    // The Hub config carries both num_experts_per_tok (transformers) and experts_per_token (OpenAI's
    // own); intermediate_size is an expert's width (every layer is MoE).
    c.experts = requireInt(config, "num_local_experts");
    c.experts_per_token = requireInt(config, perTokenKey(config, t));
    c.moe_ffn = c.ffn;
  } else if (t == "qwen3_next") {
    c.experts = requireInt(config, "num_experts");
    c.experts_per_token = requireInt(config, "num_experts_per_tok");
    c.moe_ffn = requireInt(config, "moe_intermediate_size");
    // One always-on expert of its own width, behind a sigmoid gate.
    c.shared_experts = requireInt(config, "shared_expert_intermediate_size", 0) > 0 ? 1 : 0;
    applyLinearAttention(config, c);
    // The Gated DeltaNet's key and value widths (heads x head_dim, Qwen3NextConfig's defaults) are
    // sizes like the others: at most 2^31, so the fused projections' widths stay exact.
    optInt(config, "linear_conv_kernel_dim", 4, 1);
    for (const auto& [heads, dim, fallback] : {std::tuple{"linear_num_key_heads", "linear_key_head_dim", 16},
                                               std::tuple{"linear_num_value_heads", "linear_value_head_dim", 32}}) {
      const std::int64_t n = optInt(config, heads, fallback, 1), d = optInt(config, dim, 128, 1);
      if (n * d > kLimit)
        config[heads].fail("(" + std::to_string(n) + ") x " + dim + " (" + std::to_string(d) + ") is more than 2^31");
    }
  } else if (t == "deepseek_v2" || t == "deepseek_v3" || t == "kimi_k2") {
    // Kimi K2 is DeepSeek-V3's architecture (its config names DeepseekV3ForCausalLM).
    c.experts = optInt(config, "n_routed_experts", 0);
    c.experts_per_token = c.experts ? requireInt(config, "num_experts_per_tok") : 0;
    c.moe_ffn = c.experts ? requireInt(config, "moe_intermediate_size") : 0;
    c.shared_experts = optInt(config, "n_shared_experts", 0);
    c.first_dense_layers = optInt(config, "first_k_dense_replace", 0);
    c.q_lora_rank = optInt(config, "q_lora_rank", 0);
    c.kv_lora_rank = requireInt(config, "kv_lora_rank");
    c.qk_nope_head_dim = requireInt(config, "qk_nope_head_dim");
    c.qk_rope_head_dim = requireInt(config, "qk_rope_head_dim");
    c.v_head_dim = requireInt(config, "v_head_dim");
    c.head_dim = c.qk_nope_head_dim + c.qk_rope_head_dim;
    c.kv_heads = c.heads; // MLA: every head has its own (decompressed) key and value
  }
}

// Local attention (sliding windows) and the check that a token has that many experts to route to.
void readLocalAttention(const JsonField& config, ModelConfig& c) {
  const std::string& t = c.model_type;
  if (t == "gemma2") {
    c.sliding_window = optInt(config, "sliding_window", 0);
    c.sliding_window_pattern = 2; // Gemma 2 alternates local and global layers, local first
  } else if (t == "gemma3" || t == "gemma3_text") {
    c.sliding_window = optInt(config, "sliding_window", 0);
    c.sliding_window_pattern = optInt(config, "sliding_window_pattern", 6, 1);
  } else if (t == "mistral" || t == "mixtral") {
    c.sliding_window = optInt(config, "sliding_window", 0);
  } else if (t == "qwen2" || t == "qwen3" || t == "qwen3_moe") {
    // Qwen keeps a sliding_window number in every config but only uses it when use_sliding_window.
    if (optBool(config, "use_sliding_window", false)) c.sliding_window = optInt(config, "sliding_window", 0);
  } else if (t == "gpt_oss") {
    c.sliding_window = optInt(config, "sliding_window", 128);
    c.sliding_window_pattern = 2; // GptOssConfig: sliding and full layers alternate, sliding first
  } else if (t == "olmo3") {
    c.sliding_window = optInt(config, "sliding_window", 4096);
    c.sliding_window_pattern = 4; // Olmo3Config: three sliding layers, then a full one
  }
  // A token cannot be routed to more experts than there are.
  if (c.experts_per_token > c.experts) {
    const bool localExperts = t == "mixtral" || t == "gpt_oss" || t == "llama4" || t == "llama4_text";
    const char* expertsKey = localExperts                            ? "num_local_experts"
                             : t == "qwen3_moe" || t == "qwen3_next" ? "num_experts"
                                                                     : "n_routed_experts";
    config[perTokenKey(config, t)].fail("(" + std::to_string(c.experts_per_token) + ") is larger than " + expertsKey +
                                        " (" + std::to_string(c.experts) + ")");
  }
}

} // namespace

const std::vector<std::string>& supportedHfModelTypes() { return kSupported; }

ModelConfig modelConfigFromHf(const Json& json) {
  const JsonField configIn = fileFields(json, "config.json", "");
  configIn.toObject("a JSON object");
  ModelConfig c;
  c.model_type = configIn["model_type"].toString();
  if (std::find(kSupported.begin(), kSupported.end(), c.model_type) == kSupported.end()) {
    std::string known;
    for (const auto& t : kSupported) known += (known.empty() ? "" : ", ") + t;
    throwNotImplemented("config.json: model_type '" + c.model_type + "' is not supported (supported: " + known + ")");
  }
  // Gemma 3's and Llama 4's multimodal configs nest the language model under text_config;
  // tie_word_embeddings may sit at either level.
  const bool nested = (c.model_type == "gemma3" || c.model_type == "llama4") && configIn["text_config"].present();
  const JsonField config = nested ? configIn["text_config"] : configIn;
  if (nested) config.toObject();
  c.tie_embeddings = optBool(configIn, "tie_word_embeddings", tiesByDefault(c.model_type));
  if (nested) c.tie_embeddings = optBool(config, "tie_word_embeddings", c.tie_embeddings);
  // Not a Hugging Face key: Shardscope's way for a config to say its MLP has one input projection
  // (MaxText's default decoder with mlp_activations ["relu"]).
  c.gated_mlp = optBool(config, "mlp_gated", true);
  // Falcon names the parallel block `parallel_attn`, GPT-NeoX `use_parallel_residual`.
  c.parallel_block = optBool(config, "parallel_attn", false) || optBool(config, "use_parallel_residual", false);

  if (c.model_type == "gpt2") {
    readGpt2(config, c);
    return c;
  }

  c.num_layers = requireInt(config, "num_hidden_layers");
  c.hidden = requireInt(config, "hidden_size");
  c.heads = requireInt(config, "num_attention_heads");
  c.kv_heads = optInt(config, "num_key_value_heads", c.heads, 1);
  c.vocab = requireInt(config, "vocab_size");
  c.max_positions = optInt(config, "max_position_embeddings", 0);
  c.ffn = requireInt(config, "intermediate_size");
  if (c.heads % c.kv_heads != 0)
    config["num_key_value_heads"].fail("(" + std::to_string(c.kv_heads) + ") does not divide num_attention_heads (" +
                                       std::to_string(c.heads) + ")");
  const std::string& t = c.model_type;
  if (config["head_dim"].present()) {
    c.head_dim = requireInt(config, "head_dim");
  } else if (t == "gpt_oss" || t == "qwen3_next") {
    c.head_dim = t == "gpt_oss" ? 64 : 256; // GptOssConfig's and Qwen3NextConfig's default head_dim
  } else {
    if (c.hidden % c.heads != 0)
      config["hidden_size"].fail("(" + std::to_string(c.hidden) +
                                 ") is not a multiple of num_attention_heads and head_dim is absent");
    c.head_dim = c.hidden / c.heads;
  }

  readExperts(config, c);

  readLocalAttention(config, c);
  // Llama 4 lists chunked_attention layers and Qwen3-Next linear_attention ones in layer_types:
  // not sliding windows (Qwen3-Next's were read above; Llama 4's chunks are not modelled).
  if (t != "llama4" && t != "llama4_text" && t != "qwen3_next") applyLayerTypes(config, c);
  return c;
}

} // namespace shardscope
