// SPDX-License-Identifier: Apache-2.0
// A Scenario is everything the user decides: hardware, logical mesh, model, rules, and training or
// serving options. It is a plain value; its JSON form is the workspace file (*.shardscope.json).
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/cost/workload.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/hardware/topology.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// One logical axis as the user edits it. `ici` may be -1 (absorb the remaining chips); `dcn` is
// the part across slices (1 for single-slice).
struct MeshAxis {
  std::string name;
  std::int64_t ici = 1;
  std::int64_t dcn = 1;
  AxisType type = AxisType::Explicit;

  bool operator==(const MeshAxis&) const = default;
};

struct MeshConfig {
  std::vector<MeshAxis> axes{{"dp", 2, 1}, {"fsdp", 16, 1}, {"tp", 4, 1}};
  // On by default: the default fsdp:16 cannot take whole axes of a 4x4x8 torus once tp has x
  // (16 is neither 4 nor 8 nor 32), so the documented default needs JAX's splitting.
  bool allow_split_physical_axes = true;
  bool contiguous_submeshes = false;

  bool operator==(const MeshConfig&) const = default;
};

struct ModelChoice {
  std::string preset = "llama-3.1-8b"; // a built-in model, or empty when `path` or `inline_params` is used
  std::string path;                    // a model file (our JSON, safetensors, index.json, config.json)
  Json inline_params;                  // our JSON parameter list, when the workspace carries the model
  Json inline_config;                  // a Hugging Face config.json object, synthesized like a config file
  Json inline_architecture;            // with inline_params: the architecture (ModelConfig's fields, docs/formats.md)
  std::string inline_name;             // with inline_params: the model's name (an import's model_name)

  bool operator==(const ModelChoice&) const = default;
};
// What the model is called where a workspace names it: the preset, the file's name, the inline
// model's name, the inline config's model_type, or "inline model".
std::string modelLabel(const ModelChoice& choice);

struct RulesChoice {
  std::string preset = "fsdp-tp"; // a built-in rule set, or empty when `rules` is used
  // Ordered [regex, spec] pairs, spec in the JSON form [null, "tp", ["fsdp", "sp"]].
  std::vector<std::pair<std::string, Json>> rules;
  // MaxText's remove_size_one_mesh_axis: the given rules' mesh axes of size 1 are left out of each
  // parameter's spec. An imported MaxText workspace keeps every axis its rules name, so an edit
  // that grows one (tensor 1 -> 4) shards over it as MaxText would, and its specs read as MaxText's.
  bool drop_size_one_axes = false;

  bool operator==(const RulesChoice&) const = default;
};

struct TrainingOptions {
  Workload workload = Workload::Training;
  std::string param_dtype = "bfloat16";
  // The dtype gradients are accumulated and reduced in; empty: the framework's (gradDtypeOf in
  // engine_options.hpp: fp32 for a bf16 model under Megatron-LM, else the parameters').
  std::string grad_dtype;
  Optimizer optimizer = Optimizer::AdamW;
  bool master_weights_fp32 = false;
  // ZeRO (Rajbhandari et al.): 0 keeps optimizer state and gradients laid out like their
  // parameters; 1 also splits the optimizer state (and fp32 master weights) over the batch axes
  // the parameter is not already sharded on; 2 splits the gradients that way too. (Stage 3 is
  // the fsdp rule set: the parameters themselves sharded.)
  int zero_stage = 0;
  // Global micro-batch in sequences, split over the batch axes. 32 gives each of the default
  // scenario's dp x fsdp = 32 replicas one sequence (fewer would leave replicas padding).
  std::int64_t micro_batch = 32;
  // Gradient accumulation: micro-batches per optimizer step (global batch = micro_batch x this).
  std::int64_t microbatches = 1;
  std::int64_t seq_len = 4096;
  // Megatron sequence parallelism on the tensor axis: layer norms and dropouts split too (memory),
  // all-gather / reduce-scatter pairs instead of all-reduces (step time).
  bool sequence_parallel = false;
  Recompute recompute = Recompute::Selective;
  // MaxText's remat_policy "custom": where each tensor the backward needs goes (recompute "custom").
  CustomRemat custom_remat;
  // Fused (flash) or materialized attention scores: step time and activation memory.
  AttentionKernel attention = AttentionKernel::Flash;
  // The weight matmuls' number format (cost/workload.hpp): bf16, fp16, fp8 (Transformer Engine,
  // MaxText's quantization "fp8") or int8 (MaxText's quantization "int8").
  Precision precision = Precision::Bf16;
  // Whose behaviour the estimate follows (cost/workload.hpp): activation sharding, tensor-collective
  // overlap, the remat policies' names.
  Framework framework = Framework::Generic;
  std::vector<std::string> batch_axes{"dp", "fsdp"}; // mesh axes that shard the batch
  std::vector<std::string> seq_axes;                 // mesh axes that shard the sequence
  // Serving
  std::int64_t serve_batch = 8;
  std::int64_t context_len = 8192;
  std::string kv_dtype = "bfloat16";
  std::optional<double> hbm_bytes_override; // the chip's HBM, edited by the user

