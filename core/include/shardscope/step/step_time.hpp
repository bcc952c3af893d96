// SPDX-License-Identifier: Apache-2.0
// How long one training step takes on a layout, from the actual shards and the actual links
// (../shared/spec/step-time.md): the work each device does (matmul and attention FLOPs as the
// partition specs split them, HBM bytes for the roofline), the collectives each mesh axis carries
// (derived per parameter group from which axes shard it, which batch axes it is replicated on,
// which axes split the heads and MLP, the experts and the sequence), each priced on the axis'
// rings (collectives.hpp, one cost form), and how much of that communication hides behind
// compute. Also the scaling book's critical batch and tensor-parallel checks for this layout, and
// one sentence saying what bounds the step and what would move it.
//
// The engine takes its own option struct (never the workspace); analysis/engine_options.hpp
// builds it from a Scenario. Every chip figure and calibration value carries where it came from.
#pragma once

#include "shardscope/cost/axis_report.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/cost/workload.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/models/model.hpp"
#include "shardscope/sharding/shard_plan.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Where a figure comes from: the chip catalogue's published value, an assumption Shardscope makes
// by default (justified in docs/step-time.md), or the user's own edit.
enum class FigureSource { Chip, Default, User };
std::string_view figureSourceName(FigureSource source); // "chip", "default", "user"

struct SourcedValue {
  double value = 0;
  FigureSource source = FigureSource::Default;
};

// The physical range of each calibration value: a fraction below 1% of a peak is no real run (and
// would print absurd times); a hop latency outside 1 ns .. 1 ms is no real link.
struct ValueRange {
  double min = 0, max = 0;
};
inline constexpr ValueRange kFractionRange{0.01, 1.0};
inline constexpr ValueRange kHopLatencyRange{1e-9, 1e-3};

// How much of the published peaks a real step achieves; hop_latency is seconds per ICI/NVLink hop
// as collectives see it (it replaces the link figure in pricing).
//   flops_fraction: the fraction of peak bf16 FLOP/s achieved on the FLOPs the hardware executes
//   (hardware FLOPs utilization of large, tile-aligned matmuls: recompute included, padding to the
//   matrix unit's tile priced separately), derived per chip from published runs as
//   HFU = MFU x hardware FLOPs / model FLOPs (docs/step-time.md, "Calibration").
struct StepCalibration {
  SourcedValue flops_fraction{0.5, FigureSource::Default}; // of peak bf16 FLOPs on hardware FLOPs
  SourcedValue link_fraction{0.8, FigureSource::Default};  // of every link's bandwidth
  SourcedValue hbm_fraction{0.9, FigureSource::Default};   // of HBM bandwidth
  // The attention core's (flash kernel's) fraction of the bf16 peak: the chip's published kernel
  // benchmark where there is one, else flops_fraction (Default source, the same value).
  SourcedValue attention_fraction{0.5, FigureSource::Default};
  SourcedValue hop_latency{1e-6, FigureSource::Chip}; // seconds per hop
  // Whether measured runs of the chip set the default flops_fraction (the chip catalogue's
  // StepDefaults::calibrated). When not, and the fraction is not the user's, the step notes say
  // that no measured run calibrates the chip and the efficiency is assumed.
  bool calibrated = false;
  // The basis of each default, in words (the catalogue's StepDefaults).
  std::string flops_basis, link_basis, hbm_basis, attention_basis;
};

// The defaults for a chip, read from the chip catalogue (chips.hpp StepDefaults; docs/step-time.md
// gives the measurements behind each); hop_latency is the chip's per-hop link latency.
StepCalibration defaultCalibration(const ChipSpec& chip);
// The chip's matrix-unit tile edge (docs/step-time.md gives the sources).
std::int64_t matmulTileOf(const ChipSpec& chip);
// Throws ValueError naming `field` ("performance.flops_fraction must be in [0.01, 1], got 1.5") when
// a value is outside its range (kFractionRange, kHopLatencyRange) or not finite.
void validateCalibration(const StepCalibration& calibration, std::string_view fieldPrefix = "performance");

