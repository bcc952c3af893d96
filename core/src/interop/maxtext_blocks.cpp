// SPDX-License-Identifier: Apache-2.0
// One decoder layer of each MaxText decoder_block, as MaxText's layers build it (src/maxtext/layers
// at e591f30c, 2026-08-22; the NNX modules save under the Linen names used here): the parameter
// paths relative to the layer, their shapes and the logical axes the code annotates.
//   building blocks: linears.py (DenseGeneral: kernel = in features + out features, a bias of the
//   out features; MlpBlock: wi / wi_<i> per activation, or one fused wi; wo), normalizations.py
//   (RMSNorm scale ("norm",); Qwen3-Next's norms carry no annotation), attentions.py (query, key,
//   value, out, fused qkv_proj, biases, sinks, query/key/value norms), attention_mla.py (MLA's
//   low-rank projections and the V3.2 indexer), attention_compressed.py (DeepSeek-V4), moe.py
//   (RoutedMoE: gate, wi_0/wi_1/wo, biases; RoutedAndSharedMoE: MoeBlock_0 and shared_experts),
//   mhc.py (hyper-connections);
//   the layers: models/<family>.py for llama2, mistral, mixtral, gemma, gemma2, gemma3, gemma4,
//   gemma4_small, gpt3, gpt_oss, deepseek, deepseek4, qwen2, qwen3, qwen3_moe, qwen3_custom_moe,
//   qwen3_next, qwen3_5, llama4, olmo3, envy, simple_layer.py, and nnx_decoders.py's default layer.
#include "maxtext_params.hpp"

#include <initializer_list>

namespace shardscope {

namespace {

using Axes = std::vector<std::string>;
using Shape = std::vector<std::int64_t>;

// Appends parameters under a path prefix.
class Layer {
public:
  explicit Layer(const MaxTextDims& d) : d_(d) {}
  std::vector<MaxTextParam> take() { return std::move(params_); }

  void param(const std::string& path, Shape shape, Axes axes) {
    if (axes.empty()) axes.assign(shape.size(), "");
    params_.push_back({path, std::move(shape), std::move(axes)});
  }
  // DenseGeneral: kernel [in..., out...] and, with a bias, [out...] with the out dims' axes.
  void dense(const std::string& path, const Shape& in, const Shape& out, const Axes& axes, bool bias = false) {
    Shape shape = in;
    shape.insert(shape.end(), out.begin(), out.end());
    param(path + "/kernel", shape, axes);
    if (bias) param(path + "/bias", out, axes.empty() ? Axes{} : Axes(axes.end() - out.size(), axes.end()));
  }
  void norm(const std::string& path, std::int64_t n, bool annotated = true) {
    param(path + "/scale", {n}, annotated ? Axes{"norm"} : Axes{});
  }
  void layerNorm(const std::string& path, std::int64_t n) { // gpt3: scale and bias
    param(path + "/scale", {n}, {"norm"});
    param(path + "/bias", {n}, {"norm"});
  }

  // linears.MlpBlock of width `inter` on input width `in`.
  void mlp(const std::string& path, std::int64_t in, std::int64_t inter, bool bias = false) {
    if (d_.fused_mlp) {
      dense(path + "/wi", {in}, {d_.activations, inter}, {"embed", "num_activations", "mlp"}, bias);
    } else {
      for (std::int64_t i = 0; i < d_.activations; ++i)
        dense(path + (d_.activations == 1 ? "/wi" : "/wi_" + std::to_string(i)), {in}, {inter}, {"embed", "mlp"}, bias);
    }
    dense(path + "/wo", {inter}, {in}, {"mlp", "embed"}, bias);
  }

