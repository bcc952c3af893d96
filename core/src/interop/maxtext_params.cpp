// SPDX-License-Identifier: Apache-2.0
// MaxText's decoder parameter trees: the dimensions each decoder_block reads (configs/types.py:
// base_* x 2^scale from get_individual_scales(global_parameter_scale); the Qwen3-MoE width rule),
// the layers of maxtext_blocks.cpp stacked as MaxText scans them (nnx_decoders.py and
// nnx_scan.create_scanned_layers: the stack's logical name inserted at min(param_scan_axis, rank);
// DeepSeek's dense_layers and moe_layers, blocks of `inhomogeneous_layer_cycle_interval` sub-layers
// layers_<j> (layer_<j> for Qwen3-Next), Gemma 3's blocks of six and their remainder, Gemma 4's
// scanned_blocks of five local layers and a global one), the top-level parameters (embedding,
// position embedder, final norm, logits_dense, the multi-token-prediction block), and the
// architecture figures the step and memory estimates read.
#include "maxtext_params.hpp"

#include "shardscope/base/dtype.hpp"

#include <algorithm>
#include <array>

namespace shardscope {

namespace {

// types.get_individual_scales: (emb, heads, mlp, layers) exponents of a power-of-two scale.
std::array<int, 4> individualScales(std::int64_t scale) {
  if (scale <= 0 || scale > (std::int64_t{1} << 30) || (scale & (scale - 1)) != 0)
    throwValueError("MaxText key 'global_parameter_scale' must be a power of two up to 2^30, not " +
                    std::to_string(scale));
  int log2 = 0;
  while ((std::int64_t{1} << log2) < scale) ++log2;
  const int base = log2 / 3, rem = log2 % 3;
  const int heads = base + (rem > 0 ? 1 : 0);
  const int emb = base + (rem > 1 ? 1 : 0);
  return {emb, heads, heads, base};
}

// A dimension between 1 and 2^24 before scaling; the scaled value must stay below 2^31.
std::int64_t dimension(MaxTextConfigReader& c, const std::string& key, std::int64_t fallback, int exponent = 0) {
  const std::int64_t v = c.integer(key, fallback);
  if (v < 1 || v > (std::int64_t{1} << 24))
    throwValueError("MaxText key '" + key + "' must be between 1 and 2^24, not " + std::to_string(v));
  if ((v << exponent) > (std::int64_t{1} << 31))
    throwValueError("MaxText key '" + key + "' scaled by global_parameter_scale passes 2^31");
  return v << exponent;
}

// A count that may be zero (ranks, optional widths): between 0 and 2^24.
std::int64_t count(MaxTextConfigReader& c, const std::string& key, std::int64_t fallback) {
  const std::int64_t v = c.integer(key, fallback);
  if (v < 0 || v > (std::int64_t{1} << 24))
    throwValueError("MaxText key '" + key + "' must be between 0 and 2^24, not " + std::to_string(v));
  return v;
}

bool isOneOf(const std::string& s, std::initializer_list<const char*> names) {
  return std::any_of(names.begin(), names.end(), [&](const char* n) { return s == n; });
}

const std::initializer_list<const char*> kBlocks{
    "default",      "llama2",  "mistral", "mixtral",  "gemma", "gemma2", "gemma3",    "gemma4",
    "gemma4_small", "gpt3",    "gpt_oss", "deepseek", "qwen2", "qwen3",  "qwen3_moe", "qwen3_custom_moe",
    "qwen3_next",   "qwen3_5", "llama4",  "olmo3",    "envy",  "simple", "simple_mlp"};
const std::initializer_list<const char*> kMoeBlocks{
    "mixtral",    "gpt_oss", "deepseek", "qwen3_moe", "qwen3_custom_moe",
    "qwen3_next", "qwen3_5", "llama4",   "envy",      "gemma4"};

// Keys MaxText's layers read for numerics only (rope variants, soft caps, epsilons, scaling,
// routing): read so that the notes list them as having no effect on the layout.
void readNumericsKeys(MaxTextConfigReader& c, std::vector<std::string>& noEffect) {
  c.readAll({"normalization_layer_epsilon",
             "rope_max_timescale",
             "rope_min_timescale",
             "rope_type",
             "rope_use_scale",
             "rope_factor",
             "rope_interleave",
             "rope_truncate",
             "rope_attention_scaling",
             "rope_linear_scaling_factor",
             "local_rope_max_timescale",
             "global_rope_max_timescale",
             "local_rope_proportion",
             "global_rope_proportion",
             "partial_rotary_factor",
             "beta_fast",
             "beta_slow",
             "mscale",
             "max_position_embeddings",
             "original_max_position_embeddings",
             "attn_logits_soft_cap",
             "final_logits_soft_cap",
             "routed_scaling_factor",
             "routed_score_func",
             "norm_topk_prob",
             "n_routing_groups",
             "topk_routing_group",
             "nope_layer_interval",
             "chunk_attn_window_size",
             "temperature_tuning",
             "mlp_activations_limit",
             "normalize_embedding_logits",
             "logits_dot_in_fp32",
             "use_iota_embed",
             "enable_dropout",
             "dropout_rate",
             "load_balance_loss_weight",
             "gdn_chunk_size",
             "use_mrope",
             "mrope_section",
             "position_id_per_seconds",
             "indexer_topk",
             "megablox",
             "sparse_matmul",
             "capacity_factor",
             "float32_logits",
             "float32_qk_product"},
            noEffect);
}

// The block's own keys (MoE, MLA, norms, Gated DeltaNet, ...).
void readBlockKeys(MaxTextConfigReader& c, MaxTextDims& d, int mlpScale) {
  const std::string& b = d.block;
  const bool moe = isOneOf(b, kMoeBlocks);
  d.experts = c.integer("num_experts", 1);
  d.experts_per_token = c.integer("num_experts_per_tok", 1);
  if (d.experts < 1 || d.experts > 4096) throwValueError("MaxText key 'num_experts' must be between 1 and 4096");
  if (d.experts_per_token < 1 || d.experts_per_token > d.experts)
    throwValueError("MaxText key 'num_experts_per_tok' must be between 1 and num_experts (" +
                    std::to_string(d.experts) + ")");
  if (!moe && d.experts > 1)
    notModelled("num_experts", Json(d.experts), "decoder_block '" + b + "' has a dense MLP in MaxText");
  if (moe && b != "gemma4" && d.experts < 2)
    throwValueError("decoder_block '" + b + "' needs num_experts of 2 or more, not " + std::to_string(d.experts));
  if (moe && d.experts > 1) {
    const std::int64_t base = c.integer("base_moe_mlp_dim", -1);
    if (base > 0) d.moe_mlp = dimension(c, "base_moe_mlp_dim", base, mlpScale);
    if (d.moe_mlp == 0 && !isOneOf(b, {"mixtral", "gpt_oss"}))
      throwValueError("decoder_block '" + b + "' needs base_moe_mlp_dim (the experts' width)");
    // moe.py: the experts' input width, the model's when not positive (base.yml: -1).
    d.moe_input = std::max<std::int64_t>(0, c.integer("moe_expert_input_dim", -1));
    if (d.moe_input > (std::int64_t{1} << 24))
      throwValueError("MaxText key 'moe_expert_input_dim' must be at most 2^24");
    d.routed_bias = isOneOf(b, {"deepseek", "gpt_oss"}) && c.boolean("routed_bias", false);
    d.mlp_bias = c.boolean("mlp_bias", false);
    if (c.boolean("shard_exp_on_fsdp", false)) d.expert_axes = ExpertAxes::OnFsdp;
    if (c.boolean("use_2d_fsdp_sharding", false)) d.expert_axes = ExpertAxes::TwoDimFsdp;
    if (c.boolean("use_batch_split_schedule", false)) d.expert_axes = ExpertAxes::BatchSplit;
    if (isOneOf(b, {"deepseek", "llama4", "gemma4"})) d.shared_experts = count(c, "shared_experts", 0);
    if (c.has("padded_base_moe_mlp_dim"))
      notModelled("padded_base_moe_mlp_dim", *c.get("padded_base_moe_mlp_dim"),
                  "padded expert widths are not imported");
    if (c.boolean("prefuse_moe_weights", false))
      notModelled("prefuse_moe_weights", Json(true), "the fused expert input projection is not imported");
  }
  if (isOneOf(b, {"gpt_oss", "olmo3", "llama4", "envy", "qwen3_next", "qwen3_5"}))
    d.cycle = dimension(c, "inhomogeneous_layer_cycle_interval", 1);
  if (isOneOf(b, {"llama4", "envy"})) d.interleave_moe = count(c, "interleave_moe_layer_step", 1);
  if (isOneOf(b, {"qwen2", "gpt_oss", "olmo3"})) d.attention_bias = c.boolean("attention_bias", false);
  if (isOneOf(b,
              {"qwen2", "qwen3", "qwen3_moe", "qwen3_custom_moe", "qwen3_next", "qwen3_5", "olmo3", "llama4", "envy"}))
    d.qk_norm = c.boolean("use_qk_norm", false);
  if (isOneOf(b, {"gemma2", "gemma3", "gemma4"})) d.post_attn_norm = c.boolean("use_post_attn_norm", false);
  if (isOneOf(b, {"gemma2", "gemma3", "gemma4", "envy"})) d.post_ffw_norm = c.boolean("use_post_ffw_norm", false);
  if (isOneOf(b, {"gemma4", "default"})) d.share_kv = c.boolean("share_kv_projections", false);
  if (isOneOf(b, {"gemma4", "gemma4_small"})) {
    d.global_head_dim = count(c, "global_head_dim", 0);
    d.global_kv_heads = count(c, "global_num_kv_heads", 0);
  }
  if (isOneOf(b, {"qwen3_next", "qwen3_5"})) {
    d.gdn_conv = dimension(c, "gdn_conv_kernel_dim", 4);
    d.gdn_key_dim = dimension(c, "gdn_key_head_dim", 128);
    d.gdn_key_heads = dimension(c, "gdn_num_key_heads", 16);
    d.gdn_value_dim = dimension(c, "gdn_value_head_dim", 128);
    d.gdn_value_heads = dimension(c, "gdn_num_value_heads", 32);
  }
  if (b == "qwen3_custom_moe") d.attention_output_dim = dimension(c, "attention_output_dim", d.emb);
  if (b == "deepseek") {
    const std::string type = c.text("attention_type", "global");
    if (type != "mla")
      notModelled("attention_type", Json(type), "decoder_block 'deepseek' runs multi-head latent attention (mla)");
    d.mla = true;
    d.first_dense = count(c, "first_num_dense_layers", 0);
    d.q_lora = count(c, "q_lora_rank", 0);
    d.kv_lora = dimension(c, "kv_lora_rank", 512);
    d.qk_nope = dimension(c, "qk_nope_head_dim", 128);
    d.qk_rope = dimension(c, "qk_rope_head_dim", 64);
    d.v_head = dimension(c, "v_head_dim", 128);
    d.use_indexer = c.boolean("use_indexer", false);
    if (d.use_indexer) {
      d.indexer_heads = dimension(c, "indexer_n_heads", 64);
      d.indexer_head_dim = dimension(c, "indexer_head_dim", 128);
    }
    d.mtp_layers = count(c, "mtp_num_layers", 0);
    if (const Json* e = c.get("engram_layers"); e && e->is_array() && !e->empty())
      notModelled("engram_layers", *e, "Engram's n-gram embeddings are not imported");
    if (c.integer("mhc_expansion_rate", 1) > 1)
      notModelled("mhc_expansion_rate", *c.get("mhc_expansion_rate"), "hyper-connections are not imported");
  }
  if (b == "gpt3")
    d.position_size = count(c, "trainable_position_size", 0);
  else if (c.has("trainable_position_size") && c.integer("trainable_position_size", -1) > 0)
    d.position_size = count(c, "trainable_position_size", 0);
  d.attention_sink = c.boolean("attention_sink", false);
  d.qk_norm_scale = c.boolean("qk_norm_with_scale", true);
  d.v_norm_scale = c.boolean("v_norm_with_scale", true);
  d.fused_qkv = c.boolean("fused_qkv", false);
  d.fused_mlp = c.boolean("fused_mlp", false);
  if (isOneOf(b, {"gemma2", "gemma3", "gemma4", "gemma4_small", "gpt_oss", "olmo3", "mistral"}))
    d.sliding_window = count(c, "sliding_window_size", 0);
}

} // namespace

MaxTextDims readMaxTextDims(MaxTextConfigReader& c, std::vector<std::string>& noEffect) {
  MaxTextDims d;
  // A config without decoder_block is from before MaxText named its blocks; it built the default
  // layer (attention and MLP side by side on one normed input), as its `default` block still does.
  d.block = c.text("decoder_block", "default");
  if (!isOneOf(d.block, kBlocks)) {
    std::string known;
    for (const char* b : kBlocks) known += (known.empty() ? "" : ", ") + std::string(b);
    notModelled("decoder_block", Json(d.block), "Shardscope imports " + known);
  }
  d.model_name = c.text("model_name", "default");
  d.weight_dtype = c.text("weight_dtype", "float32");
  if (!canonicalDtype(d.weight_dtype))
    throwValueError("MaxText key 'weight_dtype' = '" + d.weight_dtype + "' is not a dtype name");
  d.weight_dtype = *canonicalDtype(d.weight_dtype);
  const auto [embScale, headScale, mlpScale, layerScale] = individualScales(c.integer("global_parameter_scale", 1));
  d.emb = dimension(c, "base_emb_dim", 2048, embScale);
  // MaxText before 2024 named one head count, base_num_heads, for queries and keys alike.
  const bool oneHeadCount = !c.has("base_num_query_heads") && c.has("base_num_heads");
  d.heads = dimension(c, oneHeadCount ? "base_num_heads" : "base_num_query_heads", 16, headScale);
  d.kv_heads = oneHeadCount ? d.heads : dimension(c, "base_num_kv_heads", 16, headScale);
  d.mlp = dimension(c, "base_mlp_dim", 7168, mlpScale);
  d.layers = dimension(c, "base_num_decoder_layers", 16, layerScale);
  d.head_dim = dimension(c, "head_dim", 128);
  d.vocab = dimension(c, "vocab_size", 32000);
  if (const Json* a = c.get("mlp_activations")) {
    if (!a->is_array() || a->empty() || a->size() > 8)
      throwValueError("MaxText key 'mlp_activations' must be a list of 1 to 8 activation names");
    d.activations = static_cast<std::int64_t>(a->size());
  }
  readBlockKeys(c, d, mlpScale);
  // types.py: a Qwen3-MoE model that is MoE in every layer takes the experts' width as mlp_dim.
  if (d.block == "qwen3_moe" && d.experts > 1 && d.moe_mlp > 0) d.mlp = d.moe_mlp;
  d.tied = c.boolean("logits_via_embedding", false);
  d.scan = c.boolean("scan_layers", true);
  d.scan_axis = c.integer("param_scan_axis", 1);
  if (d.scan && (d.scan_axis < 0 || d.scan_axis > 8))
    notModelled("param_scan_axis", Json(d.scan_axis), "MaxText scans over an axis between 0 and the rank");
  d.autoregressive = c.integer("ici_context_autoregressive_parallelism", 1) > 1;
  if (d.block == "gemma4_small" && d.scan)
    throwValueError("decoder_block 'gemma4_small' needs scan_layers=false, as MaxText's types.py requires");
  if (!d.scan && d.layers > 1024)
    throwValueError("scan_layers=false with " + std::to_string(d.layers) + " layers: at most 1024 unscanned layers");
  readNumericsKeys(c, noEffect);
  return d;
}

} // namespace shardscope
