// SPDX-License-Identifier: Apache-2.0
#include "shardscope/cost/memory.hpp"

#include "shardscope/models/layer_pattern.hpp"

#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/chips.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope {

namespace {

// ceil(n / d) for n >= 0, d >= 1, without n + d - 1 overflowing near 2^63.
double ceilDiv(std::int64_t n, std::int64_t d) { return static_cast<double>(n / d + (n % d != 0 ? 1 : 0)); }

void requirePositive(std::int64_t value, const char* name) {
  if (value < 1) throwValueError(std::string(name) + " must be a positive integer, got " + std::to_string(value));
}

// Model-wide share of Adafactor state per parameter element, for devices whose factored size the
// caller did not compute from shard shapes.
double adafactorRatio(const Model& model) {
  double elements = 0, state = 0;
  for (const auto& p : model.params) {
    elements += static_cast<double>(p.elements());
    state += adafactorStateElements(p.shape);
  }
  return elements > 0 ? state / elements : 1.0;
}

ActivationBreakdown activationsFor(const ModelConfig& c, const MemoryOptions& o, const ChipSpec* chip) {
  ActivationBreakdown a;
  const bool onTpu = chip && chip->platform == Platform::Tpu; // every TPU program is XLA's
  LayerActivationShape s;
  // Uneven splits pad to the largest local piece, which is what the fullest device holds.
  s.batch = ceilDiv(o.micro_batch, o.batch_degree);
  s.seq = ceilDiv(o.seq_len, o.seq_degree);
  // Context parallelism all-gathers keys and values, so each local query still scores the whole
  // sequence (MaxText's and Llama 3's scheme); ring attention would hold less.
  s.key_seq = static_cast<double>(o.seq_len);
  s.hidden = static_cast<double>(c.hidden);
  s.heads = static_cast<double>(c.heads);
  s.tensor = static_cast<double>(o.tensor_degree);
  // MaxText's rules shard the embed dimension of every activation over the tensor axis, which is
  // what Megatron's sequence parallelism does for the layer norms and dropouts.
  const bool embedSplit = o.sequence_parallel || o.framework == Framework::MaxText;
  s.sequence_parallel = embedSplit;
  s.materialized_scores = o.attention == AttentionKernel::Materialized;
  s.widths = layerWidths(c);
  const double embed = embedSplit ? s.tensor : 1.0;
  if (recomputeTraits(o.recompute).korthikanti) {
    a.per_layer = activationBytesPerLayer(s, o.recompute);
    // A layer's backward re-runs what the policy dropped; until it ends, that layer holds what
    // `none` would have kept (`selective` with flash attention drops nothing of it).
    a.recompute_layer = activationBytesPerLayer(s, Recompute::None) - a.per_layer;
  } else {
    const bool xla = isXlaProgram(o.framework, onTpu);
    a.per_layer = s.seq * s.batch * activationBytesPerToken(c, o.recompute, s.tensor, embed, xla, o.custom_remat);
    // MaxText's names (and torchtitan's op-level policy) count the matmul outputs kept; the re-run
    // ones are back in HBM (from the host, for the offloaded policies) for the layer's backward.
    a.recompute_layer = std::max(
        0.0, s.seq * s.batch * activationBytesPerToken(c, Recompute::Minimal, s.tensor, embed, xla) - a.per_layer);
  }
  a.layers = c.num_layers;
  if (o.include_output_layer) {
    // Korthikanti §4.3: the final layer norm and projection inputs (2sbh each, 16-bit) and the
    // fp32 logits of the cross entropy (4sbv), the vocabulary split over the tensor axis.
    const double sb = s.seq * s.batch;
    const double logits = sb * static_cast<double>(c.vocab) / s.tensor;
    a.output_layer = 4 * sb * s.hidden / embed + 4 * logits;
    a.loss_gradient = (lossPeakBytesPerLogit(o.framework, onTpu) - 4) * logits;
  }
  return a;
}

} // namespace

