// SPDX-License-Identifier: Apache-2.0
// Bytes every device must hold, by category, for a training step or for serving
// (../shared/spec/anchors-hardware-memory-comm.md §2). The sharding engine says which parameter
// shards each device holds; this engine turns that into parameters, gradients, optimizer state,
// activations (Korthikanti et al. 2022) and KV cache, then compares the fullest device with the
// chip's HBM.
#pragma once

#include "shardscope/models/model.hpp"
#include "shardscope/cost/workload.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// What one device position holds of the parameters, as the sharding engine computes it (sums of
// its shards' local sizes, hardware-memory-comm spec §2.5). Optimizer state and gradients follow the parameters unless
// a separate layout is given (ZeRO-1 shards only optimizer state, ZeRO-2 also gradients).
struct DeviceParamShards {
  double param_elements = 0;                // elements of the parameter shards held
  double param_bytes = 0;                   // their bytes in the parameter dtype(s)
  std::optional<double> grad_elements;      // gradient shard elements; default param_elements
  std::optional<double> optimizer_elements; // optimizer-state shard elements; default param_elements
  // Adafactor: fp32 values of the factored second moment this device holds (sum of
  // adafactorStateElements over its optimizer-state shard shapes). Default: optimizer_elements
  // times the model-wide factored ratio.
  std::optional<double> adafactor_elements;
};

// Accumulates one parameter shard of `localShape` into a device's totals: its elements and bytes,
// and, when the optimizer state is laid out like the parameters (no ZeRO-1/2 rule set), the same
// shard as optimizer state with its Adafactor factored size. Call it per (device, parameter).
inline void addParamShard(DeviceParamShards& d, const Shape& localShape, double bytesPerElement,
                          bool optimizerFollows = true);
// One optimizer-state shard of a separate (ZeRO-1/2) layout; `withGrads` for ZeRO-2's gradients.
inline void addOptimizerShard(DeviceParamShards& d, const Shape& localShape, bool withGrads = false);

// Every parameter of `model`, unsharded (one device holding everything), with bytes at
// `bytesPerElement` when given (the training dtype), else each parameter's own dtype.
DeviceParamShards wholeModelShards(const Model& model, std::optional<double> bytesPerElement = std::nullopt);

// optax.adafactor's second-moment size for one tensor: factored into row and column statistics
// over its two largest dimensions when the smaller of them is >= 128, else a full fp32 copy.
double adafactorStateElements(const Shape& shape);

inline void addParamShard(DeviceParamShards& d, const Shape& localShape, double bytesPerElement,
                          bool optimizerFollows) {
  const double n = static_cast<double>(shapeSize(localShape));
  d.param_elements += n;
  d.param_bytes += n * bytesPerElement;
  if (optimizerFollows) {
    d.optimizer_elements = d.optimizer_elements.value_or(0.0) + n;
    d.adafactor_elements = d.adafactor_elements.value_or(0.0) + adafactorStateElements(localShape);
  }
}

inline void addOptimizerShard(DeviceParamShards& d, const Shape& localShape, bool withGrads) {
  const double n = static_cast<double>(shapeSize(localShape));
  d.optimizer_elements = d.optimizer_elements.value_or(0.0) + n;
  d.adafactor_elements = d.adafactor_elements.value_or(0.0) + adafactorStateElements(localShape);
  if (withGrads) d.grad_elements = d.grad_elements.value_or(0.0) + n;
}

struct MemoryOptions {
  Workload workload = Workload::Training;
  // Training
  Optimizer optimizer = Optimizer::AdamW;
  bool master_weights_fp32 = false;  // an fp32 copy of the parameters, sharded as the optimizer state
  double grad_bytes_per_element = 0; // 0: same as the parameters (param_bytes / param_elements)
  std::int64_t micro_batch = 1;      // global micro-batch in sequences, split over batch_degree
  std::int64_t seq_len = 4096;
  Recompute recompute = Recompute::Selective;
  CustomRemat custom_remat; // read when recompute is Custom
  // Materialized attention keeps the scores' softmax, dropout mask and output (5as/h) when the
  // policy does not re-run the core; flash attention never stores them.
  AttentionKernel attention = AttentionKernel::Flash;
  // Sharding degrees of the activations: products of the sizes of the mesh axes that shard the
  // batch, the sequence (context parallelism) and the hidden/heads dimension (tensor parallelism).
  std::int64_t batch_degree = 1;
  std::int64_t seq_degree = 1;
  std::int64_t tensor_degree = 1;
  // Megatron sequence parallelism: layer norms and dropouts are split over the tensor axis too.
  bool sequence_parallel = false;
  // JAX devices per chip (0 = the chip's default): each holds its share of the chip's HBM.
  int cores_per_chip = 0;
  // MaxText shards every activation over the tensor axis as well (activation_embed -> tensor) and
  // keeps, per layer, only what its remat policy names (activationBytesPerToken).
  Framework framework = Framework::Generic;
  // The final norm, output projection input and fp32 logits of the loss (Korthikanti §4.3).
  bool include_output_layer = true;
  // Serving
  std::int64_t serve_batch = 8;
  std::int64_t context_len = 8192;
  double kv_bytes_per_element = 2;
  // The chip: HBM from hardware.hpp by device kind or key, unless overridden.
  std::string device_kind;
  std::optional<double> hbm_bytes_override;
};