  struct AttentionShape {
    std::int64_t heads, kv_heads, head_dim;
    bool qk_norm = false, v_norm = false, bias = false, share_value = false, share_kv_layer = false;
    std::int64_t out_width = 0; // 0: emb
  };
  // attentions.Attention.
  void attention(const std::string& path, const AttentionShape& a) {
    const std::int64_t emb = d_.emb, h = a.heads, k = a.kv_heads, hd = a.head_dim;
    const bool hybrid = d_.block == "qwen3_next" || d_.block == "qwen3_5";
    const auto none = [&](Axes axes) { return d_.autoregressive ? Axes(axes.size(), "") : axes; };
    if (d_.fused_qkv) {
      dense(path + "/qkv_proj", {emb}, {h + 2 * k, hd}, {"embed", "heads", "kv"}, a.bias);
    } else {
      dense(path + "/query", {emb}, {h, hybrid ? 2 * hd : hd}, none({"embed", "q_heads", "kv"}), a.bias);
      if (!a.share_kv_layer) {
        dense(path + "/key", {emb}, {k, hd}, none({"embed", "kv_heads", "kv_head_dim"}), a.bias);
        if (!a.share_value) dense(path + "/value", {emb}, {k, hd}, none({"embed", "kv_heads", "kv_head_dim"}), a.bias);
      }
    }
    const std::int64_t outWidth = a.out_width > 0 ? a.out_width : emb;
    if (hybrid)
      dense(path + "/out", {h * hd}, {outWidth}, {"mlp", "embed"});
    else
      dense(path + "/out", {h, hd}, {outWidth}, none({"heads", "kv", "embed"}), a.bias && d_.block != "qwen2");
    if (d_.attention_sink) param(path + "/sinks", {d_.heads}, {""});
    if (a.qk_norm && d_.block != "llama4") {
      // OLMo 3's query and key norms run over all heads (GlobalRMSNorm), chosen by its model name.
      const bool global = d_.model_name.rfind("olmo3", 0) == 0;
      if (d_.qk_norm_scale) {
        norm(path + "/query_norm", global ? h * hd : hd);
        if (!a.share_kv_layer) norm(path + "/key_norm", global ? k * hd : hd);
      }
    } else if (hybrid) {
      norm(path + "/query_norm", d_.head_dim, false);
      norm(path + "/key_norm", d_.head_dim, false);
    }
    if (a.v_norm && !a.share_kv_layer && d_.v_norm_scale) norm(path + "/value_norm", hd);
  }

  // attention_mla.MLA.
  void mla(const std::string& path) {
    const std::int64_t emb = d_.emb, h = d_.heads, qk = d_.qk_nope + d_.qk_rope;
    if (d_.q_lora == 0) {
      dense(path + "/query", {emb}, {h, qk}, {"embed", "q_heads", "kv"});
    } else {
      dense(path + "/wq_a", {emb}, {d_.q_lora}, {"embed", "q_lora_up_proj"});
      norm(path + "/q_norm", d_.q_lora);
      dense(path + "/wq_b", {d_.q_lora}, {h, qk}, {"q_lora", "q_heads", "kv"});
    }
    dense(path + "/wkv_a", {emb}, {d_.kv_lora + d_.qk_rope}, {"embed", "kv_lora_up_proj"});
    norm(path + "/kv_norm", d_.kv_lora);
    dense(path + "/wkv_b", {d_.kv_lora}, {h, d_.qk_nope + d_.v_head}, {"kv_lora", "kv_heads", "kv_head_dim"});
    dense(path + "/out", {h, d_.v_head}, {emb}, {"heads", "kv", "embed"});
    if (d_.attention_sink) param(path + "/sinks", {h}, {""});
    if (d_.use_indexer) {
      const std::int64_t ih = d_.indexer_heads, ihd = d_.indexer_head_dim;
      dense(path + "/indexer/wq_b", {d_.q_lora}, {ih, ihd}, {"q_lora", "q_heads", "kv"});
      dense(path + "/indexer/wk", {emb}, {ihd}, {"embed", "kv"});
      param(path + "/indexer/k_norm/scale", {ihd}, {});
      param(path + "/indexer/k_norm/bias", {ihd}, {});
      dense(path + "/indexer/weights_proj", {emb}, {ih}, {"embed", "q_heads"});
    }
  }