double lossPeakBytesPerLogit(Framework framework, bool onTpu) {
  // PyTorch's fp32 log-probabilities, the NLL's gradient and the log-softmax's input gradient;
  // Megatron's vocabulary-parallel loss and XLA's program turn the fp32 logits into their gradient
  // in place, beside its 16-bit copy.
  return framework == Framework::Megatron || isXlaProgram(framework, onTpu) ? 6 : 12;
}

DeviceParamShards wholeModelShards(const Model& model, std::optional<double> bytesPerElement) {
  DeviceParamShards d;
  for (const auto& p : model.params) {
    const double n = static_cast<double>(p.elements());
    d.param_elements += n;
    d.param_bytes += n * (bytesPerElement ? *bytesPerElement : dtypeBytes(p.dtype).value_or(0.0));
  }
  return d;
}

double adafactorStateElements(const Shape& shape) {
  const double full = static_cast<double>(shapeSize(shape));
  if (shape.size() < 2) return full;
  // optax picks the two largest dimensions and factors only when the smaller one is >= 128
  // (min_dim_size_to_factor). Found in one pass: this runs for every parameter on every estimate.
  std::int64_t a = -1, b = -1; // largest, second largest
  for (auto d : shape) {
    if (d > a) {
      b = a;
      a = d;
    } else if (d > b) {
      b = d;
    }
  }
  if (b < 128) return full;
  return full / (static_cast<double>(a) * static_cast<double>(b)) * static_cast<double>(a + b);
}

LayerWidths layerWidths(const ModelConfig& c) {
  const double heads = static_cast<double>(std::max<std::int64_t>(1, c.heads));
  const double headDim = c.head_dim > 0 ? static_cast<double>(c.head_dim) : static_cast<double>(c.hidden) / heads;
  LayerWidths w;
  w.query = heads * headDim;
  w.kv = static_cast<double>(c.kv_heads > 0 ? c.kv_heads : c.heads) * headDim;
  w.mlp = static_cast<double>(c.ffn);
  w.mlp_in = w.mlp * (c.gatedMlp() ? 2.0 : 1.0);
  return w;
}

double activationBytesPerLayer(const LayerActivationShape& s, Recompute recompute) {
  const double sb = s.seq * s.batch;
  const double sbh = sb * s.hidden;
  const double t = s.tensor;
  const RecomputeTraits traits = recomputeTraits(recompute);
  if (!traits.kept_qkv && !traits.kept_out && !traits.kept_mlp_in && !traits.kept_mlp_out)
    // Full: only the layer input is kept (2sbh), split over the tensor axis under sequence parallelism.
    return 2 * sbh / (s.sequence_parallel ? t : 1.0);
  // Table 2's 34 sbh: 10 sbh of model-width tensors (the two layer norms' inputs, the QKV and MLP
  // inputs, 2 bytes each, and two 1-byte dropout masks), replicated over the tensor axis unless
  // sequence parallelism splits them; and 24 sbh split over it: queries, keys, values and the
  // attention output (2 bytes each, h wide in Table 2), the MLP activation's input and the output
  // projection's input (2 bytes each, 4h wide).
  auto width = [&](double w, double table2) { return w > 0 ? w : table2 * s.hidden; };
  const double split =
      2 * sb *
      (2 * width(s.widths.query, 1) + 2 * width(s.widths.kv, 1) + width(s.widths.mlp_in, 4) + width(s.widths.mlp, 4));
  const double kept = s.sequence_parallel ? (10 * sbh + split) / t : 10 * sbh + split / t;
  // Policies that re-run the attention core drop its score, softmax and dropout terms (5as/h), and
  // flash attention never writes them.
  if (traits.rerun_attention || !s.materialized_scores) return kept;
  // The 5·a·s²·b score term, written with separate query and key lengths: 5·a·s_q·s_k·b / t.
  return kept + 5 * s.heads * s.seq * s.key_seq * s.batch / t;
}

