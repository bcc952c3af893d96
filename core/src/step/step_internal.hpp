// SPDX-License-Identifier: Apache-2.0
// Internal: the pieces of the step estimate (step_time.hpp), one file each, and what they hand
// each other: the roles of the mesh axes, the parameter groups with their roles, the per-device
// work of a micro-batch, and the collectives as per-axis buckets before and after pricing.
#pragma once

#include "shardscope/step/step_time.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::step {

// What each mesh axis does for this layout.
struct MeshRoles {
  std::vector<std::int64_t> size; // per mesh axis
  std::vector<std::string> name;  // per mesh axis
  std::vector<bool> batch, seq;   // splits the batch / the sequence (from the options)
  std::vector<bool> data;         // batch or seq: the tokens are split over it
  // ZeRO-1/2 splits the optimizer state over it where a weight is replicated: a batch axis, and
  // under Megatron-LM a sequence axis too (its distributed optimizer shards over the data-parallel
  // group with the context-parallel ranks in it, intra_dp_cp_group), as the memory stage does.
  std::vector<bool> zero;
  std::vector<bool> expert; // shards routed experts and nothing else: expert parallel
  std::int64_t batch_degree = 1, seq_degree = 1;
  double tokens_local = 0;           // tokens one device works on per micro-batch (padded)
  double tokens_per_micro_batch = 0; // global
};

// Parameters of one shard group that share a role and a matmul form.
struct GroupUse {
  std::uint32_t group = 0;
  ParamRole role = ParamRole::None;
  std::uint16_t form = 0; // index in ParamRoles::forms
  std::int64_t count = 0;
};

// The (group, role, form) triples of a plan, in a fixed order.
std::vector<GroupUse> groupUses(const ShardGroups& plan, const ParamRoles& roles);
// Axis roles: batch/seq from the options, expert parallel from which groups each axis shards.
MeshRoles meshRoles(const Mesh& mesh, const StepOptions& options, const ShardGroups& plan,
                    const std::vector<GroupUse>& uses);

// The model's architecture figures the estimate needs, with defaults filled in.
struct Architecture {
  std::int64_t layers = 0;
  double hidden = 0;
  double heads = 0;            // query heads
  double q_dim = 0, v_dim = 0; // attention score and context widths (heads x head dims)
  double kv_dim = 0;           // what context parallelism exchanges per token (K and V, or MLA's latent)
  std::int64_t kv_heads = 0;
  double head_dim = 0;
  bool mla = false;
  double vocab = 0;
  double experts = 0, experts_per_token = 0;
  double ffn = 0, moe_ffn = 0;
  bool shared_experts = false;
  bool gated_mlp = true;       // two MLP input projections (SwiGLU) instead of one
  bool parallel_block = false; // attention and MLP side by side: one tensor reduction per layer
};
Architecture architectureOf(const ModelConfig& config);

// Per-device work of one micro-batch (step_work.cpp).
struct Work {
  double fwd_flops = 0, bwd_flops = 0;           // incl. recompute in bwd
  double rerun_flops = 0;                        // the part of bwd_flops the remat policy re-runs
  double fwd_hbm = 0, bwd_hbm = 0;               // bytes
  double fwd_compute_s = 0, bwd_compute_s = 0;   // flops at the calibrated peak
  double fwd_roofline_s = 0, bwd_roofline_s = 0; // sum over matmuls of max(compute, HBM)
  double model_flops_step = 0;                   // all devices, one step
  double optimizer_bytes = 0;                    // per device per step
  double attention_split = 1;                    // ways the heads are split (non-data axes)
  double elementwise_s = 0;                      // norms, residuals, rotary, activations: HBM-bound
  // Matmul time beyond their compute, by what its bytes are: reading weight shards (too few tokens
  // to reuse them) or moving activations (local widths too narrow to reuse them).
  double hbm_weights_s = 0, hbm_activations_s = 0;
  double padding_s = 0;                  // matmul work lost to padding local dims to the tile
  double vocab_split = 1;                // ways the output projection's vocabulary is split
  double head_fwd_s = 0, head_bwd_s = 0; // the output projection and the loss, one micro-batch
  // The attention core's roofline seconds per pass, one micro-batch: what a ring of K/V chunks
  // (ContextAttention::Ring) hides behind.
  double attention_fwd_s = 0, attention_bwd_s = 0;
  double ring_window_fwd_s = 0, ring_window_bwd_s = 0; // (ways - 1) / ways of those: the chunks a ring's steps overlap
  bool rerun_attention = false;                        // the remat policy re-runs the attention core
};
Work estimateWork(const StepInputs& in, const StepOptions& o, const Architecture& arch, const MeshRoles& mesh,
                  const std::vector<GroupUse>& uses);

// When a collective runs relative to compute.
enum class Phase {
  FwdEach,  // every micro-batch's forward, hidden behind it
  BwdEach,  // every micro-batch's backward, hidden behind it
  FwdFirst, // once per step, hidden behind the first micro-batch's forward
  BwdLast,  // once per step, hidden behind the last micro-batch's backward
  Critical, // on the critical path: never hidden
};

