// SPDX-License-Identifier: Apache-2.0
// Synthesizes the tensors of a Hugging Face checkpoint from its config.json: the names and shapes
// that model.safetensors would hold, without downloading it (as `accelerate estimate-memory`
// builds the model on the meta device). Linear weights are [out_features, in_features] as
// torch.nn.Linear stores them; GPT-2's Conv1D stores [in, out].
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <algorithm>

namespace shardscope {

namespace {

class Builder {
public:
  explicit Builder(std::string dtype) : dtype_(std::move(dtype)) {}
  void add(std::string path, Shape shape) { params_.push_back({std::move(path), std::move(shape), dtype_, {}}); }
  // A Linear layer: weight [out, in] and, optionally, bias [out].
  void linear(const std::string& prefix, std::int64_t in, std::int64_t out, bool bias = false) {
    add(prefix + ".weight", {out, in});
    if (bias) add(prefix + ".bias", {out});
  }
  std::vector<Param> take() { return std::move(params_); }

private:
  std::string dtype_;
  std::vector<Param> params_;
};

// A size modelConfigFromHf has already checked (at most 2^31; 4096.0 reads as 4096).
constexpr IntRange kSize{1, std::int64_t{1} << 31, true};

std::string dtypeOf(const JsonField& config) {
  // transformers >= 4.56 writes "dtype", older versions "torch_dtype"; checkpoints without either
  // (GPT-2) load as float32.
  for (const char* key : {"torch_dtype", "dtype"}) {
    const JsonField field = config[key];
    if (!field.present()) continue;
    const std::string text = field.toString();
    auto name = canonicalDtype(text);
    if (!name) field.fail("names an unknown dtype '" + text + "'");
    return *name;
  }
  if (const JsonField text = config["text_config"]; text.present() && text.json().is_object()) return dtypeOf(text);
  return "float32";
}

JsonField section(const JsonField& config) {
  if (const JsonField text = config["text_config"]; text.present() && text.json().is_object()) return text;
  return config;
}

void gpt2(Builder& b, const ModelConfig& c) {
  const auto h = c.hidden;
  b.add("transformer.wte.weight", {c.vocab, h});
  b.add("transformer.wpe.weight", {c.max_positions, h});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "transformer.h." + std::to_string(i);
    b.add(p + ".ln_1.weight", {h});
    b.add(p + ".ln_1.bias", {h});
    // Conv1D keeps [in, out]: the transpose of Linear.
    // Queries, keys and values fused: h + 2 x kv_heads x head_dim outputs (3h without GQA).
    const std::int64_t qkv = h + 2 * c.kv_heads * c.head_dim;
    b.add(p + ".attn.c_attn.weight", {h, qkv});
    b.add(p + ".attn.c_attn.bias", {qkv});
    b.add(p + ".attn.c_proj.weight", {h, h});
    b.add(p + ".attn.c_proj.bias", {h});
    b.add(p + ".ln_2.weight", {h});
    b.add(p + ".ln_2.bias", {h});
    b.add(p + ".mlp.c_fc.weight", {h, c.ffn});
    b.add(p + ".mlp.c_fc.bias", {c.ffn});
    b.add(p + ".mlp.c_proj.weight", {c.ffn, h});
    b.add(p + ".mlp.c_proj.bias", {h});
  }
  b.add("transformer.ln_f.weight", {h});
  b.add("transformer.ln_f.bias", {h});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, h});
}

// Self-attention of the Llama-like families (Llama, Mistral, Mixtral, Qwen, Gemma).
void attention(Builder& b, const std::string& p, const ModelConfig& c, bool qkvBias, bool oBias, bool qkNorm) {
  const auto q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
  b.linear(p + ".self_attn.q_proj", c.hidden, q, qkvBias);
  b.linear(p + ".self_attn.k_proj", c.hidden, kv, qkvBias);
  b.linear(p + ".self_attn.v_proj", c.hidden, kv, qkvBias);
  b.linear(p + ".self_attn.o_proj", q, c.hidden, oBias);
  if (qkNorm) {
    b.add(p + ".self_attn.q_norm.weight", {c.head_dim});
    b.add(p + ".self_attn.k_norm.weight", {c.head_dim});
  }
}

