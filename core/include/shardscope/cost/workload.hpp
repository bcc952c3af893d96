// SPDX-License-Identifier: Apache-2.0
// The vocabulary of a job the cost engines take in their own option structs: what runs (training or
// serving), which framework runs it, which optimizer keeps state, and how much of the forward is
// recomputed. The workspace (analysis/scenario.hpp) stores these; the engines never see the
// workspace itself.
#pragma once

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <optional>
#include <string_view>
#include <utility>

namespace shardscope {

struct ChipSpec;

enum class Workload { Training, Serving };
enum class Optimizer { AdamW, Adafactor, SgdMomentum };

// The framework whose behaviour the estimate follows (docs/step-time.md, "Frameworks"):
//   Generic  — activations as Korthikanti et al. lay them out, tensor collectives exposed;
//   MaxText  — activations sharded by MaxText's logical rules (the embed dimension over the tensor
//              axis, the batch over the batch axes), tensor collectives as all-gather /
//              reduce-scatter that XLA overlaps with the matmuls (collective matmul) on TPU;
//   Megatron — Korthikanti's activations (sequence parallelism when set), tensor collectives
//              exposed unless overlap is set, the distributed optimizer as ZeRO-1.
enum class Framework { Generic, MaxText, Megatron };

constexpr std::array<std::pair<std::string_view, Framework>, 3> kFrameworkNames{
    {{"generic", Framework::Generic}, {"maxtext", Framework::MaxText}, {"megatron", Framework::Megatron}}};

// Whether the job runs as a JAX program compiled by XLA: MaxText's, and the generic estimate's on a
// TPU (every TPU program is XLA's); Megatron's, and the generic estimate's off TPU, are PyTorch's.
// It decides what a remat policy re-runs and keeps (JAX re-runs and keeps only what the backward
// reads: docs/step-time.md, "Recompute") and the loss's bytes at its backward (docs/formats.md).
constexpr bool isXlaProgram(Framework f, bool onTpu) {
  return f == Framework::MaxText || (f == Framework::Generic && onTpu);
}
// The same for the job's chip (hardware/chips.hpp; null: not a TPU).
bool isXlaProgram(Framework f, const ChipSpec* chip);

// How the attention core runs (docs/step-time.md, "Work"):
//   Flash        — one fused kernel per layer (FlashAttention; MaxText's flash/splash kernels on TPU,
//                  Megatron-Core with Transformer Engine): the scores never reach HBM;
//   Materialized — the scores [heads, s, s] written to HBM by the QK^T matmul, then read and
//                  written by the softmax and the attention dropout (Megatron-LM before flash
//                  attention, 2019-2022): HBM traffic per score element, and Korthikanti et al.'s
//                  5as/h activation term when the core is not re-run.
enum class AttentionKernel { Flash, Materialized };

constexpr std::array<std::pair<std::string_view, AttentionKernel>, 2> kAttentionKernelNames{
    {{"flash", AttentionKernel::Flash}, {"materialized", AttentionKernel::Materialized}}};

// How attention reaches the keys and values of the other chips of a context-parallel group.
// AllGather: every chip all-gathers the group's K and V before its attention, and reduce-scatters
// their gradients after its backward (Llama 3's context parallelism, MaxText's default
// context_parallel_strategy): on the critical path. Ring: the K/V chunks pass point to point round
// the group, each step's transfer overlapped with the attention of the chunk already there
// (Megatron's default --cp-comm-type p2p, MaxText's "ring"); the backward passes K, V and their
// gradients round it.
enum class ContextAttention { AllGather, Ring };
constexpr std::array<std::pair<std::string_view, ContextAttention>, 2> kContextAttentionNames{
    {{"all_gather", ContextAttention::AllGather}, {"ring", ContextAttention::Ring}}};

// Rematerialization policies by the names their frameworks give them. The first three are
// Megatron's (and the generic estimate's); then MaxText's `remat_policy` values; then torchtitan's
// op-level selective checkpointing (PyTorch, the generic estimate's).
enum class Recompute {
  None,               // keep every activation (MaxText: remat_policy "none" is not a name; ours)
  Selective,          // Megatron: re-run the attention core (scores, softmax, context)
  Full,               // both: keep only each layer's input, re-run its whole forward
  Minimal,            // MaxText: keep every weight matmul's output, re-run the rest
  SaveDotExceptMlpWi, // MaxText: keep the matmul outputs except the MLP's input projection
  SaveDotExceptMlp,   // MaxText: keep the attention projections, re-run the MLP
  SaveQkvProj,        // MaxText: keep only the query/key/value projections
  SaveOutProj,        // MaxText: keep only the attention output projection
  QkvProjOffloaded,   // MaxText: query/key/value kept in host memory, the rest re-run
  MinimalOffloaded,   // MaxText: every matmul output kept in host memory
  SelectiveOp,        // torchtitan (mode "selective", selective_ac_option "op"): every other matmul's
                      // output and the attention kernel's output kept, the rest re-run
  Custom,             // MaxText's remat_policy "custom": each tensor re-run, kept or offloaded (CustomRemat)
};

constexpr std::array<std::pair<std::string_view, Recompute>, 12> kRecomputeNames{{
    {"none", Recompute::None},
    {"selective", Recompute::Selective},
    {"full", Recompute::Full},
    {"minimal", Recompute::Minimal},
    {"save_dot_except_mlpwi", Recompute::SaveDotExceptMlpWi},
    {"save_dot_except_mlp", Recompute::SaveDotExceptMlp},
    {"save_qkv_proj", Recompute::SaveQkvProj},
    {"save_out_proj", Recompute::SaveOutProj},
    {"qkv_proj_offloaded", Recompute::QkvProjOffloaded},
    {"minimal_offloaded", Recompute::MinimalOffloaded},
    {"selective_op", Recompute::SelectiveOp},
    {"custom", Recompute::Custom},
}};

// The number format of the weight matmuls (docs/step-time.md, "Precision"); the rest of the step
// (attention core, norms, the loss, the optimizer) runs in the parameters' own dtype:
//   bf16, fp16 — the matmuls at the chip's 16-bit peak;
//   fp8        — Transformer Engine's recipe (and MaxText's quantization "fp8"): the weight matmuls
//                at the chip's FP8 peak, their inputs and weights cast to FP8 on the way in;
//   int8       — MaxText's quantization "int8" (AQT): the weight matmuls at the chip's INT8 peak,
//                the same casts.
// A chip without a published peak at the precision refuses it (hardware/chips.hpp).
enum class Precision { Bf16, Fp16, Fp8, Int8 };

constexpr std::array<std::pair<std::string_view, Precision>, 4> kPrecisionNames{{
    {"bf16", Precision::Bf16},
    {"fp16", Precision::Fp16},
    {"fp8", Precision::Fp8},
    {"int8", Precision::Int8},
}};
// Whether the weight matmuls run in an 8-bit format (their operands cast on the way in).
constexpr bool isEightBit(Precision p) { return p == Precision::Fp8 || p == Precision::Int8; }

constexpr std::string_view precisionName(Precision p) { return nameOf(p, kPrecisionNames); }
constexpr std::string_view recomputeName(Recompute r) { return nameOf(r, kRecomputeNames); }
constexpr std::string_view frameworkName(Framework f) { return nameOf(f, kFrameworkNames); }
constexpr std::string_view attentionKernelName(AttentionKernel k) { return nameOf(k, kAttentionKernelNames); }
constexpr std::string_view contextAttentionName(ContextAttention c) { return nameOf(c, kContextAttentionNames); }
// "none, selective, full, minimal, ...": every policy name, for messages.
inline std::string recomputeNameList() {
  std::string out;
  for (const auto& [name, value] : kRecomputeNames) {
    if (!out.empty()) out.append(", ");
    out.append(name);
  }
  return out;
}

// What a policy keeps for the backward pass and what it runs again. The matmul flags name the
// weight matmuls of a transformer layer whose outputs the backward needs: the query/key/value
// projections, the attention output projection, the MLP input projection(s) and the MLP output
// projection. `kept` is what stays in HBM; `offloaded` what goes to host memory instead (not
// re-run, not in HBM); everything else is re-run in the backward.
struct RecomputeTraits {
  bool kept_qkv = false, kept_out = false, kept_mlp_in = false, kept_mlp_out = false;
  bool offloaded = false;        // the kept outputs live in host memory (not counted in HBM)
  bool rerun_attention = true;   // the attention core (scores, softmax, context) runs again
  bool korthikanti = false;      // memory as Korthikanti et al. Table 2 counts it (Megatron's names)
  bool keeps_everything = false; // nothing re-run at all (our "none")
  // torchtitan's op-level policy: of the weight matmuls in the order the layer runs them (query,
  // key, value, output; the MLP's gate, up, down), the 1st, 3rd, 5th, ... outputs are kept, and
  // the attention kernel's output and the tensor-parallel reduce-scatters' (the flags above stay
  // false; memory and step work read this instead).
  bool alternate_matmuls = false;
  // The backward reads the MLP output projection's output. PyTorch's checkpoint runs a layer's
  // forward again whole (Megatron's recompute, torch.utils.checkpoint), so a policy that does not
  // keep that output re-runs its matmul. JAX's remat keeps and re-runs only what the backward
  // reads, and that output is read only by the residual add, whose backward needs no values: in an
  // XLA program it is neither kept nor re-run (recomputeTraits(policy, true)).
  bool mlp_out_read = true;
  // MaxText's custom policy: the layer input in host memory, and which kept outputs are there
  // (bits of kOffloadQkv ... kOffloadMlpOut; `offloaded` says all of them are).
  bool layer_input_offloaded = false;
  std::uint8_t offload_mask = 0;
};
inline constexpr std::uint8_t kOffloadQkv = 1, kOffloadOut = 2, kOffloadMlpIn = 4, kOffloadMlpOut = 8;
// Whether a kept output (one of the kOffload* bits) stays in HBM.
constexpr bool keptInHbm(const RecomputeTraits& t, bool kept, std::uint8_t bit) {
  return kept && !t.offloaded && (t.offload_mask & bit) == 0;
}

// Where MaxText's custom remat policy puts a tensor the backward needs: re-run it ("remat"), keep
// it in HBM ("device") or in host memory ("offload") (base.yml: decoder_layer_input, query_proj, ...).
enum class TensorPlacement : std::uint8_t { Remat, Device, Offload };
constexpr std::array<std::pair<std::string_view, TensorPlacement>, 3> kTensorPlacementNames{
    {{"remat", TensorPlacement::Remat}, {"device", TensorPlacement::Device}, {"offload", TensorPlacement::Offload}}};

// MaxText's custom policy, per tensor, in the words of its keys: the layer input (its scan's
// checkpoint: never re-run), the query/key/value projections, the attention output projection,
// the MLP input projection(s) and output projection, and the attention core's output (context).
struct CustomRemat {
  TensorPlacement layer_input = TensorPlacement::Device;
  TensorPlacement qkv = TensorPlacement::Remat;
  TensorPlacement out = TensorPlacement::Remat;
  TensorPlacement mlp_in = TensorPlacement::Remat;
  TensorPlacement mlp_out = TensorPlacement::Remat;
  TensorPlacement context = TensorPlacement::Remat;
  bool operator==(const CustomRemat&) const = default;
};
// The traits of a custom policy: a tensor not re-run is kept (in HBM or on the host); a kept
// context spares the attention core's re-run.
constexpr RecomputeTraits customRecomputeTraits(const CustomRemat& c) {
  RecomputeTraits t;
  const auto kept = [](TensorPlacement p) { return p != TensorPlacement::Remat; };
  const auto host = [](TensorPlacement p, std::uint8_t bit) {
    return p == TensorPlacement::Offload ? bit : std::uint8_t{0};
  };
  t.kept_qkv = kept(c.qkv);
  t.kept_out = kept(c.out);
  t.kept_mlp_in = kept(c.mlp_in);
  t.kept_mlp_out = kept(c.mlp_out);
  t.rerun_attention = !kept(c.context);
  t.layer_input_offloaded = c.layer_input == TensorPlacement::Offload;
  t.offload_mask = static_cast<std::uint8_t>(host(c.qkv, kOffloadQkv) | host(c.out, kOffloadOut) |
                                             host(c.mlp_in, kOffloadMlpIn) | host(c.mlp_out, kOffloadMlpOut));
  return t;
}

// Per policy, in kRecomputeNames' order: kept qkv, out, MLP in, MLP out; offloaded; re-runs the
// attention core; Korthikanti's memory; keeps everything; alternate matmuls.
constexpr std::array<std::pair<Recompute, RecomputeTraits>, 12> kRecomputeTraits{{
    {Recompute::None, {true, true, true, true, false, false, true, true}},
    {Recompute::Selective, {true, true, true, true, false, true, true, false}},
    {Recompute::Full, {false, false, false, false, false, true, true, false}},
    {Recompute::Minimal, {true, true, true, true, false, true, false, false}},
    {Recompute::SaveDotExceptMlpWi, {true, true, false, true, false, true, false, false}},
    {Recompute::SaveDotExceptMlp, {true, true, false, false, false, true, false, false}},
    {Recompute::SaveQkvProj, {true, false, false, false, false, true, false, false}},
    {Recompute::SaveOutProj, {false, true, false, false, false, true, false, false}},
    {Recompute::QkvProjOffloaded, {true, false, false, false, true, true, false, false}},
    {Recompute::MinimalOffloaded, {true, true, true, true, true, true, false, false}},
    {Recompute::SelectiveOp, {false, false, false, false, false, false, false, false, true}},
    {Recompute::Custom, customRecomputeTraits(CustomRemat{})}, // the default custom policy: full
}};

// The policy's traits as its name states them (PyTorch's semantics: what the checkpoint keeps and
// calls again); recomputeTraits(r, xlaProgram) below for the job's own program.
constexpr RecomputeTraits recomputeTraits(Recompute r) {
  for (const auto& [policy, traits] : kRecomputeTraits)
    if (policy == r) return traits;
  return kRecomputeTraits[1].second; // selective
}

// What a policy keeps and re-runs in the job's program (isXlaProgram): under XLA the MLP output
// projection's output is neither kept nor re-run, whatever the policy names; torchtitan's op-level
// policy is PyTorch's and keeps what it names.
constexpr RecomputeTraits recomputeTraits(Recompute r, bool xlaProgram, const CustomRemat& custom = {}) {
  RecomputeTraits t = r == Recompute::Custom ? customRecomputeTraits(custom) : recomputeTraits(r);
  if (xlaProgram && !t.alternate_matmuls && !t.keeps_everything) {
    t.kept_mlp_out = false;
    t.mlp_out_read = false;
  }
  return t;
}

// What a policy keeps for the backward and what it runs again, in words, from its traits in the
// job's program: "keeps the layer input, the query/key/value projections, ...; re-runs the
// attention core" (the Workload dock's per-policy help, `help workspace`).
std::string describeRecompute(Recompute r, bool xlaProgram, const CustomRemat& custom = {});

} // namespace shardscope
