// SPDX-License-Identifier: Apache-2.0
// MaxText's decoder parameter trees. Names, shapes and logical axes follow MaxText's layers:
// embeddings.py (token_embedder/embedding: vocab x emb, ("vocab", "embed_vocab")), decoders.py
// (decoder_norm/scale ("norm",); logits_dense/kernel emb x vocab, ("embed_vocab", "vocab"), absent
// with logits_via_embedding; scanned layers under "layers" with the "layers" axis inserted at
// param_scan_axis), attentions.py (query: emb x heads x head_dim, ("embed", "q_heads", "kv"); key
// and value: emb x kv_heads x head_dim, ("embed", "kv_heads", "kv_head_dim"); out: heads x head_dim
// x emb, ("heads", "kv", "embed"); all None when ici_context_autoregressive_parallelism > 1),
// linears.py MlpBlock (wi, or wi_0, wi_1... per mlp_activations: emb x mlp, ("embed", "mlp"); wo:
// mlp x emb, ("mlp", "embed")), normalizations.py (RMSNorm scale, ("norm",)), models/mixtral.py and
// moe.py (MoeBlock_0: gate/kernel emb x experts, ("embed", None); wi_0, wi_1: experts x emb x mlp,
// ("exp", "embed_moe", "mlp_moe"); wo: experts x mlp x emb, ("exp", "mlp_moe", "embed_moe")),
// models/gemma.py (as llama2 with its norms named pre_self_attention_norm and pre_ffw_norm).
// Dimensions: configs/types.py, base_* x 2^scale from get_individual_scales(global_parameter_scale).
#include "maxtext_params.hpp"

#include "shardscope/base/dtype.hpp"

#include <algorithm>
#include <array>