// Multi-head latent attention (DeepSeek-V2/V3): queries through a low-rank bottleneck (unless
// q_lora_rank is null), keys and values through a shared latent of kv_lora_rank plus one shared
// rotary key of qk_rope_head_dim.
void mla(Builder& b, const std::string& p, const ModelConfig& c) {
  const auto qHead = c.qk_nope_head_dim + c.qk_rope_head_dim;
  const std::string a = p + ".self_attn";
  if (c.q_lora_rank > 0) {
    b.linear(a + ".q_a_proj", c.hidden, c.q_lora_rank);
    b.add(a + ".q_a_layernorm.weight", {c.q_lora_rank});
    b.linear(a + ".q_b_proj", c.q_lora_rank, c.heads * qHead);
  } else {
    b.linear(a + ".q_proj", c.hidden, c.heads * qHead);
  }
  b.linear(a + ".kv_a_proj_with_mqa", c.hidden, c.kv_lora_rank + c.qk_rope_head_dim);
  b.add(a + ".kv_a_layernorm.weight", {c.kv_lora_rank});
  b.linear(a + ".kv_b_proj", c.kv_lora_rank, c.heads * (c.qk_nope_head_dim + c.v_head_dim));
  b.linear(a + ".o_proj", c.heads * c.v_head_dim, c.hidden);
}

// A gated MLP (SwiGLU / GeGLU): gate and up [ffn, h], down [h, ffn]; without the gate when the
// config says its MLP has one input projection.
void gatedMlp(Builder& b, const std::string& p, std::int64_t hidden, std::int64_t ffn, bool bias = false,
              bool gated = true) {
  if (gated) b.linear(p + ".gate_proj", hidden, ffn, bias);
  b.linear(p + ".up_proj", hidden, ffn, bias);
  b.linear(p + ".down_proj", ffn, hidden, bias);
}

void llamaLike(Builder& b, const ModelConfig& c, const JsonField& config) {
  const std::string& t = c.model_type;
  const bool gemmaExtraNorms = t == "gemma2" || t == "gemma3" || t == "gemma3_text";
  // Llama and Qwen3 put attention_bias on q, k, v and o; Qwen2 always biases q, k, v and never o.
  const bool attnBias = (t == "llama" || t == "qwen3" || t == "qwen3_moe") && config["attention_bias"].boolOr(false);
  const bool qkvBias = t == "qwen2" || attnBias;
  const bool qkNorm = t == "qwen3" || t == "qwen3_moe" || t == "gemma3" || t == "gemma3_text";
  const bool mlpBias = t == "llama" && config["mlp_bias"].boolOr(false);
  // Qwen3-MoE: which layers are sparse.
  const JsonField mlpOnlyField = config["mlp_only_layers"];
  const auto mlpOnly = mlpOnlyField.present() ? mlpOnlyField.toInts() : std::vector<std::int64_t>{};
  const std::int64_t sparseStep = t == "qwen3_moe" ? config["decoder_sparse_step"].intOr(1, kPositiveInt) : 1;

  b.add("model.embed_tokens.weight", {c.vocab, c.hidden});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.add(p + ".input_layernorm.weight", {c.hidden});
    attention(b, p, c, qkvBias, attnBias, qkNorm);
    b.add(p + ".post_attention_layernorm.weight", {c.hidden});
    if (gemmaExtraNorms) {
      b.add(p + ".pre_feedforward_layernorm.weight", {c.hidden});
      b.add(p + ".post_feedforward_layernorm.weight", {c.hidden});
    }
    if (t == "mixtral") {
      b.linear(p + ".block_sparse_moe.gate", c.hidden, c.experts);
      for (std::int64_t e = 0; e < c.experts; ++e) {
        const std::string x = p + ".block_sparse_moe.experts." + std::to_string(e);
        b.linear(x + ".w1", c.hidden, c.moe_ffn);
        b.linear(x + ".w2", c.moe_ffn, c.hidden);
        b.linear(x + ".w3", c.hidden, c.moe_ffn);
      }
    } else if (t == "qwen3_moe" && c.experts > 0 && std::find(mlpOnly.begin(), mlpOnly.end(), i) == mlpOnly.end() &&
               (i + 1) % sparseStep == 0) {
      b.linear(p + ".mlp.gate", c.hidden, c.experts);
      for (std::int64_t e = 0; e < c.experts; ++e)
        gatedMlp(b, p + ".mlp.experts." + std::to_string(e), c.hidden, c.moe_ffn);
    } else {
      gatedMlp(b, p + ".mlp", c.hidden, c.ffn, mlpBias, c.gated_mlp);
    }
  }
  b.add("model.norm.weight", {c.hidden});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, c.hidden});
}