// Collectives of one kind and purpose on one axis, summed over the step.
struct Bucket {
  int axis = 0;
  Collective kind = Collective::AllGather;
  std::string purpose;
  Phase phase = Phase::Critical;
  double payload = 0; // sum over calls of each call's size in collectiveTime's convention
  double calls = 0;   // fused calls per step
  double seconds = 0; // filled by pricing
  double bytes = 0;   // per device per step, filled by pricing
  double exposed = 0; // filled by timing
};

// Per-axis prices with the calibration applied (step_pricing.cpp).
struct AxisPricing {
  std::vector<RingCostInputs> inputs;   // per mesh axis: link fraction and hop latency applied
  std::vector<double> seconds_per_byte; // bandwidth-bound all-gather cost, for ordering axes
  std::vector<double> raw_bandwidth;    // uncalibrated bytes/s an all-gather achieves (C/W checks)
};
AxisPricing priceAxes(std::span<const AxisReport> axes, const StepCalibration& calibration, double linkLatency);
// Mesh axes of `axes` ordered slowest first: hierarchical collectives cross the slow axis with the
// smallest payload.
std::vector<int> slowestFirst(std::vector<int> axes, const AxisPricing& pricing);
// Fills seconds and bytes of every bucket.
void priceBuckets(std::vector<Bucket>& buckets, const MeshRoles& mesh, const AxisPricing& pricing);

// Collects the step's collectives per axis (step_comm.cpp).
class BucketSet {
public:
  BucketSet(const MeshRoles& mesh, const AxisPricing& pricing) : mesh_(mesh), pricing_(pricing) {}
  // A collective over the mesh axes `axes` (several: decomposed per axis, slowest first): `bytes`
  // the sum over its calls of each call's full array, `calls` calls per step. Fused contributions
  // (each parameter group's share of a per-layer gather) keep the bucket's call count; separate
  // ones (`separate`: each block's activation all-reduce) add to it.
  void add(const std::vector<int>& axes, Collective kind, const std::string& purpose, Phase phase, double bytes,
           double calls, bool separate = false);
  std::vector<Bucket>& buckets() { return buckets_; }

private:
  void addOne(int axis, Collective kind, const std::string& purpose, Phase phase, double bytes, double calls,
              bool separate);
  const MeshRoles& mesh_;
  const AxisPricing& pricing_;
  std::vector<Bucket> buckets_;
};
void deriveCollectives(const StepInputs& in, const StepOptions& o, const Architecture& arch, const MeshRoles& mesh,
                       const std::vector<GroupUse>& uses, const Work& work, BucketSet& out);

// One forward or backward pass of one micro-batch, as the overlap model sees it: `special` is the
// first forward or the last backward (which also carry the once-per-step collectives).
struct PassOverlap {
  std::vector<double> instance; // per bucket: seconds it runs in this pass (0 for Critical buckets)
  double comm = 0;              // their sum
  double window = 0;            // the pass' compute (roofline) seconds
  double exposed = 0;           // what the compute does not hide: max(comm - window, first layer's share)
  double first = 0;             // the first layer's share of the hideable traffic, never hidden
};
PassOverlap passOverlap(const std::vector<Bucket>& buckets, const Work& work, std::int64_t microbatches,
                        std::int64_t layers, bool forward, bool special);

// Exposed time of every bucket (step_timing.cpp's overlap model), returned in bucket order.
void applyOverlap(std::vector<Bucket>& buckets, const Work& work, std::int64_t microbatches, std::int64_t layers);

// The step as spans in time (step_playback.cpp): every pass of every micro-batch (identical
// middle passes merged beyond 64 micro-batches), then the optimizer update.
std::vector<StepSpan> stepTimeline(const std::vector<Bucket>& buckets, const Work& work, const MeshRoles& mesh,
                                   std::int64_t microbatches, std::int64_t layers, double optimizerSeconds);

// The scaling book's checks for this layout (step_critical.cpp).
std::vector<StepCritical> criticalChecks(const StepInputs& in, const StepOptions& o, const Architecture& arch,
                                         const MeshRoles& mesh, const std::vector<GroupUse>& uses,
                                         const AxisPricing& pricing);
// The one sentence (step_summary.cpp).
// What bounds the step, in words ("compute", "HBM bandwidth", "the tp all-gathers of activations
// (open rings)"): StepEstimate::bound_phrase, which summarize() starts from.
std::string boundPhrase(const StepEstimate& estimate, const StepInputs& in);
// The verdict, starting "bound by ...": what bounds the step and what would move it. `idleAxes`:
// "dp (64)" for each mesh axis that splits neither the batch nor any weight (every device along it
// repeats the work): named first, since no other edit helps while it does.
std::string summarize(const StepEstimate& estimate, const StepInputs& in, const StepOptions& o,
                      const std::vector<std::string>& idleAxes = {});

// Axes that shard the group's tensor (layout.axis_used), as mesh axis indices.
std::vector<int> axesOf(const ArrayLayout& layout);

} // namespace shardscope::step
