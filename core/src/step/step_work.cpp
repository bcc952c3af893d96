// SPDX-License-Identifier: Apache-2.0
// The work of one micro-batch on one device, from the actual shards (step-time.md §1): every
// matmul weight does 2 FLOPs per element per token it sees in the forward and twice that in the
// backward, divided by the mesh axes that really split it (the token axes, and the axes that shard
// the weight without being token axes). An axis that splits neither leaves every device along it
// doing the same work, so it shows as duplicated work. Attention adds its score and context
// matmuls (causal: half the keys), recompute re-runs forward work in the backward, routed experts
// see k/E of the tokens. HBM bytes per matmul (weights, inputs, outputs) give each one's roofline.
// What the backward re-runs follows the remat policy (workload.hpp, recomputeTraits): the weight
// matmuls whose outputs it does not keep, and the attention core. A local matmul dimension that is
// not a multiple of the matrix unit's tile is padded, and the padded work takes time too. The
// elementwise work between the matmuls (norms, residual adds, rotary embeddings, the MLP's
// activation) reads and writes activations at HBM speed. Under an 8-bit precision the weight
// matmuls run at the chip's FP8 or INT8 peak on one-byte operands, and the casts that make those
// operands (Transformer Engine's recipe) are HBM traffic of their own.
#include "step_internal.hpp"

#include "shardscope/hardware/chips.hpp"
#include "shardscope/models/layer_pattern.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope::step {