// Llama 4's text model (Llama4TextModel): MoE layers as moe_layers lists them, else every
// interleave_moe_layer_step-th (index step-1, 2*step-1, ...); the others a dense MLP of
// intermediate_size_mlp. Routed experts are two stacked tensors [E, in, out] (bmm operands, not
// Linear weights), gate and up concatenated; one shared expert beside them. The L2 query/key norm
// has no weight; NoPE layers differ only in their rotary embedding.
void llama4(Builder& b, const ModelConfig& c, const JsonField& config) {
  const JsonField listed = config["moe_layers"];
  const auto moeLayers =
      listed.present() ? listed.toInts(IntRange{0, c.num_layers - 1, true}) : std::vector<std::int64_t>{};
  const std::int64_t step = config["interleave_moe_layer_step"].intOr(1, kSize);
  const bool bias = config["attention_bias"].boolOr(false);
  b.add("model.embed_tokens.weight", {c.vocab, c.hidden});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.add(p + ".input_layernorm.weight", {c.hidden});
    attention(b, p, c, bias, bias, false);
    b.add(p + ".post_attention_layernorm.weight", {c.hidden});
    const std::string f = p + ".feed_forward";
    const bool moe =
        listed.present() ? std::find(moeLayers.begin(), moeLayers.end(), i) != moeLayers.end() : (i + 1) % step == 0;
    if (!moe) {
      gatedMlp(b, f, c.hidden, c.ffn);
      continue;
    }
    b.linear(f + ".router", c.hidden, c.experts);
    b.add(f + ".experts.gate_up_proj", {c.experts, c.hidden, 2 * c.moe_ffn});
    b.add(f + ".experts.down_proj", {c.experts, c.moe_ffn, c.hidden});
    gatedMlp(b, f + ".shared_expert", c.hidden, c.moe_ffn);
  }
  b.add("model.norm.weight", {c.hidden});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, c.hidden});
}

// gpt-oss: biased attention with one learned sink logit per head; every layer MoE, the router
// biased, the experts stacked [E, in, out] with biases (gate and up interleaved in gate_up_proj).
// The Hub checkpoint stores the expert weights as MXFP4 *_blocks/*_scales; these are the bf16
// tensors transformers dequantizes them to.
void gptOss(Builder& b, const ModelConfig& c, const JsonField& config) {
  const bool bias = config["attention_bias"].boolOr(true);
  b.add("model.embed_tokens.weight", {c.vocab, c.hidden});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.add(p + ".input_layernorm.weight", {c.hidden});
    attention(b, p, c, bias, bias, false);
    b.add(p + ".self_attn.sinks", {c.heads});
    b.add(p + ".post_attention_layernorm.weight", {c.hidden});
    const std::string m = p + ".mlp";
    b.linear(m + ".router", c.hidden, c.experts, true);
    b.add(m + ".experts.gate_up_proj", {c.experts, c.hidden, 2 * c.moe_ffn});
    b.add(m + ".experts.gate_up_proj_bias", {c.experts, 2 * c.moe_ffn});
    b.add(m + ".experts.down_proj", {c.experts, c.moe_ffn, c.hidden});
    b.add(m + ".experts.down_proj_bias", {c.experts, c.hidden});
  }
  b.add("model.norm.weight", {c.hidden});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, c.hidden});
}

