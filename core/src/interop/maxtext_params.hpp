// SPDX-License-Identifier: Apache-2.0
// Private to the MaxText import: reading the merged configuration key by key, the decoder's
// dimensions, and its parameter tree (paths, shapes and logical axis names as MaxText's layers
// annotate them: maxtext_blocks.cpp per decoder block, maxtext_params.cpp for the dimensions, the
// scanned stacks and the architecture figures).
#pragma once

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/interop/maxtext_import.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace shardscope {

// The merged configuration, read key by key; every key read is remembered for the notes.
class MaxTextConfigReader {
public:
  explicit MaxTextConfigReader(const Json& config) : config_(config) {}

  bool has(const std::string& key) const { return config_.contains(key) && !config_.at(key).is_null(); }
  const Json* get(const std::string& key) {
    used_.insert(key);
    const auto it = config_.find(key);
    return it == config_.end() ? nullptr : &*it;
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_number_integer()) return v->get<std::int64_t>();
    if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
      if (std::isfinite(d) && std::fabs(d) >= 9e15)
        throwValueError("MaxText key '" + key + "' is " + valueText(*v) + ": too large (at most 9e15)");
    }
    throwValueError("MaxText key '" + key + "' must be an integer, not " + valueText(*v));
  }
  // A value as the config wrote it: YAML's .nan and .inf for the floats JSON cannot write (dumpJson
  // prints them as null), cut to a readable length.
  static std::string valueText(const Json& v) {
    if (v.is_number_float() && !std::isfinite(v.get<double>()))
      return std::isnan(v.get<double>()) ? ".nan" : (v.get<double>() > 0 ? ".inf" : "-.inf");
    return shardscope::quoted(dumpJson(v));
  }
  double number(const std::string& key, double fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_number() && !v->is_boolean()) return v->get<double>();
    throwValueError("MaxText key '" + key + "' must be a number, not " + valueText(*v));
  }
  bool boolean(const std::string& key, bool fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_boolean()) return v->get<bool>();
    throwValueError("MaxText key '" + key + "' must be true or false, not " + valueText(*v));
  }
  std::string text(const std::string& key, const std::string& fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_string()) return v->get<std::string>();
    throwValueError("MaxText key '" + key + "' must be a string, not " + valueText(*v));
  }
  // Marks keys as read without using their values (keys that change only numerics).
  void readAll(std::initializer_list<const char*> keys, std::vector<std::string>& present) {
    for (const char* key : keys)
      if (get(key) && has(key)) present.emplace_back(key);
  }

  void fillNotes(MaxTextImportNotes& notes) const {
    for (auto it = config_.begin(); it != config_.end(); ++it) {
      if (used_.count(it.key()))
        notes.used_keys.push_back(it.key());
      else
        notes.unused_keys.push_back(it.key());
    }
  }

private:
  const Json& config_;
  std::set<std::string> used_;
};

// A config value as JSON, cut to a readable prefix (a hostile value may be megabytes long).
inline std::string shownValue(const Json& value) {
  constexpr std::size_t kMaxShown = 80;
  std::string text = dumpJson(value);
  if (text.size() > kMaxShown) text = text.substr(0, kMaxShown) + "...";
  return text;
}

[[noreturn]] inline void notModelled(const std::string& key, const Json& value, const std::string& why) {
  throwValueError("MaxText key '" + key + "' = " + shownValue(value) + " is not modelled: " + why);
}

// One parameter: its path in MaxText's parameter tree ("params/decoder/layers/mlp/wi_0/kernel"),
// its shape, and the logical axis name of each dimension ("" where MaxText gives None, and every
// dimension of a parameter MaxText does not annotate).
struct MaxTextParam {
  std::string path;
  std::vector<std::int64_t> shape;
  std::vector<std::string> logical_axes;
};

// How MaxText lays out the routed experts' kernels (moe.py: shard_exp_on_fsdp, use_2d_fsdp_sharding,
// use_batch_split_schedule change their logical axes, not their shapes).
enum class ExpertAxes { Default, OnFsdp, TwoDimFsdp, BatchSplit };