namespace shardscope {

namespace {

// types.get_individual_scales: (emb, heads, mlp, layers) exponents of a power-of-two scale.
std::array<int, 4> individualScales(std::int64_t scale) {
  if (scale <= 0 || (scale & (scale - 1)) != 0)
    throwValueError("MaxText key 'global_parameter_scale' must be a power of two, not " + std::to_string(scale));
  int log2 = 0;
  while ((std::int64_t{1} << log2) < scale) ++log2;
  const int base = log2 / 3, rem = log2 % 3;
  const int heads = base + (rem > 0 ? 1 : 0);
  const int emb = base + (rem > 1 ? 1 : 0);
  return {emb, heads, heads, base};
}

std::int64_t scaled(MaxTextConfigReader& c, const std::string& key, std::int64_t fallback, int exponent) {
  const std::int64_t v = c.integer(key, fallback);
  if (v < 1 || v > (std::int64_t{1} << 24))
    throwValueError("MaxText key '" + key + "' must be between 1 and 2^24, not " + std::to_string(v));
  return v << exponent;
}

} // namespace

MaxTextModel maxTextModel(MaxTextConfigReader& c, MaxTextImportNotes& notes) {
  MaxTextModel m;
  const std::string block = c.text("decoder_block", "llama2");
  if (block != "llama2" && block != "mistral" && block != "mixtral" && block != "gemma")
    notModelled("decoder_block", Json(block), "Shardscope imports the llama2, mistral, mixtral and gemma decoders");
  m.name = c.text("model_name", "default");
  m.weight_dtype = c.text("weight_dtype", "float32");
  if (!canonicalDtype(m.weight_dtype))
    throwValueError("MaxText key 'weight_dtype' = '" + m.weight_dtype + "' is not a dtype name");
  m.weight_dtype = *canonicalDtype(m.weight_dtype);

  const auto [embScale, headScale, mlpScale, layerScale] = individualScales(c.integer("global_parameter_scale", 1));
  const std::int64_t emb = scaled(c, "base_emb_dim", 2048, embScale);
  const std::int64_t heads = scaled(c, "base_num_query_heads", 16, headScale);
  const std::int64_t kvHeads = scaled(c, "base_num_kv_heads", 16, headScale);
  const std::int64_t mlp = scaled(c, "base_mlp_dim", 7168, mlpScale);
  const std::int64_t layers = scaled(c, "base_num_decoder_layers", 16, layerScale);
  const std::int64_t headDim = scaled(c, "head_dim", 128, 0);
  const std::int64_t vocab = scaled(c, "vocab_size", 32000, 0);
  const std::int64_t experts = c.integer("num_experts", 1);
  const std::int64_t expertsPerToken = c.integer("num_experts_per_tok", 1);
  if (experts < 1 || experts > 4096) throwValueError("MaxText key 'num_experts' must be between 1 and 4096");
  if (expertsPerToken < 1 || expertsPerToken > experts)
    throwValueError("MaxText key 'num_experts_per_tok' must be between 1 and num_experts (" + std::to_string(experts) +
                    ")");
  if (block == "mixtral" && experts < 2)
    throwValueError("decoder_block 'mixtral' needs num_experts of 2 or more, not " + std::to_string(experts));
  if (block != "mixtral" && experts > 1)
    notModelled("num_experts", Json(experts), "decoder_block '" + block + "' has a dense MLP in MaxText");
  const Json* activations = c.get("mlp_activations");
  std::size_t numActivations = 2;
  if (activations) {
    if (!activations->is_array() || activations->empty() || activations->size() > 8)
      throwValueError("MaxText key 'mlp_activations' must be a list of 1 to 8 activation names");
    numActivations = activations->size();
  }
  if (block == "mixtral" && numActivations != 2)
    notModelled("mlp_activations", *activations, "MaxText's MoE block has exactly two input projections");
  const bool tied = c.boolean("logits_via_embedding", false);
  const bool scan = c.boolean("scan_layers", true);
  const std::int64_t scanAxis = c.integer("param_scan_axis", 1);
  const bool autoregressive = c.integer("ici_context_autoregressive_parallelism", 1) > 1;
  if (!scan && layers > 1024)
    throwValueError("scan_layers=false with " + std::to_string(layers) + " layers: at most 1024 unscanned layers");

  // One decoder layer's parameters, relative to its layer's path.
  std::vector<MaxTextParam> layer;
  const auto attn = [&](std::vector<std::string> axes) { return autoregressive ? std::vector<std::string>(3) : axes; };
  // models/gemma.py names its norms pre_self_attention_norm and pre_ffw_norm.
  const bool gemma = block == "gemma";
  layer.push_back({gemma ? "pre_self_attention_norm/scale" : "pre_self_attention_layer_norm/scale", {emb}, {"norm"}});
  layer.push_back({"self_attention/query/kernel", {emb, heads, headDim}, attn({"embed", "q_heads", "kv"})});
  layer.push_back({"self_attention/key/kernel", {emb, kvHeads, headDim}, attn({"embed", "kv_heads", "kv_head_dim"})});
  layer.push_back({"self_attention/value/kernel", {emb, kvHeads, headDim}, attn({"embed", "kv_heads", "kv_head_dim"})});
  layer.push_back({"self_attention/out/kernel", {heads, headDim, emb}, attn({"heads", "kv", "embed"})});
  layer.push_back({gemma ? "pre_ffw_norm/scale" : "post_self_attention_layer_norm/scale", {emb}, {"norm"}});
  if (block == "mixtral") {
    layer.push_back({"MoeBlock_0/gate/kernel", {emb, experts}, {"embed", ""}});
    layer.push_back({"MoeBlock_0/wi_0", {experts, emb, mlp}, {"exp", "embed_moe", "mlp_moe"}});
    layer.push_back({"MoeBlock_0/wi_1", {experts, emb, mlp}, {"exp", "embed_moe", "mlp_moe"}});
    layer.push_back({"MoeBlock_0/wo", {experts, mlp, emb}, {"exp", "mlp_moe", "embed_moe"}});
  } else {
    for (std::size_t i = 0; i < numActivations; ++i)
      layer.push_back({numActivations == 1 ? "mlp/wi/kernel" : "mlp/wi_" + std::to_string(i) + "/kernel",
                       {emb, mlp},
                       {"embed", "mlp"}});
    layer.push_back({"mlp/wo/kernel", {mlp, emb}, {"mlp", "embed"}});
  }

  m.params.push_back({"params/token_embedder/embedding", {vocab, emb}, {"vocab", "embed_vocab"}});
  if (scan) {
    if (scanAxis < 0 || scanAxis > 1) notModelled("param_scan_axis", Json(scanAxis), "MaxText scans over axis 0 or 1");
    for (MaxTextParam p : layer) {
      const auto at = static_cast<std::ptrdiff_t>(scanAxis);
      p.path = "params/decoder/layers/" + p.path;
      p.shape.insert(p.shape.begin() + at, layers);
      p.logical_axes.insert(p.logical_axes.begin() + at, "layers");
      m.params.push_back(std::move(p));
    }
  } else {
    for (std::int64_t l = 0; l < layers; ++l)
      for (MaxTextParam p : layer) {
        p.path = "params/decoder/layers_" + std::to_string(l) + "/" + p.path;
        m.params.push_back(std::move(p));
      }
  }
  m.params.push_back({"params/decoder/decoder_norm/scale", {emb}, {"norm"}});
  if (!tied) m.params.push_back({"params/decoder/logits_dense/kernel", {emb, vocab}, {"embed_vocab", "vocab"}});

  m.architecture = {{"model_type", block == "llama2" ? "llama" : block},
                    {"num_layers", layers},
                    {"hidden", emb},
                    {"heads", heads},
                    {"kv_heads", kvHeads},
                    {"head_dim", headDim},
                    {"ffn", mlp},
                    {"vocab", vocab},
                    {"tie_embeddings", tied}};
  if (block == "mixtral") {
    m.architecture["experts"] = experts;
    m.architecture["experts_per_token"] = expertsPerToken;
    m.architecture["moe_ffn"] = mlp;
  }
  (void)c.integer("base_moe_mlp_dim", -1); // read: MaxText's mixtral uses mlp_dim for its experts
  notes.notes.push_back("decoder '" + block + "': " + std::to_string(m.params.size()) + " parameters, " +
                        std::to_string(layers) + " layers" +
                        (scan ? " scanned (axis " + std::to_string(scanAxis) + ")" : ""));
  return m;
}

} // namespace shardscope