struct StepOptions {
  std::int64_t micro_batch = 1;  // global sequences per micro-batch, split over the batch axes
  std::int64_t microbatches = 1; // gradient accumulation: micro-batches per optimizer step
  std::int64_t seq_len = 4096;
  Recompute recompute = Recompute::Selective;
  CustomRemat custom_remat;                           // read when recompute is Custom
  AttentionKernel attention = AttentionKernel::Flash; // materialized: the scores' HBM traffic
  bool sequence_parallel = false;                     // Megatron SP: tensor-parallel all-gather/reduce-scatter pairs
  int zero_stage = 0;
  // How far the largest device's memory is over its HBM, when the memory estimate ran before the
  // step (analyze() runs it first without a pipeline). Set, the verdict leads with making the
  // layout fit and proposes nothing that raises memory (more tokens per device, fewer shards,
  // lighter remat).
  std::optional<double> memory_excess_bytes;
  Optimizer optimizer = Optimizer::AdamW;
  bool master_weights_fp32 = false;
  double param_bytes = 2;              // bytes per parameter element (the training dtype)
  double grad_bytes = 0;               // bytes per gradient element; 0: as the parameters
  double activation_bytes = 2;         // bytes per activation element (bf16)
  std::vector<std::string> batch_axes; // mesh axes that split the batch (absent names are ignored)
  std::vector<std::string> seq_axes;   // mesh axes that split the sequence (context parallelism)
  int devices_per_chip = 1;            // TensorCores per chip, each a device with its share of peak_flops and HBM
  bool overlap_tensor_comm = false;    // tensor-parallel activation collectives hidden (collective matmuls)
  ContextAttention context_attention = ContextAttention::AllGather; // how the seq_axes exchange K and V
  Framework framework = Framework::Generic;
  // The weight matmuls' number format; under fp8 and int8 they run at peak_matmul_flops, their
  // operands one byte, cast from the activations and weights on the way in.
  Precision precision = Precision::Bf16;
  // The matrix unit's tile edge (TPU MXU 128 or 256, GPU tensor cores 8): a local matmul dimension
  // that is not a multiple of it is padded, and the padding is computed too (lost time).
  std::int64_t matmul_tile = 1;
  // The chip. A figure <= 0 is missing: the estimate is refused with a ValueError naming it.
  std::string chip;
  SourcedValue peak_flops{0, FigureSource::Chip}; // bf16 FLOP/s per device
  // The weight matmuls' peak per device at `precision` (the chip's FP8 or INT8 peak); 0: peak_flops.
  SourcedValue peak_matmul_flops{0, FigureSource::Chip};
  SourcedValue hbm_bandwidth{0, FigureSource::Chip};    // bytes/s per device
  SourcedValue link_bandwidth{0, FigureSource::Chip};   // ICI / NVLink, one way per link (shown only)
  SourcedValue uplink_bandwidth{0, FigureSource::Chip}; // DCN / network per chip (shown only)
  // The per-hop ICI / NVLink latency the axis reports were built with; calibration.hop_latency
  // rescales their latency terms (0: taken as is).
  double link_latency = 0;
  // Under a pipeline of this many ranks a device runs 1/pipeline_ranks of the layers: its work, HBM
  // traffic, optimizer update and collectives are that share of the whole model's (the output
  // projection and the loss run whole on the last stage: head_fwd_s, head_bwd_s).
  std::int64_t pipeline_ranks = 1;
  StepCalibration calibration;
};

// What each parameter of a model is, for the work and traffic it causes: found from its path and
// shape once per model (46k paths take milliseconds; the analysis keeps this per loaded model).
enum class ParamRole : std::uint8_t {
  None,         // rank < 2 (norms, biases, scalars): no matmul
  Embedding,    // token or position lookup table: no matmul FLOPs
  Output,       // lm_head: a matmul over the vocabulary
  Attention,    // q/k/v/o and MLA projections
  Mlp,          // dense MLP, shared experts and the router
  RoutedExpert, // one of the routed experts (per-expert tensor or stacked [E, ...])
};
// How a weight's dimensions enter its matmul: copies stacked along it (scanned layers, routed
// experts), contracted with the input activations, or spanning the output.
enum class MatmulDim : std::uint8_t { Stack, In, Out };
struct MatmulForm {
  std::vector<MatmulDim> dims; // one per dimension of the weight
  bool operator==(const MatmulForm&) const = default;
};
// The form of a weight: from its logical axis names when it has them ("layers", "exp" stacked; the
// model-width "embed*" dimension on the input side when it comes first, else on the output side),
// otherwise a [..., in, out] matrix whose leading dimensions are stacked copies.
MatmulForm matmulFormOf(const Param& param);

struct ParamRoles {
  std::vector<ParamRole> role;     // per model parameter
  std::vector<std::uint16_t> form; // per model parameter: its index in `forms`
  std::vector<MatmulForm> forms;   // the distinct forms
  std::int64_t moe_layers = 0;     // layers holding routed experts
  std::int64_t layers = 0;         // transformer layers (the config's, else the largest layer index + 1)
  bool tied_output = false;        // no lm_head tensor: the embedding is the output matmul too
};
ParamRoles classifyParams(const Model& model);
// Whether a parameter holds routed experts (a path segment "experts" or the logical axis "exp",
// not a shared expert), whatever its rank: the one test for it, in the step and memory models.
bool isRoutedExpertParam(const Param& param);

