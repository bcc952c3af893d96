// SPDX-License-Identifier: Apache-2.0
// The adapters from a workspace (Scenario) to each engine's own options: the engines in cost/ and
// hardware/ take plain option structs and never see the workspace format, so this is the one place
// that says which workspace field feeds which engine figure.
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include <string>

namespace shardscope {

// The dtype gradients are accumulated and reduced in: training.grad_dtype when set, else the
// framework's. Megatron-LM keeps a bf16 model's gradients in fp32 (its arguments.py turns
// accumulate_allreduce_grads_in_fp32 on for --bf16: the main_grad buffers; its distributed-optimizer
// guide counts 18 bytes per parameter, 6 + 12/d with the optimizer distributed over d replicas);
// everyone else (and Megatron in fp16) keeps them in the parameters' dtype.
std::string gradDtypeOf(const TrainingOptions& training);
// Bytes per gradient element when they differ from the parameters' dtype, else 0 (the engines then
// take the parameters' own). Throws ValueError naming training.grad_dtype for an unknown dtype.
double gradBytesOverride(const TrainingOptions& training);

// The memory engine's options for this workload; the caller fills the degrees from the mesh
// (products of the sizes of training.batch_axes / seq_axes and of the tensor axes).
MemoryOptions memoryOptionsFromTraining(const TrainingOptions& training, const std::string& deviceKind);

// The chip's published link figures with the user's `links` overrides on top. Throws ValueError
// for a chip the catalogue does not know.
LinkParams linkParamsOf(const Scenario& scenario);

// The step-time engine's options: the training fields, the chip's published figures for
// `deviceKind` (the mesh's devices; zero when the catalogue does not know it, which the engine
// refuses), the link figures in effect and the calibration (chip defaults with the workspace's
// `performance` edits on top), each tagged with where it came from.
StepOptions stepOptionsFromScenario(const Scenario& scenario, const std::string& deviceKind);

// Whether tensor-parallel activation collectives hide behind the matmuls when the workspace does
// not say (performance.overlap_tensor_comm unset): XLA's collective matmuls do this for MaxText on
// TPU; Megatron needs its --tp-comm-overlap, which is off by default.
bool defaultTensorOverlap(Framework framework, const std::string& deviceKind);

// How context-parallel attention exchanges K and V when the workspace does not say
// (performance.context_attention unset): Megatron's default --cp-comm-type is p2p, a ring
// (megatron/core/transformer/transformer_config.py, cp_comm_type); MaxText's default
// context_parallel_strategy is all_gather (configs/base.yml), as is Llama 3's context parallelism.
ContextAttention defaultContextAttention(Framework framework);

} // namespace shardscope