  // moe.RoutedMoE: `experts` experts of width `inter`, the gate annotated `gate`.
  void routedMoe(const std::string& path, std::int64_t inter, const Axes& gate, bool routerBias) {
    const std::int64_t in = d_.moe_input > 0 ? d_.moe_input : d_.emb, x = d_.experts;
    Axes wi{"exp", "embed_moe", "mlp_moe"}, wo{"exp", "mlp_moe", "embed_moe"};
    switch (d_.expert_axes) {
    case ExpertAxes::OnFsdp:
      wi = {"embed_moe", "", "mlp_moe"};
      wo = {"embed_moe", "mlp_moe", ""};
      break;
    case ExpertAxes::TwoDimFsdp:
      wi = wo = {"embed_moe", "mlp_moe", ""};
      break;
    case ExpertAxes::BatchSplit:
      wi = {"expert_only", "embed_moe", ""};
      wo = {"expert_only", "", "embed_moe"};
      break;
    case ExpertAxes::Default:
      break;
    }
    dense(path + "/gate", {in}, {x}, gate);
    if (routerBias) param(path + "/gate/bias", {x}, {gate.back()});
    param(path + "/wi_0", {x, in, inter}, wi);
    param(path + "/wi_1", {x, in, inter}, wi);
    param(path + "/wo", {x, inter, in}, wo);
    if (d_.mlp_bias) {
      param(path + "/wi_0_bias", {x, inter}, {"exp", "activation_mlp"});
      param(path + "/wi_1_bias", {x, inter}, {"exp", "activation_mlp"});
      param(path + "/wo_bias", {x, in}, {"exp", "activation_embed"});
    }
    if (d_.block == "gemma4") param(path + "/per_expert_scale", {x}, {"exp"});
  }
  // moe.RoutedAndSharedMoE.
  void routedAndShared(const std::string& path, bool routerBias) {
    routedMoe(path + "/MoeBlock_0", d_.moe_mlp, {"embed_moe", ""}, routerBias);
    const std::int64_t in = d_.moe_input > 0 ? d_.moe_input : d_.emb;
    mlp(path + "/shared_experts", in, d_.shared_experts * (d_.block == "gemma4" ? d_.mlp : d_.moe_mlp));
  }
  // mhc.ManifoldConstrainedHyperConnections of expansion k over width `dim`.
  void hyperConnections(const std::string& path, std::int64_t k, std::int64_t dim, bool lite) {
    std::int64_t factorial = 1;
    for (std::int64_t i = 2; i <= k; ++i) factorial *= i;
    const std::int64_t res = lite ? factorial : k * k;
    norm(path + "/mhc_norm", k * dim);
    for (const char* n : {"res_alpha_scale", "pre_alpha_scale", "post_alpha_scale"}) param(path + "/" + n, {1}, {""});
    param(path + "/res_alpha", {k * dim, res}, {"activation_embed", ""});
    param(path + "/pre_alpha", {k * dim, k}, {"activation_embed", ""});
    param(path + "/post_alpha", {k * dim, k}, {"activation_embed", ""});
    if (lite)
      param(path + "/res_beta", {res}, {""});
    else
      param(path + "/res_beta", {k, k}, {"", ""});
    param(path + "/pre_beta", {k}, {""});
    param(path + "/post_beta", {k}, {""});
  }