// What a collective of this purpose moves, in a few words ("weight shards" for fsdp_weights,
// "keys and values" for cp_kv): the Play legend's words. The purpose itself when unknown.
std::string payloadOf(const std::string& purpose);
// How a collective of this kind and purpose is named to a user: its kind ("all_gather"), except
// ring attention's K/V passes, priced on an all-gather's ring but run point to point from chip to
// chip ("ring send/recv").
std::string collectiveLabel(Collective kind, const std::string& purpose);

// One kind of collective on one axis, summed over the step.
struct StepCollective {
  Collective kind = Collective::AllGather;
  std::string purpose;       // fsdp_weights, fsdp_grads, dp_grads, zero_grads, zero_weights, tp_activations,
                             // ep_tokens, ep_combine, cp_kv, cp_kv_ring
  double count = 0;          // collectives issued per step (fused per layer and pass)
  double bytes = 0;          // bytes each device sends (= receives) over this axis per step
  double seconds = 0;        // time per step
  bool overlappable = false; // hides behind compute (weight gathers, gradient reductions)
};

struct StepAxis {
  std::string axis;
  std::int64_t size = 1;
  double bytes = 0;      // per device per step, all collectives
  double seconds = 0;    // all collectives' time per step
  double exposed = 0;    // what compute does not hide
  double overlapped = 0; // seconds - exposed
  std::vector<StepCollective> collectives;
};

// The scaling book's checks (step-time.md §2) for one axis.
struct StepCritical {
  enum class Role { Batch, Tensor };
  std::string axis;
  Role role = Role::Batch;
  std::int64_t size = 1;
  int physical_axes = 1;
  double flops_per_byte = 0; // C / W: peak FLOP/s over the axis' bandwidth (all its physical axes)
  // Batch: tokens each device works on per micro-batch, which must exceed flops_per_byte for the
  // axis' weight gathers / gradient reductions to hide behind compute.
  double tokens_per_device = 0;
  // Tensor: the MLP width it splits, and the largest degree that stays compute-bound,
  // n F / (C / W_one_axis) = F / flops_per_byte.
  double ffn = 0;
  double limit = 0;
  bool ok = true;
};

// One piece of the step bar, in order: compute, hbm, then exposed communication per axis.
// Where the seconds of a step go: matmul compute, HBM-bound time, exposed communication (of one
// axis), a pipeline's idle time and its activation handover between stages.
// The parts a step's time is made of. Hbm is the time the work waits on HBM beyond its FLOPs;
// Optimizer the update after the last micro-batch (its bytes move at HBM speed too, so a step bound
// by the two together is bound by HBM bandwidth).
enum class StepPart { Compute, Hbm, Optimizer, Comm, Bubble, Handover };
constexpr std::array<std::pair<std::string_view, StepPart>, 6> kStepPartNames{{
    {"compute", StepPart::Compute},
    {"hbm", StepPart::Hbm},
    {"optimizer", StepPart::Optimizer},
    {"comm", StepPart::Comm},
    {"bubble", StepPart::Bubble},
    {"handover", StepPart::Handover},
}};
constexpr std::string_view stepPartName(StepPart p) { return nameOf(p, kStepPartNames); }

struct StepSegment {
  StepPart kind = StepPart::Compute;
  std::string axis; // for StepPart::Comm
  double seconds = 0;
};

// One span of the step played as a timeline (docs/step-time.md, "The step as a timeline"): a
// pass's compute, one collective kind of one axis in one pass, the optimizer update, or under a
// pipeline one rank's task and the activation hand-overs between ranks; in seconds
// from the step's start. The spans follow the overlap the estimate computed: a pass's weight
// gathers and gradient reductions stream beside its compute from the pass' start (the first
// layer's share before compute can begin), what compute cannot hide extends the pass, and the
// collectives on the critical path run after the pass' compute (in a real step they interleave
// with it layer by layer; the seconds are the same). The last span ends at time_s.
struct StepSpan {
  StepPart part = StepPart::Compute; // Compute (matmuls, attention, HBM-bound work of a pass), Comm, Hbm (optimizer)
  std::string axis;                  // Comm: the mesh axis
  int axis_index = -1;               // Comm: its index in the mesh
  Collective kind = Collective::AllGather;
  std::string purpose;           // Comm: as StepCollective::purpose
  std::int64_t microbatch = 0;   // the pass' first micro-batch (0-based)
  std::int64_t microbatches = 1; // identical middle passes are merged beyond 64 micro-batches
  bool forward = true;           // the pass: forward or backward (the optimizer: false)
  bool exposed = false;          // Comm: on the critical path, after the pass' compute
  double start = 0, end = 0;     // seconds from the step's start
  // A span that runs in `pulses` evenly spaced bursts of `pulse_s` seconds each, the first at
  // start and the last ending at end: the collectives on the critical path, once or more per layer,
  // and the compute between them (one pulse: the span runs throughout, pulse_s = end - start).
  std::int64_t pulses = 1;
  double pulse_s = 0;
  // Under a pipeline (analysis/pipeline_step_timeline.cpp): the pipeline rank that runs the span
  // (-1: every device), the stage of its first task, and for a Handover the rank receiving it
  // (-1: the fill and drain hand-overs the step adds on its critical path).
  int rank = -1;
  int stage = -1;
  int to_rank = -1;
};