namespace {

// Keys one query attends to on average: half the sequence under a causal mask, at most the window
// in a sliding-window layer.
double keysPerQuery(double seq, double window) {
  if (window > 0 && window < seq) return window - window * (window - 1) / (2 * seq);
  return (seq + 1) / 2;
}

// Product of the sizes of the axes splitting dimension `d` that are not weight-gather (FSDP) axes:
// what stays split while the matmul runs.
double localExtent(const ArrayLayout& layout, std::size_t d, const MeshRoles& mesh) {
  double ways = 1;
  for (int a : layout.dims[d].axes) {
    const auto i = static_cast<std::size_t>(a);
    if (!mesh.data[i] || mesh.expert[i]) ways *= static_cast<double>(mesh.size[i]);
  }
  return std::ceil(static_cast<double>(layout.shape[d]) / ways);
}

// Share of a block's forward matmul FLOPs the backward runs again under the policy: the attention
// block's query/key/value and output projections, the MLP's input projection(s) and output (not
// in an XLA program, where the backward does not read the MLP's output: RecomputeTraits).
struct RerunShares {
  double attention = 0, mlp = 0;
};
RerunShares rerunShares(const RecomputeTraits& t, const Architecture& arch) {
  const double qkv = arch.q_dim + arch.kv_dim, out = arch.v_dim;
  const double mlpIn = arch.gated_mlp ? 2.0 : 1.0, mlpOut = 1.0;
  RerunShares r;
  if (t.alternate_matmuls) {
    // Kept: the 1st, 3rd, 5th, ... matmul in the layer's order (query, key, value, output; gate,
    // up, down): the keys and the output projection re-run, and the MLP's up projection (gated)
    // or its down projection (ungated).
    if (qkv + out > 0) r.attention = (arch.kv_dim / 2 + out) / (qkv + out);
    r.mlp = (arch.gated_mlp ? 1.0 : mlpOut) / (mlpIn + mlpOut);
    return r;
  }
  if (qkv + out > 0) r.attention = ((t.kept_qkv ? 0 : qkv) + (t.kept_out ? 0 : out)) / (qkv + out);
  r.mlp = ((t.kept_mlp_in ? 0 : mlpIn) + (t.kept_mlp_out || !t.mlp_out_read ? 0 : mlpOut)) / (mlpIn + mlpOut);
  return r;
}

// Work lost to padding a local dimension up to the tile: padded size / size.
double paddingFactor(double extent, std::int64_t tile) {
  if (tile <= 1 || extent <= 0) return 1.0;
  const double t = static_cast<double>(tile);
  return std::ceil(extent / t) * t / extent;
}

struct Roofline {
  double compute, hbm; // seconds per FLOP, per byte
  double time(double flops, double bytes) const { return std::max(flops * compute, bytes * hbm); }
  double excess(double flops, double bytes) const { return std::max(0.0, bytes * hbm - flops * compute); }
};

// What every part of the work estimate reads.
struct WorkContext {
  const StepInputs& in;
  const StepOptions& o;
  const Architecture& arch;
  const MeshRoles& mesh;
  Roofline roof;
  Roofline matmulRoof; // the weight matmuls' (at the precision's peak; else `roof`)
  double tokens;       // this device's tokens per micro-batch
  double stepTokens;   // all tokens of the step
  RecomputeTraits traits;
  RerunShares rerun;
};

// One group of alike weights: its matmuls forward, backward and re-run (with the padding of
// their tiles), the head's share, the model FLOPs. Returns the optimizer elements it adds.
double addWeightWork(const WorkContext& c, const GroupUse& u, Work& w) {
  const StepInputs& in = c.in;
  const StepOptions& o = c.o;
  const Architecture& arch = c.arch;
  const MeshRoles& mesh = c.mesh;
  // The layers' matmuls run in the 8-bit format; the output projection stays in 16 bits
  // (Megatron's output layer is not a Transformer Engine module; MaxText quantizes its layers).
  const bool eightBit = isEightBit(o.precision) && u.role != ParamRole::Output && u.role != ParamRole::Embedding;
  const Roofline& roof = eightBit ? c.matmulRoof : c.roof;
  const double tokens = c.tokens, ab = o.activation_bytes;
  // The operands the matmul reads: one byte each in the 8-bit format, else the weights' and the
  // activations' own dtypes. Its output is written in the activations' dtype.
  const double pb = eightBit ? 1.0 : o.param_bytes, inBytes = eightBit ? 1.0 : ab;
  const double stepTokens = c.stepTokens;
  const RerunShares& rerun = c.rerun;
  const double expertShare = arch.experts > 0 ? arch.experts_per_token / arch.experts : 1.0;
  const auto& layout = in.plan->plans[u.group].layout;
  const double count = static_cast<double>(u.count);
  // The optimizer update touches every parameter shard; ZeRO-1/2 splits it over the batch axes
  // the parameter is replicated on (MeshRoles::zero: Megatron-LM's sequence axes too).
  double zeroDegree = 1;
  if (o.zero_stage >= 1)
    for (std::size_t a = 0; a < mesh.size.size(); ++a)
      if (mesh.zero[a] && (a >= layout.axis_used.size() || !layout.axis_used[a]))
        zeroDegree *= static_cast<double>(mesh.size[a]);
  const double optimizerElements = count * static_cast<double>(layout.shard_elements) / zeroDegree;

  const bool tiedOutput = u.role == ParamRole::Embedding && in.roles->tied_output && layout.shape.size() == 2 &&
                          arch.vocab > 0 && static_cast<double>(layout.shape[0]) == arch.vocab;
  if (u.role == ParamRole::None || (u.role == ParamRole::Embedding && !tiedOutput)) return optimizerElements;
  if (layout.shape.size() < 2) return optimizerElements;
  const double share = u.role == ParamRole::RoutedExpert ? expertShare : 1.0;
  const double elements = static_cast<double>(layout.total_elements) * count;
  // Non-token axes sharding the weight split its matmul; token axes only split the tokens.
  double split = 1, localElements = 1;
  for (std::size_t a = 0; a < layout.axis_used.size(); ++a)
    if (layout.axis_used[a] && !mesh.data[a]) split *= static_cast<double>(mesh.size[a]);
  // The matmul's local input and output widths (the product of the dimensions on each side); the
  // stacked dimensions (scanned layers, experts) multiply the matmuls, not their widths.
  const MatmulForm& form = in.roles->forms[u.form];
  double dIn = 1, dOut = 1;
  for (std::size_t d = 0; d < layout.shape.size(); ++d) {
    const double extent = localExtent(layout, d, mesh);
    localElements *= extent;
    if (d < form.dims.size() && form.dims[d] == MatmulDim::In) dIn *= extent;
    if (d < form.dims.size() && form.dims[d] == MatmulDim::Out) dOut *= extent;
  }
  const double flops = 2 * share * elements * tokens / split;
  // Each matmul reads its input activations and writes its output: tokens x in and tokens x out
  // elements.
  const double rows = dIn * dOut > 0 ? flops / (2 * dIn * dOut) : 0.0;
  const double actIn = rows * dIn, actOut = rows * dOut, weightElements = count * localElements;
  const double fwdBytes = weightElements * pb + actIn * inBytes + actOut * ab;
  const double bwdBytes = 2 * weightElements * pb + 2 * (actIn * inBytes + actOut * ab);
  // Padding of the local input and output widths to the tile; a weight whose input side is
  // several dimensions (attention's [heads, head_dim] -> width) pads as the flattened matrix.
  const double pad = paddingFactor(dIn, o.matmul_tile) * paddingFactor(dOut, o.matmul_tile);
  const double again = u.role == ParamRole::Attention                                  ? rerun.attention
                       : u.role == ParamRole::Mlp || u.role == ParamRole::RoutedExpert ? rerun.mlp
                                                                                       : 0.0;
  const double passes = 3 + again; // forward, backward (twice the forward), the re-run share
  w.fwd_flops += flops;
  w.fwd_hbm += fwdBytes;
  w.fwd_compute_s += flops * roof.compute * pad;
  w.fwd_roofline_s += roof.time(flops * pad, fwdBytes);
  w.bwd_flops += (2 + again) * flops;
  w.rerun_flops += again * flops;
  w.bwd_hbm += bwdBytes + again * fwdBytes;
  w.bwd_compute_s += (2 + again) * flops * roof.compute * pad;
  w.bwd_roofline_s += roof.time(2 * flops * pad, bwdBytes) + again * roof.time(flops * pad, fwdBytes);
  w.padding_s += passes * flops * roof.compute * (pad - 1);
  if (eightBit) {
    // The casts to one byte (Transformer Engine, per micro-batch), at HBM speed: forward, the input
    // activations and the weights (read in their dtype, written in one byte); backward, the
    // output's gradient, and the transposes of the cast weights and inputs its two matmuls read; a
    // re-run forward casts again.
    const double castFwd = actIn * (ab + 1) + weightElements * (o.param_bytes + 1);
    const double castBwd = actOut * (ab + 1) + 2 * (weightElements + actIn) + again * castFwd;
    w.fwd_hbm += castFwd;
    w.bwd_hbm += castBwd;
    w.fwd_roofline_s += castFwd * roof.hbm;
    w.bwd_roofline_s += castBwd * roof.hbm;
    w.elementwise_s += (castFwd + castBwd) * roof.hbm;
  }
  // What the matmuls' HBM-bound time is spent on, each pass's excess split by its bytes.
  const double weightShare = fwdBytes > 0 ? count * localElements * pb / fwdBytes : 0.0;
  const double excess = roof.excess(flops * pad, fwdBytes) * (1 + again) + roof.excess(2 * flops * pad, bwdBytes);
  w.hbm_weights_s += excess * weightShare;
  w.hbm_activations_s += excess * (1 - weightShare);
  if (u.role == ParamRole::Output || tiedOutput) {
    w.head_fwd_s += roof.time(flops * pad, fwdBytes);
    w.head_bwd_s += roof.time(2 * flops * pad, bwdBytes);
  }
  w.model_flops_step += 6 * share * elements * stepTokens;
  if (u.role == ParamRole::Attention) w.attention_split = std::max(w.attention_split, split);
  if (u.role == ParamRole::Output || tiedOutput) w.vocab_split = std::max(w.vocab_split, split);
  return optimizerElements;
}

// Attention scores and context: 2 s_k (d_q + d_v) FLOPs per token forward, per layer; the heads
// split like the projections that make them.
void addAttentionCoreWork(const WorkContext& c, Work& w) {
  const Architecture& arch = c.arch;
  // The attention core runs at the attention kernel's own fraction of the bf16 peak.
  const Roofline roof{1.0 / (c.o.peak_flops.value * c.o.calibration.attention_fraction.value), c.roof.hbm};
  const double tokens = c.tokens, stepTokens = c.stepTokens, ab = c.o.activation_bytes;
  const double seq = static_cast<double>(c.o.seq_len);
  const auto* config = c.in.model->config ? &*c.in.model->config : nullptr;
  // Sliding-window layers and full-attention layers, each kind priced once and counted (the
  // pattern is periodic: no loop over what may be billions of layers).
  // Linear-attention layers (Gated DeltaNet) have no quadratic core: their projections are weights.
  const std::int64_t linearLayers = config ? std::min(config->linear_attention_layers, arch.layers) : 0;
  const std::int64_t slidingLayers = config ? std::min(slidingLayerCount(*config), arch.layers - linearLayers) : 0;
  for (const auto& [window, layers] :
       {std::pair{config ? static_cast<double>(config->sliding_window) : 0.0, slidingLayers},
        std::pair{0.0, arch.layers - slidingLayers - linearLayers}}) {
    if (layers <= 0) continue;
    const double count = static_cast<double>(layers);
    const double perToken = 2 * keysPerQuery(seq, window) * (arch.q_dim + arch.v_dim);
    const double flops = perToken * tokens / w.attention_split;
    // Flash attention reads Q, K, V and writes O once per layer.
    const double bytes = tokens * 2 * (arch.q_dim + arch.v_dim) * ab / w.attention_split;
    w.fwd_flops += count * flops;
    w.fwd_hbm += count * bytes;
    w.fwd_compute_s += count * flops * roof.compute;
    w.fwd_roofline_s += count * roof.time(flops, bytes);
    w.attention_fwd_s += count * roof.time(flops, bytes);
    const double again = c.traits.rerun_attention ? 1.0 : 0.0;
    // The backward's matmuls: four (dV, dP, dQ, dK: twice the forward's two), and a flash kernel
    // recomputes the scores QK^T first, since it never stored them: 2.5 times the forward
    // (FlashAttention-2, Dao 2023; its benchmark counts the backward so). The policy's re-run of
    // the attention core (`again`) comes on top.
    const double bwd = (c.o.attention == AttentionKernel::Flash ? 2.5 : 2.0) + again;
    w.bwd_flops += count * bwd * flops;
    w.rerun_flops += count * again * flops;
    w.bwd_hbm += count * (2 + again) * bytes;
    w.bwd_compute_s += count * bwd * flops * roof.compute;
    const double bwdAttention = roof.time((bwd - again) * flops, 2 * bytes) + again * roof.time(flops, bytes);
    w.bwd_roofline_s += count * bwdAttention;
    w.attention_bwd_s += count * bwdAttention;
    w.hbm_activations_s +=
        count * (roof.excess(flops, bytes) * (1 + again) + roof.excess((bwd - again) * flops, 2 * bytes));
    w.model_flops_step += count * 3 * perToken * stepTokens;
  }
}

// Elementwise work per token and layer, forward (elements read and written): two norms (read and
// write the model width), two residual adds (read two, write one), rotary embeddings on the
// queries and keys (read and write), the MLP's activation (gated: read two, write one). The
// backward touches each about twice; policies that keep only matmul outputs run the forward's
// again. Model-width tensors are split over the tensor axis only where the activations are (MaxText,
// Megatron sequence parallelism); head- and MLP-width ones always are.
void addElementwiseWork(const WorkContext& c, Work& w) {
  const StepOptions& o = c.o;
  const Architecture& arch = c.arch;
  const Roofline& roof = c.roof;
  const double tokens = c.tokens, ab = o.activation_bytes;
  const RecomputeTraits& traits = c.traits;
  const bool embedSplit = o.sequence_parallel || o.framework == Framework::MaxText;
  const double t = w.attention_split;
  const double moeLayers = static_cast<double>(c.in.roles->moe_layers);
  const double layers = static_cast<double>(arch.layers);
  const double denseLayers = std::max(0.0, layers - moeLayers);
  const double moeWidth =
      arch.moe_ffn * std::max(1.0, arch.experts_per_token) + (arch.shared_experts ? arch.moe_ffn : 0);
  const double mlpWidth = (denseLayers * arch.ffn + moeLayers * moeWidth) / std::max(1.0, layers);
  const double perToken = 10 * arch.hidden / (embedSplit ? t : 1.0) + (2 * arch.q_dim + arch.kv_dim) / t +
                          (arch.gated_mlp ? 3.0 : 2.0) * mlpWidth / t;
  const double bytes = perToken * tokens * ab * layers;
  const bool rerunsElementwise = !traits.keeps_everything && o.recompute != Recompute::Selective;
  w.elementwise_s += bytes * (3 + (rerunsElementwise ? 1 : 0)) * roof.hbm;
  w.fwd_hbm += bytes;
  w.fwd_roofline_s += bytes * roof.hbm;
  w.bwd_hbm += bytes * (2 + (rerunsElementwise ? 1 : 0));
  w.bwd_roofline_s += bytes * (2 + (rerunsElementwise ? 1 : 0)) * roof.hbm;
}

// Materialized attention (AttentionKernel::Materialized): per layer the scores [heads, s, s] of
// every sequence reach HBM. Forward, per score element: the QK^T matmul writes it, the fused
// scale-mask-softmax reads and writes it, the attention dropout reads and writes it and its
// 1-byte mask, the context matmul reads it (6 activation-sized accesses + 1 byte); the backward
// about twice that, and a policy that re-runs the attention core runs the forward's again. The
// whole square is written whatever the mask: an unfused kernel computes every score, then masks.
void addMaterializedScoresWork(const WorkContext& c, Work& w) {
  const double seq = static_cast<double>(c.o.seq_len), ab = c.o.activation_bytes;
  const double tokens = c.tokens;
  const Architecture& arch = c.arch;
  const RecomputeTraits& traits = c.traits;
  const Roofline& roof = c.roof;
  const double scores = tokens * seq * arch.heads / w.attention_split * static_cast<double>(arch.layers);
  const double fwd = scores * (6 * ab + 1);
  const double bwd = fwd * (2 + (traits.rerun_attention ? 1.0 : 0.0));
  w.fwd_hbm += fwd;
  w.bwd_hbm += bwd;
  w.fwd_roofline_s += fwd * roof.hbm;
  w.bwd_roofline_s += bwd * roof.hbm;
  w.elementwise_s += (fwd + bwd) * roof.hbm;
}

// HBM bytes per logit of the loss over the vocabulary, forward and backward, past the output
// matmul's own output. XLA fuses the log-softmax: the logits written in fp32, read by the softmax
// and the loss, read again with the probabilities written for the backward (3 x 4 bytes forward,
// 2 x 4 backward). Megatron's vocab-parallel cross entropy runs as separate PyTorch kernels over
// fp32 copies (megatron/core/tensor_parallel/cross_entropy.py, core_r0.8.0): forward the cast of
// the 16-bit logits to fp32 (2 read + 4 written), the max (4), the in-place subtraction, exp and
// division by the sum (3 x 8), the sum (4): 38 bytes; backward the in-place multiplication by the
// loss' gradient (8) and its cast back to 16 bits for the matmul (4 + 2): 14 bytes.
struct LossBytes {
  double fwd, bwd;
};
LossBytes lossBytesPerLogit(Framework framework) {
  if (framework == Framework::Megatron) return {38, 14};
  return {12, 8};
}

// The loss over the vocabulary, the vocabulary split like the output projection.
void addLossWork(const WorkContext& c, Work& w) {
  const double tokens = c.tokens;
  const Architecture& arch = c.arch;
  const Roofline& roof = c.roof;
  const double logits = tokens * std::ceil(arch.vocab / w.vocab_split);
  const LossBytes perLogit = lossBytesPerLogit(c.o.framework);
  const double fwd = perLogit.fwd * logits * roof.hbm, bwd = perLogit.bwd * logits * roof.hbm;
  w.fwd_hbm += perLogit.fwd * logits;
  w.bwd_hbm += perLogit.bwd * logits;
  w.fwd_roofline_s += fwd;
  w.bwd_roofline_s += bwd;
  w.elementwise_s += fwd + bwd;
  w.head_fwd_s += fwd;
  w.head_bwd_s += bwd;
}

// Optimizer update per element: read the parameter and its gradient (in its own dtype), write the
// parameter, and read and write the optimizer state (and the fp32 master copy).
double optimizerBytesPerElement(const StepOptions& o) {
  double stateBytes = 0;
  switch (o.optimizer) {
  case Optimizer::AdamW:
    stateBytes = 16;
    break;
  case Optimizer::SgdMomentum:
    stateBytes = 8;
    break;
  case Optimizer::Adafactor:
    stateBytes = 0; // factored statistics: small next to the parameters
    break;
  }
  const double gradBytes = o.grad_bytes > 0 ? o.grad_bytes : o.param_bytes;
  return 2 * o.param_bytes + gradBytes + stateBytes + (o.master_weights_fp32 ? 8 : 0);
}

} // namespace

