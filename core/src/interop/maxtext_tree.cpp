// SPDX-License-Identifier: Apache-2.0
// The whole decoder tree of a MaxText config: the layers of maxtext_blocks.cpp, scanned as MaxText
// scans them (nnx_decoders.py; nnx_scan.create_scanned_layers inserts the stack's logical name at
// min(param_scan_axis, rank)) or unrolled (layers_<i>, DeepSeek's dense_layers_<i> and
// moe_layers_<j>), the top-level parameters, and the architecture figures the estimates read.
#include "maxtext_params.hpp"

#include <algorithm>

namespace shardscope {

namespace {

using Params = std::vector<MaxTextParam>;

Params prefixed(const std::string& prefix, Params params) {
  for (auto& p : params) p.path = prefix + "/" + p.path;
  return params;
}

void append(Params& out, Params more) {
  for (auto& p : more) out.push_back(std::move(p));
}

// `n` copies stacked along a new dimension named `name` at min(axis, rank).
Params stacked(Params params, std::int64_t n, const std::string& name, std::int64_t axis) {
  for (auto& p : params) {
    const auto at = static_cast<std::ptrdiff_t>(std::min<std::size_t>(static_cast<std::size_t>(axis), p.shape.size()));
    p.shape.insert(p.shape.begin() + at, n);
    p.logical_axes.insert(p.logical_axes.begin() + at, name);
  }
  return params;
}

// Which variant layer `i` is: llama4's and envy's interleaved MoE, Gemma 4's local and global.
std::string kindOf(const MaxTextDims& d, std::int64_t i) {
  if (d.block == "llama4" || d.block == "envy")
    return d.interleave_moe > 0 && (i + 1) % d.interleave_moe == 0 ? "moe" : "dense";
  if (d.block == "gemma4") return i % 6 == 5 ? "global" : "local";
  if (d.block == "gemma4_small") {
    const std::int64_t period = d.model_name == "gemma4-e2b" ? 5 : 6;
    return i % period == period - 1 ? "global" : "local";
  }
  return "";
}

// Gemma 4's small models read three more keys; every other block takes maxTextLayerParams.
struct SmallGemma {
  std::int64_t shared_from = 0, per_layer_width = 0, per_layer_vocab = 0;
  bool double_wide = false;
};

Params layerAt(const MaxTextDims& d, const SmallGemma& g, const std::string& kind, std::int64_t i) {
  if (d.block == "gemma4_small")
    return maxTextGemma4SmallLayer(d, kind, i, g.shared_from, g.double_wide, g.per_layer_width);
  return maxTextLayerParams(d, kind, i);
}

void unrolledLayers(const MaxTextDims& d, const SmallGemma& g, Params& out) {
  const std::string D = "params/decoder/";
  if (d.block == "deepseek") {
    for (std::int64_t i = 0; i < d.first_dense; ++i)
      append(out, prefixed(D + "dense_layers_" + std::to_string(i), maxTextLayerParams(d, "dense", i)));
    for (std::int64_t j = 0; j < d.layers - d.first_dense; ++j)
      append(out, prefixed(D + "moe_layers_" + std::to_string(j), maxTextLayerParams(d, "moe", d.first_dense + j)));
    return;
  }
  for (std::int64_t i = 0; i < d.layers; ++i)
    append(out, prefixed(D + "layers_" + std::to_string(i), layerAt(d, g, kindOf(d, i), i)));
}

void scannedLayers(const MaxTextDims& d, Params& out) {
  const std::string D = "params/decoder/";
  const std::int64_t axis = d.scan_axis;
  if (d.block == "deepseek") {
    if (d.first_dense > 0)
      append(out, prefixed(D + "dense_layers",
                           stacked(maxTextLayerParams(d, "dense", 0), d.first_dense, "dense_layers", axis)));
    if (d.layers > d.first_dense)
      append(out, prefixed(D + "moe_layers",
                           stacked(maxTextLayerParams(d, "moe", 0), d.layers - d.first_dense, "moe_layers", axis)));
    return;
  }
  if (d.block == "gemma3") { // blocks of six layers (five local, one global), then the remainder unscanned
    Params block;
    for (int k = 0; k < 6; ++k) append(block, prefixed("layers_" + std::to_string(k), maxTextLayerParams(d, "", k)));
    if (d.layers / 6 > 0) append(out, prefixed(D + "layers", stacked(std::move(block), d.layers / 6, "layers", axis)));
    for (std::int64_t k = 0; k < d.layers % 6; ++k)
      append(out, prefixed(D + "layers_remainder/layers_" + std::to_string(k), maxTextLayerParams(d, "", k)));
    return;
  }
  if (d.block == "gemma4") { // scanned_blocks of five local layers (stacked) and a global one
    Params block = prefixed("local_layers", stacked(maxTextLayerParams(d, "local", 0), 5, "local_layers", axis));
    append(block, prefixed("global_layer", maxTextLayerParams(d, "global", 5)));
    if (d.layers / 6 > 0)
      append(out, prefixed(D + "scanned_blocks", stacked(std::move(block), d.layers / 6, "layers", axis)));
    if (d.layers % 6 > 0)
      append(out, prefixed(D + "layers_remainder/local_layers",
                           stacked(maxTextLayerParams(d, "local", 0), d.layers % 6, "local_layers", axis)));
    return;
  }
  if (d.cycle > 1) { // a block of `cycle` sub-layers, stacked int(L / cycle) times
    const std::string sub = d.block == "qwen3_next" || d.block == "qwen3_5" ? "layer_" : "layers_";
    Params block;
    for (std::int64_t k = 0; k < d.cycle; ++k)
      append(block, prefixed(sub + std::to_string(k), maxTextLayerParams(d, kindOf(d, k), k)));
    append(out, prefixed(D + "layers", stacked(std::move(block), d.layers / d.cycle, "layers", axis)));
    return;
  }
  append(out, prefixed(D + "layers", stacked(maxTextLayerParams(d, kindOf(d, 0), 0), d.layers, "layers", axis)));
}

// Layers that run each attention kind: sliding-window layers (their pattern) and linear-attention
// (Gated DeltaNet) layers.
void architectureLayers(const MaxTextDims& d, Json& a) {
  std::int64_t pattern = 0;
  if (d.block == "gemma2" || d.block == "gpt_oss") pattern = 2;
  if (d.block == "olmo3") pattern = 4;
  if (d.block == "gemma3" || d.block == "gemma4") pattern = 6;
  if (d.block == "gemma4_small") pattern = d.model_name == "gemma4-e2b" ? 5 : 6;
  if (d.sliding_window > 0 && pattern > 0) {
    a["sliding_window"] = d.sliding_window;
    a["sliding_window_pattern"] = pattern;
  }
  if (d.block == "qwen3_next" || d.block == "qwen3_5") a["linear_attention_layers"] = d.layers - d.layers / d.cycle;
}

Json architectureOf(const MaxTextDims& d) {
  Json a = {{"model_type", d.block == "llama2" ? "llama" : d.block},
            // Gemma 2's MaxText layer is a pair: base_num_decoder_layers counts pairs.
            {"num_layers", d.block == "gemma2" ? 2 * d.layers : d.layers},
            {"hidden", d.emb},
            {"heads", d.heads},
            {"kv_heads", d.block == "gpt3" ? d.heads : d.kv_heads},
            {"head_dim", d.head_dim},
            {"ffn", d.mlp},
            {"vocab", d.vocab},
            {"tie_embeddings", d.tied},
            // One MLP input projection per activation: two make a gated MLP (SwiGLU, GeGLU).
            {"gated_mlp", d.activations >= 2},
            {"parallel_block", d.block == "default"}};
  if (d.experts > 1) {
    a["experts"] = d.experts;
    a["experts_per_token"] = d.experts_per_token;
    a["moe_ffn"] = d.block == "mixtral" || d.block == "gpt_oss" ? d.mlp : d.moe_mlp;
    if (d.shared_experts > 0) a["shared_experts"] = d.shared_experts;
    if (d.block == "qwen3_next" || d.block == "qwen3_5") a["shared_experts"] = 1;
    if (d.first_dense > 0) a["first_dense_layers"] = d.first_dense;
  }
  if (d.mla) {
    if (d.q_lora > 0) a["q_lora_rank"] = d.q_lora;
    a["kv_lora_rank"] = d.kv_lora;
    a["qk_nope_head_dim"] = d.qk_nope;
    a["qk_rope_head_dim"] = d.qk_rope;
    a["v_head_dim"] = d.v_head;
  }
  architectureLayers(d, a);
  return a;
}

} // namespace

MaxTextModel maxTextModel(MaxTextConfigReader& c, MaxTextImportNotes& notes) {
  std::vector<std::string> noEffect;
  const MaxTextDims d = readMaxTextDims(c, noEffect);
  SmallGemma g;
  if (d.block == "gemma4_small") {
    const std::int64_t shared = c.integer("num_kv_shared_layers", 0);
    g.shared_from = shared > 0 ? d.layers - shared : 0;
    g.double_wide = c.boolean("use_double_wide_mlp", false);
    g.per_layer_width = c.integer("hidden_size_per_layer_input", 0);
    g.per_layer_vocab = c.integer("vocab_size_per_layer_input", 0);
  }
  MaxTextModel m;
  m.name = d.model_name;
  m.weight_dtype = d.weight_dtype;
  Params& p = m.params;
  p.push_back({"params/token_embedder/embedding", {d.vocab, d.emb}, {"vocab", "embed_vocab"}});
  if (d.position_size > 0)
    p.push_back({"params/decoder/position_embedder/embedding", {d.position_size, d.emb}, {"vocab", "embed_vocab"}});
  if (g.per_layer_width > 0 && g.per_layer_vocab > 0) {
    const std::string e = "params/decoder/per_layer_embedder/";
    p.push_back(
        {e + "embed_tokens_per_layer", {g.per_layer_vocab, d.layers * g.per_layer_width}, {"vocab", "embed_vocab"}});
    p.push_back({e + "per_layer_model_projection/kernel", {d.emb, d.layers * g.per_layer_width}, {"embed", "mlp"}});
    p.push_back({e + "per_layer_projection_norm/scale", {g.per_layer_width}, {"norm"}});
  }
  if (d.scan)
    scannedLayers(d, p);
  else
    unrolledLayers(d, g, p);
  if (d.block == "gpt3") {
    p.push_back({"params/decoder/decoder_norm/scale", {d.emb}, {"norm"}});
    p.push_back({"params/decoder/decoder_norm/bias", {d.emb}, {"norm"}});
  } else {
    // Qwen3-Next's final norm carries no logical axes (Qwen3NextRMSNorm drops them).
    const bool annotated = d.block != "qwen3_next" && d.block != "qwen3_5";
    p.push_back({"params/decoder/decoder_norm/scale", {d.emb}, {annotated ? "norm" : ""}});
  }
  if (!d.tied) p.push_back({"params/decoder/logits_dense/kernel", {d.emb, d.vocab}, {"embed_vocab", "vocab"}});
  for (std::int64_t k = 0; k < d.mtp_layers; ++k)
    append(p, prefixed("params/mtp_block/mtp_layer_" + std::to_string(k + 1), maxTextMtpLayer(d, k + 1)));
  m.architecture = architectureOf(d);
  notes.notes.push_back("decoder '" + d.block + "': " + std::to_string(p.size()) + " parameters, " +
                        std::to_string(d.layers) + " layers" +
                        (d.scan ? " scanned (axis " + std::to_string(d.scan_axis) + ")" : ""));
  if (!noEffect.empty()) {
    std::string keys;
    for (const auto& k : noEffect) keys += (keys.empty() ? "" : ", ") + k;
    notes.notes.push_back("read, no effect on the layout (numerics only): " + keys);
  }
  if (c.boolean("use_multimodal", false) || c.boolean("use_audio", false))
    notes.notes.push_back("use_multimodal/use_audio: the text decoder is imported; the vision and audio encoders "
                          "are not modelled (their parameters and work are left out)");
  return m;
}

} // namespace shardscope