  bool operator==(const TrainingOptions&) const = default;
};

// The user's edits to the chip's published link figures (hardware.hpp); an unset figure keeps the
// chip's default. Bandwidths in bytes/s one way per link, latencies in seconds per hop.
struct LinkOverrides {
  std::optional<double> ici_bandwidth, ici_latency;       // torus links (TPU) or NVLink (GPU)
  std::optional<double> uplink_bandwidth, uplink_latency; // DCN (TPU) or the network NIC (GPU)
  bool twisted = false;                                   // twisted torus wiring (k x k x 2k)

  bool operator==(const LinkOverrides&) const = default;
};

// Calibration of the step-time estimate (docs/step-time.md). Unset values keep the chip's defaults
// (step/step_time.hpp defaultCalibration); set ones are the user's edits.
struct PerformanceOptions {
  std::optional<double> flops_fraction;     // achievable fraction of peak bf16 FLOP/s, (0, 1]
  std::optional<double> link_fraction;      // achievable fraction of link bandwidth, (0, 1]
  std::optional<double> hbm_fraction;       // achievable fraction of HBM bandwidth, (0, 1]
  std::optional<double> attention_fraction; // the attention kernel's fraction of peak bf16 FLOP/s, (0, 1]
  std::optional<double> hop_latency;        // seconds per ICI/NVLink hop as collectives see it
  // Tensor-parallel activation collectives hidden (collective matmuls). Unset: the framework's
  // default (MaxText on TPU overlaps them; see defaultTensorOverlap in engine_options.hpp).
  std::optional<bool> overlap_tensor_comm;
  // How context-parallel attention exchanges K and V (cost/workload.hpp ContextAttention). Unset:
  // the framework's default (defaultContextAttention in engine_options.hpp).
  std::optional<ContextAttention> context_attention;

  bool operator==(const PerformanceOptions&) const = default;
};

// Pipeline parallelism as jaxpp runs it (the workspace's `pipeline` section; docs/workspace.md):
// one mesh axis is the MPMD axis, each index along it a pipeline rank running its stages' layers.
// Unset sizes follow the mesh: the analysis resolves and checks them (pipeline_stage.cpp).
struct PipelineConfig {
  std::string axis = "pp"; // the MPMD axis, a mesh axis name (MpmdMesh(mesh, axis))
  PipelineScheduleKind schedule = PipelineScheduleKind::Std1F1B;
  // Default: the axis size, twice it for DualPipeV. A multiple of the axis size for Interleaved1F1B
  // and KimiK2, exactly twice it for DualPipeV, equal to it for the others.
  std::optional<std::int64_t> num_stages;
  // M, micro-batches per step (jaxpp's treduce length); each is training.micro_batch sequences, so
  // the global batch is micro_batch x M. Default: twice the number of stages.
  std::optional<std::int64_t> microbatches;
  // Layers of each stage, summing to the model's layers. Empty: an even split, the remainder one
  // layer each to the stages just before the last one (pipelineLayerSplit).
  std::vector<std::int64_t> layers_per_stage;
  bool fuse_steady_state = false; // Interleaved1F1B and KimiK2: fuse every steady-state F with its B

  bool operator==(const PipelineConfig&) const = default;
};

struct Scenario {
  std::string name = "Default: TPU v4 4x4x8, Llama-3.1-8B, FSDP+TP";
  TopologySpec topology; // defaults to v4 4x4x8
  MeshConfig mesh;
  ModelChoice model;
  RulesChoice rules;
  TrainingOptions training;
  LinkOverrides links;
  PerformanceOptions performance;
  std::optional<PipelineConfig> pipeline; // absent: no pipeline, every device holds every layer

  bool operator==(const Scenario&) const = default;
};

// The built-in scenario the app opens with.
Scenario defaultScenario();

// JSON round trip. fromJson throws ValueError naming the field ("mesh.axes[1].ici must be ...").
Json scenarioToJson(const Scenario& scenario);
Scenario scenarioFromJson(const Json& json);
// Reads a workspace file (at most 100 MB, JSON depth-bounded). Throws IOError "cannot open
// workspace '<path>'" when it cannot be read, ValueError naming the file for bad contents.
Scenario loadScenarioFile(const std::filesystem::path& file);

// Resolves -1 entries of ICI sizes against the chip count of one slice, checks names are unique
// and sizes positive; throws ValueError naming the axis.
Shape resolveIciShape(const MeshConfig& mesh, std::int64_t chipsPerSlice);

// The mesh axes a `--mesh` text ("dp:2,fsdp:-1,tp:4") gives on `topology`, as every command and the
// eval read it: sizes are per slice (one may be -1, resolved against one slice's chips) and, with
// several slices, every slice goes on the first axis over DCN (MaxText's data parallelism across
// slices). A mesh preset's name ("fsdp-tp", analysis/mesh_presets.hpp) gives its axes instead.
// Throws ValueError for a bad text.
std::vector<MeshAxis> meshAxesFromText(const std::string& text, const TopologySpec& topology);

} // namespace shardscope