// What bounds a step: its largest part (a pipeline's when the bubble is), and the axis when it is
// communication.
struct StepBound {
  StepPart part = StepPart::Compute;
  std::string axis;

  bool operator==(const StepBound&) const = default;
};
// "compute", "hbm", "comm:<axis>" or "pipeline": how JSON answers and tables say it.
std::string boundText(const StepBound& bound);
// What bounds a step: its largest segment (the first of equal ones), compute when there is none.
StepBound largestSegment(const std::vector<StepSegment>& segments);
struct StepEstimate;
// The summary from a verdict ("bound by ...", "the 1F1B pipeline ..."): "<time> per step, <MFU>
// MFU, <verdict>", and the verdict as a sentence of its own.
void setSummary(StepEstimate& estimate, const std::string& verdict);

struct StepEstimate {
  bool estimated = false;
  std::vector<std::string> not_estimated; // what could not be estimated and why (when !estimated)
  double time_s = 0;
  double tokens_per_step = 0;
  double tokens_per_s = 0;
  double mfu = 0;             // model FLOPs per second / (devices x peak)
  double model_flops = 0;     // per step, all devices (PaLM: 6 N T + causal attention)
  double hardware_flops = 0;  // per step, all devices (recompute and repeated work included)
  double recompute_flops = 0; // per step, all devices: the part of hardware_flops the remat policy re-runs
  double hbm_bytes = 0;       // per device per step: matmul weights and activations, optimizer update
  double compute_s = 0;       // matmul and attention FLOPs at the calibrated peak
  double hbm_s = 0;           // HBM-bound time beyond compute, and the optimizer update
  double optimizer_s = 0;     // the optimizer update (part of hbm_s)
  double elementwise_s = 0;   // norms, residual adds, rotary, activations at HBM speed (part of hbm_s)
  // The matmuls' HBM-bound time (part of hbm_s), by what the bytes are: weight shards read with too
  // few tokens to reuse them, or activations of local matmuls too narrow to reuse them.
  double hbm_weights_s = 0, hbm_activations_s = 0;
  double padding_s = 0; // matmul work on padding to the matrix unit's tile (part of compute_s)
  // The output projection and the loss of one micro-batch on one device, forward and backward (part
  // of compute_s and hbm_s): under a pipeline they run on the last stage only.
  double head_fwd_s = 0, head_bwd_s = 0;
  // One layer's forward and backward for one micro-batch on one device: its compute, HBM and its
  // share of the exposed communication (what a pipeline stage's tasks are priced from).
  double layer_pass_s = 0;
  double exposed_comm_s = 0; // communication compute does not hide
  StepBound bound_by;
  std::vector<StepAxis> per_axis;
  std::vector<StepCritical> critical;
  std::vector<StepSegment> segments;
  std::vector<StepSpan> timeline; // the step in time order of span start (empty when !estimated)
  std::string summary;            // one sentence: time, MFU, what bounds the step and what would move it
  std::string verdict;            // the summary without its figures: "Bound by ..." (the Step dock's sentence)
  std::string bound_phrase;       // what bounds it in words: "compute", "HBM bandwidth", "the tp ..."
  std::vector<std::string> notes; // repeated work, assumptions that apply to this layout
  // Mesh axes (size > 1) that split neither the batch nor any weight: every device along one
  // repeats the others' work (the verdict names them first; the Step dock offers to add them to
  // training.batch_axes).
  std::vector<std::string> idle_axes;
  // The figures used, with their sources.
  StepCalibration calibration;
  SourcedValue peak_flops, hbm_bandwidth, link_bandwidth, uplink_bandwidth;
  int devices_per_chip = 1; // peak_flops and hbm_bandwidth are the chip's over this many devices
  std::int64_t devices = 0;
};

struct StepInputs {
  const Model* model = nullptr;
  const ParamRoles* roles = nullptr; // classifyParams(*model)
  const ShardGroups* plan = nullptr; // the shard plan of model->params (group_of aligned with them)
  const Mesh* mesh = nullptr;
  std::span<const AxisReport> axes; // one per mesh axis, in mesh order
};

// Throws ValueError for a missing chip figure, a calibration outside its range, non-positive batch
// sizes, or inputs that do not fit together (roles or plan not aligned with the model, axis reports
// not matching the mesh). A model without an architecture config is not an error: the estimate
// comes back with estimated = false and not_estimated saying why.
StepEstimate estimateStep(const StepInputs& inputs, const StepOptions& options);

} // namespace shardscope