// The decoder's dimensions and switches, read from the config for the block that uses them.
struct MaxTextDims {
  std::string block, model_name;
  std::int64_t emb = 0, heads = 0, kv_heads = 0, head_dim = 0, mlp = 0, moe_mlp = 0, vocab = 0, layers = 0;
  std::int64_t experts = 1, experts_per_token = 1, shared_experts = 0, first_dense = 0;
  std::int64_t cycle = 1;          // inhomogeneous_layer_cycle_interval: sub-layers per scanned block
  std::int64_t interleave_moe = 1; // llama4/envy: every n-th layer is MoE
  std::int64_t activations = 2;    // len(mlp_activations)
  std::int64_t q_lora = 0, kv_lora = 0, qk_nope = 0, qk_rope = 0, v_head = 0; // MLA
  std::int64_t moe_input = 0;                                                 // moe_expert_input_dim (0: emb)
  std::int64_t position_size = 0;                                             // trainable_position_size (gpt3)
  std::int64_t global_head_dim = 0, global_kv_heads = 0;                      // gemma4 global layers
  std::int64_t attention_output_dim = 0;                                      // qwen3_custom_moe
  std::int64_t gdn_conv = 0, gdn_key_dim = 0, gdn_key_heads = 0, gdn_value_dim = 0, gdn_value_heads = 0;
  std::int64_t indexer_heads = 0, indexer_head_dim = 0; // DeepSeek-V3.2 indexer
  std::int64_t mtp_layers = 0;
  std::int64_t sliding_window = 0;
  bool fused_qkv = false, fused_mlp = false, attention_bias = false, attention_sink = false;
  bool routed_bias = false, mlp_bias = false, qk_norm = false, qk_norm_scale = true, v_norm_scale = true;
  bool post_attn_norm = false, post_ffw_norm = false, share_kv = false, tied = false, autoregressive = false;
  bool use_indexer = false, mla = false;
  ExpertAxes expert_axes = ExpertAxes::Default;
  std::string weight_dtype = "float32";
  bool scan = true;
  std::int64_t scan_axis = 1;
};

// The dimensions of the config's decoder_block (throws ValueError naming the key for a block or a
// value that is not modelled); `noEffect` receives the keys read that change only numerics.
MaxTextDims readMaxTextDims(MaxTextConfigReader& c, std::vector<std::string>& noEffect);

// The parameters of one decoder layer of `kind` (the family's variant: "dense", "moe", "local",
// "global", or "" for the only one), layer `index` where it matters; paths relative to the layer.
std::vector<MaxTextParam> maxTextLayerParams(const MaxTextDims& d, const std::string& kind, std::int64_t index);
// Gemma 4's small models (E2B, E4B): layers from `sharedFrom` on reuse an earlier layer's keys and
// values; `doubleWide` doubles their MLP; `perLayerWidth` > 0 adds the per-layer input projections.
std::vector<MaxTextParam> maxTextGemma4SmallLayer(const MaxTextDims& d, const std::string& kind, std::int64_t index,
                                                  std::int64_t sharedFrom, bool doubleWide, std::int64_t perLayerWidth);
// The k-th multi-token-prediction layer (multi_token_prediction.py): two norms, a projection of the
// embedding and hidden state, and a MoE decoder layer; paths relative to params/mtp_block/mtp_layer_k.
std::vector<MaxTextParam> maxTextMtpLayer(const MaxTextDims& d, std::int64_t k);

struct MaxTextModel {
  std::string name;
  std::string weight_dtype;
  std::vector<MaxTextParam> params;
  Json architecture; // our model JSON's `config` form
};

// The decoder of the config's decoder_block with the dimensions the config gives.
MaxTextModel maxTextModel(MaxTextConfigReader& c, MaxTextImportNotes& notes);

} // namespace shardscope
