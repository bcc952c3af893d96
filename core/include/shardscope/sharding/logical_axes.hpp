// SPDX-License-Identifier: Apache-2.0
// Logical axis names and named rule-set presets.
//
// PartitionAxis (after eformer's PartitionAxis, training mode) maps logical names of array
// dimensions -- batch, sequence, hidden, heads, kv_heads, mlp, vocab, experts, ... -- to mesh
// axes, through five mesh roles (dp, fsdp, tp, sp, ep) whose mesh axis names are configurable.
// Unlike eformer, composites are flattened (eformer builds nested tuples that JAX rejects) and
// the role names themselves are accepted at top level.
//
// Presets are regex rule lists over Hugging Face parameter names (Llama, Mistral, Mixtral,
// Qwen2/3, Gemma 2/3, DeepSeek-V3, GPT-2; '.' or '/' separated, any prefix) and flax-style
// names (`kernel`, stored [in, out]). HF linear weights are stored [out, in]; GPT-2's Conv1D
// weights are [in, out]. Each weight dimension has a parameter role (embed = the model width,
// heads, kv_heads, mlp, vocab, experts) and each preset says which mesh roles shard each role:
//
//   preset   embed        heads/kv_heads/mlp/vocab   experts (stacked dim)
//   dp       -            -                          -          pure data parallel: replicated
//   fsdp     (fsdp, sp)   -                          -          ZeRO-3
//   tp       -            tp                         -          Megatron column/row parallel
//   fsdp-tp  (fsdp, sp)   tp                         -          2-D
//   ep       (fsdp, sp)   tp                         ep         MoE expert parallel
//   sp       sp           tp                         -          sequence parallel: the sp group
//                                                               shards weights like FSDP
// Experts stored one tensor per expert (HF checkpoints) cannot be split along an expert
// dimension; under `ep` their embed dimension takes (ep, fsdp, sp), which gives every device
// the same bytes as placing whole experts (the communication differs). Rank-1 tensors (norms,
// biases) and anything unmatched stay replicated.
#pragma once

#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct PartitionAxis {
  // Mesh axis names of the five roles.
  std::string data_parallel = "dp";
  std::string fully_sharded_data_parallel = "fsdp";
  std::string tensor_parallel = "tp";
  std::string sequence_parallel = "sp";
  std::string expert_parallel = "ep";
  // Logical names replaced or added by the user: name -> logical names or mesh axes (each
  // element is resolved if it is a known logical name or role, else taken as a mesh axis).
  std::map<std::string, std::vector<std::string>> custom;

  // Mesh axes of a logical name, major first; empty = replicated. Accepts eformer tokens
  // ("__BATCH__", "EMBED", ...), lower-case names and aliases (length = sequence, embed =
  // hidden, head = heads, ...), role names (dp, fsdp, tp, sp, ep) and "_" / "" (replicated).
  // Throws ValueError("Unknown semantic axis name: '<name>'") otherwise.
  std::vector<std::string> resolve(std::string_view logical) const;
  // One spec entry per dimension; each dimension lists logical names (several = a composite,
  // flattened in order, duplicates dropped). A dimension with no names is None.
  PartitionSpec resolveSpec(const std::vector<std::vector<std::string>>& dims) const;
};

// Canonical logical names, for completion lists and docs.
std::vector<std::string> logicalAxisNames();

struct RulePresetInfo {
  std::string name;
  std::string description;
};
std::vector<RulePresetInfo> rulePresets();

// The rules of a preset ("dp", "fsdp", "tp", "fsdp-tp", "ep", "sp"; case-insensitive, "fsdp_tp"
// and "2d" also accepted), resolved through `axes`. With a mesh, axes the mesh lacks are left
// out of each entry (so ('fsdp', 'sp') becomes 'fsdp' on a mesh without sp, instead of the whole
// dimension falling back to replicated in the correction step). Throws ValueError listing the
// presets for an unknown name.
std::vector<PartitionRule> presetRules(std::string_view name, const PartitionAxis& axes = {},
                                       const MeshAxes* mesh = nullptr);

} // namespace shardscope
