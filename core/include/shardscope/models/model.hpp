// SPDX-License-Identifier: Apache-2.0
// A model as the sharding and memory engines see it: a flat list of named parameter tensors
// (name, shape, dtype) plus, when known, the architecture numbers that activations and the KV
// cache need. Parameter names keep the spelling of their source (Hugging Face checkpoints:
// "model.layers.0.self_attn.q_proj.weight"), because partition rules are regexes over those names.
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct Param {
  std::string path; // as the source names it, '.'- or '/'-joined
  Shape shape;
  std::string dtype; // canonical numpy/JAX name (see dtype.hpp)
  // Flax/MaxText logical axis names, one per dimension ("" where the source gives None), when the
  // source names them (a MaxText import: "embed", "layers", "q_heads", "exp", ...); empty otherwise.
  // They say which dimension is a stack of scanned layers or experts and which the matmul contracts.
  std::vector<std::string> logical_axes;

  std::int64_t elements() const { return shapeSize(shape); }
  bool operator==(const Param&) const = default;
};

// Architecture numbers (Hugging Face config.json meaning). Zero means "not applicable / unknown".
struct ModelConfig {
  std::string model_type; // HF model_type: "llama", "mixtral", "deepseek_v3", "gpt2", ...
  std::int64_t num_layers = 0;
  std::int64_t hidden = 0;
  std::int64_t heads = 0;
  std::int64_t kv_heads = 0;
  std::int64_t head_dim = 0;
  std::int64_t ffn = 0; // dense MLP intermediate size
  std::int64_t vocab = 0;
  std::int64_t max_positions = 0;
  bool tie_embeddings = false;
  // Mixture of experts (0 experts = dense).
  std::int64_t experts = 0; // routed experts per MoE layer
  std::int64_t experts_per_token = 0;
  std::int64_t moe_ffn = 0;            // intermediate size of one expert
  std::int64_t shared_experts = 0;     // DeepSeek's always-on experts
  std::int64_t first_dense_layers = 0; // DeepSeek first_k_dense_replace
  // Multi-head latent attention (DeepSeek-V2/V3); 0 when the model uses ordinary attention.
  std::int64_t q_lora_rank = 0;
  std::int64_t kv_lora_rank = 0;
  std::int64_t qk_nope_head_dim = 0;
  std::int64_t qk_rope_head_dim = 0;
  std::int64_t v_head_dim = 0;
  // Local attention: layers that are "sliding" keep at most `sliding_window` tokens in the KV cache.
  // sliding_window_pattern = N: every N-th layer (index N-1, 2N-1, ...) is global, the rest slide
  // (Gemma 2: 2, Gemma 3: 6). 0 with a window: every layer slides (Mistral 7B v0.1).
  std::int64_t sliding_window = 0;
  std::int64_t sliding_window_pattern = 0;
  // Layers whose attention is linear (Qwen3-Next's Gated DeltaNet): no quadratic attention core and
  // no growing KV cache; the others run softmax attention.
  std::int64_t linear_attention_layers = 0;

  // Attention and MLP side by side on the same normed input (PaLM, GPT-J, GPT-NeoX, Falcon): one
  // tensor-parallel reduction per layer instead of two.
  bool parallel_block = false;

  bool usesMla() const { return kv_lora_rank > 0; }
  // A gated MLP (SwiGLU/GeGLU: two input projections): every Hugging Face family but GPT-2's; a
  // config may say otherwise with Shardscope's `mlp_gated: false` (MaxText's `relu` decoder).
  bool gated_mlp = true;
  bool gatedMlp() const { return gated_mlp; }
  bool isSlidingLayer(std::int64_t layer) const;
  bool operator==(const ModelConfig&) const = default;
};

struct Model {
  std::string name;
  std::vector<Param> params;
  std::optional<ModelConfig> config; // absent for a bare parameter list (safetensors, our JSON without config)
  std::vector<std::string> notes;    // what a loader saw but could not use, for the UI's diagnostics

  std::int64_t parameterCount() const;
  // Bytes of all parameters in their own dtypes.
  double parameterBytes() const;
  bool operator==(const Model&) const = default;
};

// Throws ValueError naming the parameter when a path is empty or duplicated, the rank is above
// kMaxRank, a dimension is negative, the element count passes 2^53, or the dtype is unknown. Every
// loader calls it before returning.
void validateModel(const Model& model);
// The same checks for one parameter, all but the duplicate; `modelName` names the model when the
// path is empty.
void validateParam(const Param& param, std::string_view modelName);

} // namespace shardscope