double activationBytesPerToken(const ModelConfig& c, Recompute recompute, double tensor, double embedSplit,
                               bool xlaProgram, const CustomRemat& custom) {
  const RecomputeTraits t = recomputeTraits(recompute, xlaProgram, custom);
  const double h = static_cast<double>(c.hidden);
  const LayerWidths w = layerWidths(c);
  // The layer input, always kept (in host memory under a custom policy that offloads it).
  double elements = t.layer_input_offloaded ? 0.0 : h / embedSplit;
  if (t.alternate_matmuls) {
    // torchtitan's op-level policy keeps the 1st, 3rd, 5th and 7th matmul outputs: the queries,
    // the values, the MLP's gate (or, ungated, its up projection) and, gated, the MLP's output
    // projection, whose local output is the whole model width under tensor parallelism (partial
    // sums before their reduction). And the attention kernel's output, and under sequence
    // parallelism the two reduce-scatters' outputs.
    elements += w.query / tensor + w.kv / tensor; // queries, values
    elements += w.query / tensor;                 // the attention kernel's output
    elements += w.mlp / tensor + (c.gatedMlp() ? h : 0.0);
    if (tensor > 1 && embedSplit > 1) elements += 2 * h / embedSplit;
    return 2 * elements;
  }
  if (keptInHbm(t, t.kept_qkv, kOffloadQkv)) elements += (w.query + 2 * w.kv) / tensor;
  if (keptInHbm(t, t.kept_out, kOffloadOut)) elements += h / embedSplit;
  if (keptInHbm(t, t.kept_mlp_in, kOffloadMlpIn)) elements += w.mlp_in / tensor;
  if (keptInHbm(t, t.kept_mlp_out, kOffloadMlpOut)) elements += h / embedSplit;
  return 2 * elements; // 16-bit activations
}

double kvCacheBytes(const ModelConfig& c, std::int64_t batch, std::int64_t context, double bytesPerElement,
                    std::int64_t tensorDegree, std::int64_t seqDegree) {
  requirePositive(tensorDegree, "tensor_degree");
  requirePositive(seqDegree, "seq_degree");
  if (batch < 0 || context < 0) throwValueError("KV cache: batch and context must not be negative");
  // Per token and layer. MLA caches the latent c_kv and the shared rotary key k_pe, as DeepSeek's
  // own inference and vLLM/SGLang do (not the decompressed per-head K and V of the naive HF code).
  const double perToken = c.usesMla() ? static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim)
                                      : 2.0 * ceilDiv(c.kv_heads, tensorDegree) * static_cast<double>(c.head_dim);
  // Sliding-window layers keep at most the window, the others the whole context.
  // Linear-attention layers keep a fixed-size state instead (left out).
  const std::int64_t linear = std::min(c.linear_attention_layers, c.num_layers);
  const std::int64_t sliding = std::min(slidingLayerCount(c), c.num_layers - linear);
  const double tokens =
      static_cast<double>(sliding) * ceilDiv(sliding > 0 ? std::min(context, c.sliding_window) : 0, seqDegree) +
      static_cast<double>(c.num_layers - sliding - linear) * ceilDiv(context, seqDegree);
  return perToken * tokens * static_cast<double>(batch) * bytesPerElement;
}