Work estimateWork(const StepInputs& in, const StepOptions& o, const Architecture& arch, const MeshRoles& mesh,
                  const std::vector<GroupUse>& uses) {
  Work w;
  const RecomputeTraits traits =
      recomputeTraits(o.recompute, isXlaProgram(o.framework, findChip(o.chip)), o.custom_remat);
  const Roofline roof{1.0 / (o.peak_flops.value * o.calibration.flops_fraction.value),
                      1.0 / (o.hbm_bandwidth.value * o.calibration.hbm_fraction.value)};
  const double matmulPeak = o.peak_matmul_flops.value > 0 ? o.peak_matmul_flops.value : o.peak_flops.value;
  const WorkContext c{in,
                      o,
                      arch,
                      mesh,
                      roof,
                      Roofline{1.0 / (matmulPeak * o.calibration.flops_fraction.value), roof.hbm},
                      mesh.tokens_local,
                      mesh.tokens_per_micro_batch * static_cast<double>(o.microbatches),
                      traits,
                      rerunShares(traits, arch)};
  double optimizerElements = 0;
  for (const auto& u : uses) optimizerElements += addWeightWork(c, u, w); // sets attention_split, vocab_split
  addAttentionCoreWork(c, w);
  addElementwiseWork(c, w);
  if (o.attention == AttentionKernel::Materialized) addMaterializedScoresWork(c, w);
  if (arch.vocab > 0) addLossWork(c, w);
  w.optimizer_bytes = optimizerElements * optimizerBytesPerElement(o);
  w.rerun_attention = traits.rerun_attention;
  // A ring of p chunks: the first chunk's attention runs while the first transfer goes, the last
  // one's after the last transfer arrived; the p - 1 transfers overlap p - 1 of the p chunks.
  const double ways = static_cast<double>(std::max<std::int64_t>(1, mesh.seq_degree));
  w.ring_window_fwd_s = w.attention_fwd_s * (ways - 1) / ways;
  w.ring_window_bwd_s = w.attention_bwd_s * (ways - 1) / ways;
  return w;
}

} // namespace shardscope::step