// OLMo 3 (as OLMo 2): no norm before attention or MLP, RMSNorms after each; the query and key
// norms span all heads (q_norm [heads x head_dim], k_norm [kv_heads x head_dim]).
void olmo3(Builder& b, const ModelConfig& c, const JsonField& config) {
  const bool bias = config["attention_bias"].boolOr(false);
  b.add("model.embed_tokens.weight", {c.vocab, c.hidden});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    attention(b, p, c, bias, bias, false);
    b.add(p + ".self_attn.q_norm.weight", {c.heads * c.head_dim});
    b.add(p + ".self_attn.k_norm.weight", {c.kv_heads * c.head_dim});
    b.add(p + ".post_attention_layernorm.weight", {c.hidden});
    gatedMlp(b, p + ".mlp", c.hidden, c.ffn);
    b.add(p + ".post_feedforward_layernorm.weight", {c.hidden});
  }
  b.add("model.norm.weight", {c.hidden});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, c.hidden});
}

// Qwen3-Next: Gated DeltaNet layers and, every full_attention_interval-th layer (or as layer_types
// says), gated softmax attention whose q_proj also makes the output gate (2 x heads x head_dim
// outputs); query/key norms over head_dim. MoE layers (decoder_sparse_step, mlp_only_layers) have
// a router, one tensor per expert as the checkpoint stores them, a shared expert and its gate.
// The multi-token-prediction block (mtp.*) is not loaded by transformers and not synthesized.
void qwen3Next(Builder& b, const ModelConfig& c, const JsonField& config) {
  // Gated DeltaNet widths, Qwen3NextConfig's defaults when absent.
  const std::int64_t keyHeads = config["linear_num_key_heads"].intOr(16, kSize);
  const std::int64_t valueHeads = config["linear_num_value_heads"].intOr(32, kSize);
  const std::int64_t keyDim = keyHeads * config["linear_key_head_dim"].intOr(128, kSize);
  const std::int64_t valueHeadDim = config["linear_value_head_dim"].intOr(128, kSize);
  const std::int64_t valueDim = valueHeads * valueHeadDim;
  const std::int64_t kernel = config["linear_conv_kernel_dim"].intOr(4, kSize);
  const JsonField types = config["layer_types"]; // checked by modelConfigFromHf
  const std::int64_t interval = config["full_attention_interval"].intOr(4, kSize);
  const JsonField mlpOnlyField = config["mlp_only_layers"];
  const auto mlpOnly = mlpOnlyField.present() ? mlpOnlyField.toInts() : std::vector<std::int64_t>{};
  const std::int64_t sparseStep = config["decoder_sparse_step"].intOr(1, kSize);
  const std::int64_t sharedFfn = config["shared_expert_intermediate_size"].toInt({0, std::int64_t{1} << 31, true});
  const bool bias = config["attention_bias"].boolOr(false);
  const auto h = c.hidden;
  b.add("model.embed_tokens.weight", {c.vocab, h});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.add(p + ".input_layernorm.weight", {h});
    const bool linear =
        types.present() ? types[static_cast<std::size_t>(i)].toString() == "linear_attention" : (i + 1) % interval != 0;
    if (linear) {
      const std::string a = p + ".linear_attn";
      // Queries, keys, values and the output gate z; then per value head the gate b and decay a.
      b.linear(a + ".in_proj_qkvz", h, 2 * keyDim + 2 * valueDim);
      b.linear(a + ".in_proj_ba", h, 2 * valueHeads);
      // Depthwise causal convolution over queries, keys and values: [channels, 1, kernel].
      b.add(a + ".conv1d.weight", {2 * keyDim + valueDim, 1, kernel});
      b.add(a + ".dt_bias", {valueHeads});
      b.add(a + ".A_log", {valueHeads});
      b.add(a + ".norm.weight", {valueHeadDim});
      b.linear(a + ".out_proj", valueDim, h);
    } else {
      const auto q = c.heads * c.head_dim, kv = c.kv_heads * c.head_dim;
      b.linear(p + ".self_attn.q_proj", h, 2 * q, bias);
      b.linear(p + ".self_attn.k_proj", h, kv, bias);
      b.linear(p + ".self_attn.v_proj", h, kv, bias);
      b.linear(p + ".self_attn.o_proj", q, h, bias);
      b.add(p + ".self_attn.q_norm.weight", {c.head_dim});
      b.add(p + ".self_attn.k_norm.weight", {c.head_dim});
    }
    b.add(p + ".post_attention_layernorm.weight", {h});
    const bool moe = std::find(mlpOnly.begin(), mlpOnly.end(), i) == mlpOnly.end() && (i + 1) % sparseStep == 0;
    if (!moe) {
      gatedMlp(b, p + ".mlp", h, c.ffn);
      continue;
    }
    b.linear(p + ".mlp.gate", h, c.experts);
    for (std::int64_t e = 0; e < c.experts; ++e) gatedMlp(b, p + ".mlp.experts." + std::to_string(e), h, c.moe_ffn);
    gatedMlp(b, p + ".mlp.shared_expert", h, sharedFfn);
    b.linear(p + ".mlp.shared_expert_gate", h, 1);
  }
  b.add("model.norm.weight", {h});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, h});
}