// The Korthikanti et al. per-layer activation memory (Table 2, 16-bit activations with dropout
// masks), for one device. `seq` is the local query length, `keySeq` the key length attention scores
// span (the full sequence under all-gather context parallelism; equal to `seq` without it).
// Table 2's GPT has h-wide queries, keys and values and a 4h MLP; `widths` carry the model's own
// (grouped-query keys and values, a gated MLP's two input projections), the tensor-parallel terms
// growing or shrinking with them. Zero widths mean Table 2's.

// The widths of a layer's activations per token, in elements.
struct LayerWidths {
  double query = 0;  // heads x head_dim (the queries, and the attention output)
  double kv = 0;     // key (= value) heads x head_dim
  double mlp_in = 0; // the MLP input projections' outputs: ffn, twice when gated
  double mlp = 0;    // the MLP output projection's input: ffn
};
LayerWidths layerWidths(const ModelConfig& config);

struct LayerActivationShape {
  double seq = 0, key_seq = 0, batch = 0, hidden = 0, heads = 0;
  double tensor = 1;
  bool sequence_parallel = false;
  bool materialized_scores = false; // the 5as/h term applies (AttentionKernel::Materialized)
  LayerWidths widths;               // zero: Table 2's (h, h, 4h, 4h)
};
double activationBytesPerLayer(const LayerActivationShape& shape, Recompute recompute);

// Bytes one token leaves in HBM per layer for the backward under a policy that names what it keeps
// (MaxText's remat policies): the layer input, plus the outputs of the weight matmuls the policy
// keeps (query/key/value, attention output, MLP input projection(s), MLP output), 16-bit. Tensors
// of the model width are split over `embedSplit` devices, those of the heads and MLP width over
// `tensor`. In an XLA program (isXlaProgram) the MLP output is never kept: the backward does not
// read it.
double activationBytesPerToken(const ModelConfig& config, Recompute recompute, double tensor, double embedSplit,
                               bool xlaProgram, const CustomRemat& custom = {});

// Bytes of the KV cache one device holds for `batch` sequences of `context` tokens. Ordinary
// attention stores K and V per KV head (heads split over `tensorDegree`, at least one per device);
// MLA stores the compressed latent plus the shared rotary key, which tensor parallelism does not
// split; sliding-window layers keep at most the window.
double kvCacheBytes(const ModelConfig& config, std::int64_t batch, std::int64_t context, double bytesPerElement,
                    std::int64_t tensorDegree = 1, std::int64_t seqDegree = 1);

struct DeviceBytes {
  double params = 0, grads = 0, master_weights = 0, optimizer = 0, activations = 0, kv_cache = 0;
  double total() const { return params + grads + master_weights + optimizer + activations + kv_cache; }
};

// Activations at their peak, the start of the backward, on one device: every layer's kept tensors,
// plus the larger of two moments that never coincide (docs/memory.md, "At the peak"):
//   - the loss's backward: the output layer's kept tensors with the cross entropy's gradient beside
//     them (lossPeakBytesPerLogit);
//   - a layer's backward under a policy that re-runs its forward: that layer's re-run activations,
//     live beside the kept ones until its backward ends (the output layer is freed by then).
struct ActivationBreakdown {
  double per_layer = 0; // one transformer layer, one device
  std::int64_t layers = 0;
  double output_layer = 0;    // final norm inputs + fp32 logits, kept for the backward
  double loss_gradient = 0;   // more while the loss runs its backward (logits x (peak - 4) bytes)
  double recompute_layer = 0; // one layer's re-run activations during its backward
  double lossMoment() const { return output_layer + loss_gradient; }
  // Which moment is the peak: the loss's backward (true) or a re-run layer (false).
  bool lossMomentIsPeak() const { return lossMoment() >= recompute_layer; }
  double transient() const { return std::max(lossMoment(), recompute_layer); }
  double keptByLayers() const { return per_layer * static_cast<double>(layers); }
  double total() const { return keptByLayers() + transient(); }
};

// Bytes per logit the cross entropy holds at its backward, by what compiles or runs it: 12 in
// PyTorch (autocast runs log_softmax and nll_loss in fp32: the kept fp32 log-probabilities, the
// NLL's dense gradient and the log-softmax's input gradient, 4 bytes each): the generic framework
// off TPU; 6 in Megatron-LM (its vocab-parallel cross entropy turns the kept fp32 softmax into the
// gradient in place; the 16-bit copy the output layer takes sits beside it) and, as an assumption,
// under XLA (reusing the fp32 logits' buffer for their gradient): MaxText, and the generic
// framework on TPU, where every program is XLA's. The 4 bytes of the kept logits are counted in
// `output_layer`.
double lossPeakBytesPerLogit(Framework framework, bool onTpu);

struct MemoryEstimate {
  std::vector<DeviceBytes> per_device; // same order as the input
  double max_bytes = 0, mean_bytes = 0;
  int argmax = -1;      // first device holding max_bytes
  double hbm_bytes = 0; // 0 when the chip is unknown and not overridden
  bool out_of_memory = false;
  ActivationBreakdown activations; // the same on every device
  double kv_cache_per_device = 0;
  std::vector<std::string> notes; // what could not be estimated, and why
};

// Throws ValueError naming the option when a size or degree is not positive.
MemoryEstimate estimateMemory(const std::vector<DeviceParamShards>& devices, const Model& model,
                              const MemoryOptions& options);

} // namespace shardscope