MemoryEstimate estimateMemory(const std::vector<DeviceParamShards>& devices, const Model& model,
                              const MemoryOptions& o) {
  requirePositive(o.micro_batch, "micro_batch");
  requirePositive(o.seq_len, "seq_len");
  requirePositive(o.batch_degree, "batch_degree");
  requirePositive(o.seq_degree, "seq_degree");
  requirePositive(o.tensor_degree, "tensor_degree");
  if (o.serve_batch < 0) throwValueError("serve_batch must not be negative, got " + std::to_string(o.serve_batch));
  if (o.context_len < 0) throwValueError("context_len must not be negative, got " + std::to_string(o.context_len));
  if (!(o.kv_bytes_per_element > 0)) throwValueError("kv_bytes_per_element must be positive");
  if (o.grad_bytes_per_element < 0) throwValueError("grad_bytes_per_element must not be negative");
  if (o.hbm_bytes_override && !(*o.hbm_bytes_override > 0)) throwValueError("hbm_bytes_override must be positive");

  MemoryEstimate out;
  const ChipSpec* chip = findChip(o.device_kind); // its HBM, and whether the program is XLA's (TPU)
  const bool training = o.workload == Workload::Training;
  double activationBytes = 0;
  if (model.config && model.config->num_layers > 0 && model.config->hidden > 0) {
    if (training) {
      out.activations = activationsFor(*model.config, o, chip);
      activationBytes = out.activations.total();
    } else {
      out.kv_cache_per_device =
          kvCacheBytes(*model.config, static_cast<std::int64_t>(ceilDiv(o.serve_batch, o.batch_degree)), o.context_len,
                       o.kv_bytes_per_element, o.tensor_degree, o.seq_degree);
    }
    // Past the trained positions the estimate still holds, but the model would not work there.
    const std::int64_t length = training ? o.seq_len : o.context_len;
    if (model.config->max_positions > 0 && length > model.config->max_positions)
      out.notes.push_back(std::string(training ? "seq_len " : "context_len ") + std::to_string(length) +
                          " exceeds the model's " + std::to_string(model.config->max_positions) + " positions");
  } else {
    out.notes.push_back(std::string("model '") + model.name + "' has no architecture config: " +
                        (training ? "activations" : "the KV cache") + " not estimated");
  }

  const bool adafactor = training && o.optimizer == Optimizer::Adafactor;
  const double ratio = adafactor ? adafactorRatio(model) : 1.0;
  out.per_device.resize(devices.size());
  double sum = 0;
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const DeviceParamShards& d = devices[i];
    DeviceBytes& b = out.per_device[i];
    b.params = d.param_bytes;
    if (training) {
      const double paramBpe = d.param_elements > 0 ? d.param_bytes / d.param_elements : 0.0;
      const double gradBpe = o.grad_bytes_per_element > 0 ? o.grad_bytes_per_element : paramBpe;
      const double optElements = d.optimizer_elements.value_or(d.param_elements);
      b.grads = d.grad_elements.value_or(d.param_elements) * gradBpe;
      if (o.master_weights_fp32) b.master_weights = 4 * optElements;
      switch (o.optimizer) {
      case Optimizer::AdamW:
        b.optimizer = 8 * optElements;
        break; // fp32 m and v
      case Optimizer::SgdMomentum:
        b.optimizer = 4 * optElements;
        break; // fp32 momentum
      case Optimizer::Adafactor:
        b.optimizer = 4 * d.adafactor_elements.value_or(optElements * ratio);
        break;
      }
      b.activations = activationBytes;
    } else {
      b.kv_cache = out.kv_cache_per_device;
    }
    const double total = b.total();
    sum += total;
    if (out.argmax < 0 || total > out.max_bytes) {
      out.max_bytes = total;
      out.argmax = static_cast<int>(i);
    }
  }
  out.mean_bytes = devices.empty() ? 0.0 : sum / static_cast<double>(devices.size());

  if (o.hbm_bytes_override) {
    out.hbm_bytes = *o.hbm_bytes_override;
  } else if (chip) {
    out.hbm_bytes = chip->hbm_bytes / devicesPerChip(*chip, o.cores_per_chip);
  } else {
    out.notes.push_back("unknown chip '" + o.device_kind + "': no HBM size to compare with");
  }
  out.out_of_memory = out.hbm_bytes > 0 && out.max_bytes > out.hbm_bytes;
  return out;
}

} // namespace shardscope