void deepseek(Builder& b, const ModelConfig& c, const JsonField& config) {
  // e_score_correction_bias exists for the auxiliary-loss-free router (topk_method "noaux_tc",
  // DeepSeek-V3 and Kimi K2); V2's greedy routers have none.
  const std::string topk = config["topk_method"].stringOr(c.model_type == "deepseek_v2" ? "greedy" : "noaux_tc");
  const std::int64_t moeFreq = config["moe_layer_freq"].intOr(1, kPositiveInt);
  b.add("model.embed_tokens.weight", {c.vocab, c.hidden});
  for (std::int64_t i = 0; i < c.num_layers; ++i) {
    const std::string p = "model.layers." + std::to_string(i);
    b.add(p + ".input_layernorm.weight", {c.hidden});
    mla(b, p, c);
    b.add(p + ".post_attention_layernorm.weight", {c.hidden});
    const bool moe = c.experts > 0 && i >= c.first_dense_layers && i % moeFreq == 0;
    if (!moe) {
      gatedMlp(b, p + ".mlp", c.hidden, c.ffn);
      continue;
    }
    b.linear(p + ".mlp.gate", c.hidden, c.experts);
    if (topk == "noaux_tc") b.add(p + ".mlp.gate.e_score_correction_bias", {c.experts});
    for (std::int64_t e = 0; e < c.experts; ++e)
      gatedMlp(b, p + ".mlp.experts." + std::to_string(e), c.hidden, c.moe_ffn);
    if (c.shared_experts > 0) gatedMlp(b, p + ".mlp.shared_experts", c.hidden, c.moe_ffn * c.shared_experts);
  }
  b.add("model.norm.weight", {c.hidden});
  if (!c.tie_embeddings) b.add("lm_head.weight", {c.vocab, c.hidden});
  // The multi-token-prediction module (num_nextn_predict_layers) is not part of the published
  // 671B count and transformers does not load it, so it is not synthesized.
}

} // namespace

Model modelFromHfConfig(const Json& config, const std::string& name) {
  Model model;
  model.name = name;
  model.config = modelConfigFromHf(config);
  const ModelConfig& c = *model.config;
  // Layer and expert counts are each bounded (2^31) but their product is not: a config asking for
  // billions of tensors is refused before any is built. 16 covers every per-layer non-expert tensor.
  constexpr std::int64_t kMaxTensors = std::int64_t{1} << 20;
  const std::int64_t perLayer = 16 + 4 * (c.experts + c.shared_experts);
  if (c.num_layers > kMaxTensors / perLayer)
    throwValueError("config.json: " + std::to_string(c.num_layers) + " layers of " + std::to_string(perLayer) +
                    "+ tensors each would synthesize more than " + std::to_string(kMaxTensors) + " tensors");
  const JsonField root = fileFields(config, "config.json", "");
  Builder b(dtypeOf(root));
  if (c.model_type == "gpt2") {
    gpt2(b, c);
  } else if (c.model_type == "deepseek_v2" || c.model_type == "deepseek_v3" || c.model_type == "kimi_k2") {
    deepseek(b, c, section(root));
  } else if (c.model_type == "llama4" || c.model_type == "llama4_text") {
    llama4(b, c, section(root));
  } else if (c.model_type == "gpt_oss") {
    gptOss(b, c, section(root));
  } else if (c.model_type == "olmo3") {
    olmo3(b, c, section(root));
  } else if (c.model_type == "qwen3_next") {
    qwen3Next(b, c, section(root));
  } else {
    llamaLike(b, c, section(root));
  }
  model.params = b.take();
  validateModel(model);
  return model;
}

} // namespace shardscope