  const MaxTextDims& dims() const { return d_; }

private:
  const MaxTextDims& d_;
  std::vector<MaxTextParam> params_;
};

Layer::AttentionShape plainAttention(const MaxTextDims& d) { return {d.heads, d.kv_heads, d.head_dim}; }

// Gated DeltaNet (Qwen3-Next's linear attention, models/qwen3.py).
void gatedDeltaNet(Layer& l, const MaxTextDims& d) {
  const std::int64_t kd = d.gdn_key_dim * d.gdn_key_heads, vd = d.gdn_value_dim * d.gdn_value_heads;
  const std::int64_t hv = d.gdn_value_heads;
  l.dense("attention/in_proj_qkvz", {d.emb}, {2 * kd + 2 * vd}, {"embed", "gdn_head"});
  l.dense("attention/in_proj_ba", {d.emb}, {2 * hv}, {"embed", "gdn_head"});
  l.param("attention/conv1d/kernel", {d.gdn_conv, 1, 2 * kd + vd}, {});
  l.param("attention/A_log", {hv}, {});
  l.param("attention/dt_bias", {hv}, {});
  l.norm("attention/norm/rms_norm", d.gdn_value_dim, false);
  l.dense("attention/out_proj", {vd}, {d.emb}, {"gdn_head", "embed"});
}

// Llama-style layer: pre-attention norm, attention, post-attention norm (the names llama2 uses).
void llamaAttention(Layer& l, const MaxTextDims& d, const Layer::AttentionShape& a) {
  l.norm("pre_self_attention_layer_norm", d.emb);
  l.attention("self_attention", a);
  l.norm("post_self_attention_layer_norm", d.emb);
}

void gemmaFamily(Layer& l, const MaxTextDims& d, const std::string& kind) {
  const std::int64_t emb = d.emb;
  if (d.block == "gemma") {
    l.norm("pre_self_attention_norm", emb);
    l.attention("self_attention", plainAttention(d));
    l.norm("pre_ffw_norm", emb);
    l.mlp("mlp", emb, d.mlp);
    return;
  }
  if (d.block == "gemma2") { // one scanned layer holds a local and a global layer
    for (const std::string s : {"local", "global"}) {
      l.norm("pre_self_attention_norm_" + s, emb);
      l.attention("self_attention_" + s, plainAttention(d));
      if (d.post_attn_norm) l.norm("post_self_attention_norm_" + s, emb);
      l.norm("pre_ffw_norm_" + s, emb);
      l.mlp("mlp_" + s, emb, d.mlp);
      if (d.post_ffw_norm) l.norm("post_ffw_norm_" + s, emb);
    }
    return;
  }
  // gemma3, gemma4: query and key norms always.
  const bool global = kind == "global";
  Layer::AttentionShape a = plainAttention(d);
  a.qk_norm = true;
  if (d.block == "gemma4") {
    a.v_norm = true;
    if (global && d.global_kv_heads > 0) a.kv_heads = d.global_kv_heads;
    if (global && d.global_head_dim > 0) a.head_dim = d.global_head_dim;
    a.share_value = global && d.share_kv;
  }
  l.norm("pre_self_attention_norm", emb);
  l.attention("self_attention", a);
  if (d.post_attn_norm) l.norm("post_self_attention_norm", emb);
  l.norm("pre_ffw_norm", emb);
  if (d.block == "gemma4" && d.experts > 1) {
    l.routedAndShared("mlp/moe_block", false);
    l.param("mlp/pre_forward_scale_2", {emb}, {"embed"});
    for (const char* n :
         {"mlp/pre_feedforward_layernorm_2", "mlp/post_feedforward_layernorm_1", "mlp/post_feedforward_layernorm_2"})
      l.norm(n, emb);
  } else {
    l.mlp("mlp", emb, d.mlp);
  }
  if (d.post_ffw_norm) l.norm("post_ffw_norm", emb);
  if (d.block == "gemma4") l.param("layer_scalar", {1}, {""});
}

void gemma4Small(Layer& l, const MaxTextDims& d, const std::string& kind, std::int64_t index, std::int64_t sharedFrom,
                 bool doubleWide, std::int64_t perLayerWidth) {
  const bool shared = sharedFrom > 0 && index >= sharedFrom;
  Layer::AttentionShape a = plainAttention(d);
  a.qk_norm = a.v_norm = true;
  a.share_kv_layer = shared;
  if (kind == "global" && d.global_kv_heads > 0) a.kv_heads = d.global_kv_heads;
  if (kind == "global" && d.global_head_dim > 0) a.head_dim = d.global_head_dim;
  for (const char* n : {"pre_self_attention_norm", "post_self_attention_norm", "pre_ffw_norm", "post_ffw_norm"})
    l.norm(n, d.emb);
  l.attention("self_attention", a);
  l.mlp("mlp", d.emb, shared && doubleWide ? 2 * d.mlp : d.mlp);
  if (perLayerWidth > 0) {
    l.dense("per_layer_input_gate", {d.emb}, {perLayerWidth}, {"embed", "mlp"});
    l.dense("per_layer_projection", {perLayerWidth}, {d.emb}, {"mlp", "embed"});
    l.norm("post_per_layer_input_norm", d.emb);
  }
  l.param("layer_scalar", {1}, {""});
}

void gpt3Layer(Layer& l, const MaxTextDims& d) {
  const std::int64_t emb = d.emb, h = d.heads, hd = d.head_dim;
  l.layerNorm("pre_self_attention_norm", emb);
  l.layerNorm("mlp/mlp_layer_norm", emb);
  l.mlp("mlp", emb, d.mlp, true);
  if (d.fused_qkv) {
    l.dense("self_attention/qkv_proj", {emb}, {3, h, hd}, {"embed", "qkv", "heads", "kv"}, true);
  } else {
    for (const char* n : {"query", "key", "value"})
      l.dense(std::string("self_attention/") + n, {emb}, {h, hd}, {"embed", "heads", "kv"}, true);
  }
  l.dense("self_attention/out", {h, hd}, {emb}, {"heads", "kv", "embed"}, true);
}

void qwenFamily(Layer& l, const MaxTextDims& d, std::int64_t index) {
  Layer::AttentionShape a = plainAttention(d);
  a.qk_norm = d.qk_norm;
  if (d.block == "qwen2") {
    a.bias = d.attention_bias;
    llamaAttention(l, d, a);
    l.mlp("mlp", d.emb, d.mlp);
  } else if (d.block == "qwen3" || d.block == "qwen3_moe") {
    llamaAttention(l, d, a);
    if (d.block == "qwen3")
      l.mlp("mlp", d.emb, d.mlp);
    else
      l.routedMoe("moe_block", d.moe_mlp, {"embed", ""}, false);
  } else if (d.block == "qwen3_custom_moe") {
    a.out_width = d.attention_output_dim;
    llamaAttention(l, d, a);
    l.norm("latent_norm", d.attention_output_dim);
    l.routedMoe("moe_block", d.moe_mlp, {"embed", ""}, false);
    if (d.attention_output_dim > 0 && d.attention_output_dim != d.emb)
      l.dense("layer_up_projection", {d.attention_output_dim}, {d.emb}, {"mlp", "embed"});
  } else { // qwen3_next, qwen3_5: full attention every cycle-th layer, Gated DeltaNet otherwise
    l.norm("input_layernorm", d.emb, false);
    l.norm("post_attention_layernorm", d.emb, false);
    if ((index + 1) % d.cycle == 0)
      l.attention("attention/attention", a);
    else
      gatedDeltaNet(l, d);
    l.routedMoe("mlp/routed_experts", d.moe_mlp, {"embed", ""}, false);
    l.mlp("mlp/shared_expert", d.emb, d.moe_mlp);
    l.dense("mlp/shared_expert_gate", {d.emb}, {1}, {"embed", ""});
  }
}

// DeepSeek V2/V3/V3.2 and Kimi K2: MLA, a dense MLP or routed and shared experts.
void deepseekLayer(Layer& l, const MaxTextDims& d, const std::string& kind, std::int64_t mhc, bool mhcLite) {
  l.norm("pre_self_attention_layer_norm", d.emb);
  l.norm("post_self_attention_layer_norm", d.emb);
  l.mla("self_attention");
  if (mhc > 1) {
    l.hyperConnections("mhc_attention", mhc, d.emb, mhcLite);
    l.hyperConnections("mhc_mlp", mhc, d.emb, mhcLite);
  }
  if (kind == "dense")
    l.mlp("mlp", d.emb, d.mlp);
  else
    l.routedAndShared("DeepSeekMoeBlock_0", d.routed_bias);
}

} // namespace

std::vector<MaxTextParam> maxTextLayerParams(const MaxTextDims& d, const std::string& kind, std::int64_t index) {
  Layer l(d);
  const std::string& b = d.block;
  if (b == "default") {
    Layer::AttentionShape a = plainAttention(d);
    a.share_value = d.share_kv;
    l.norm("pre_self_attention_norm", d.emb);
    l.attention("self_attention", a);
    l.mlp("mlp", d.emb, d.mlp);
  } else if (b == "llama2" || b == "mistral") {
    llamaAttention(l, d, plainAttention(d));
    l.mlp("mlp", d.emb, d.mlp);
  } else if (b == "mixtral") {
    llamaAttention(l, d, plainAttention(d));
    l.routedMoe("MoeBlock_0", d.mlp, {"embed", ""}, false);
  } else if (b == "gemma" || b == "gemma2" || b == "gemma3" || b == "gemma4") {
    gemmaFamily(l, d, kind);
  } else if (b == "gpt3") {
    gpt3Layer(l, d);
  } else if (b == "gpt_oss") {
    l.param("pre_self_attention_layer_norm/scale", {d.emb}, {"norm"});
    l.param("post_self_attention_layer_norm/scale", {d.emb}, {"norm"});
    Layer::AttentionShape a = plainAttention(d);
    a.bias = d.attention_bias;
    l.attention("GptOssAttention", a);
    l.routedMoe("GptOssMlp", d.mlp, {"embed", ""}, d.routed_bias);
  } else if (b == "olmo3") {
    l.norm("post_self_attention_layer_norm", d.emb);
    l.norm("post_mlp_layer_norm", d.emb);
    Layer::AttentionShape a = plainAttention(d);
    a.bias = d.attention_bias;
    a.qk_norm = d.qk_norm;
    l.attention("attention", a);
    l.mlp("mlp", d.emb, d.mlp);
  } else if (b == "qwen2" || b == "qwen3" || b == "qwen3_moe" || b == "qwen3_custom_moe" || b == "qwen3_next" ||
             b == "qwen3_5") {
    qwenFamily(l, d, index);
  } else if (b == "llama4" || b == "envy") {
    Layer::AttentionShape a = plainAttention(d);
    a.qk_norm = d.qk_norm;
    llamaAttention(l, d, a);
    if (kind == "moe" && b == "llama4")
      l.routedAndShared("Llama4MoEBlock_0", false);
    else if (kind == "moe")
      l.routedMoe("MoeBlock_0", d.moe_mlp, {"embed", ""}, false);
    else
      l.mlp("mlp", d.emb, d.mlp);
    if (b == "envy" && d.post_ffw_norm) l.norm("post_ffw_norm", d.emb);
  } else if (b == "deepseek") {
    deepseekLayer(l, d, kind, 1, false);
  } else if (b == "simple") {
    l.param("weights", {d.emb, d.emb}, {"embed", "mlp"});
  } else if (b == "simple_mlp") {
    l.param("ff_1", {d.emb, d.mlp}, {"embed", "mlp"});
    l.param("ff_2", {d.mlp, d.emb}, {"mlp", "embed"});
  } else {
    throwValueError("MaxText decoder_block '" + b + "' has no parameter tree here");
  }
  return l.take();
}

std::vector<MaxTextParam> maxTextGemma4SmallLayer(const MaxTextDims& d, const std::string& kind, std::int64_t index,
                                                  std::int64_t sharedFrom, bool doubleWide,
                                                  std::int64_t perLayerWidth) {
  Layer l(d);
  gemma4Small(l, d, kind, index, sharedFrom, doubleWide, perLayerWidth);
  return l.take();
}

std::vector<MaxTextParam> maxTextMtpLayer(const MaxTextDims& d, std::int64_t k) {
  Layer l(d);
  const std::string p = "mtp_" + std::to_string(k);
  l.norm(p + "_embedding_norm", d.emb);
  l.norm(p + "_hidden_state_norm", d.emb);
  l.dense(p + "_projection", {2 * d.emb}, {d.emb}, {"embed", ""});
  for (MaxTextParam& q : maxTextLayerParams(d, "moe", 0))
    l.param(p + "_transformer_layer/" + q.path, q.shape, q.logical_axes);
  return l.take();
}

} // namespace shardscope
