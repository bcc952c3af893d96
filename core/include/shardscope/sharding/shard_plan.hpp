// SPDX-License-Identifier: Apache-2.0
// The whole path from a parameter list to what every device holds: spec per parameter (given,
// or chosen by regex rules), eformer's correction step, the layout of each array on the mesh,
// and per-device byte totals. The `shard` eval op, the CLI and the memory estimate share it.
#pragma once

#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <optional>
#include <span>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct ShardParam {
  std::string path;
  Shape shape;
  DType dtype = float32DType();
  std::optional<PartitionSpec> spec; // set: used as is; unset: chosen by the rules
};

struct ShardPlanOptions {
  const RuleSet* rules = nullptr;           // required when some parameter has no spec
  std::optional<std::int64_t> min_size = 0; // rules' min_size (nullopt: kMinShardingSize)
  bool correct = true;                      // eformer's get_corrected_named_sharding
  bool allow_uneven = true;                 // without correction: pad uneven dimensions
};

struct PlannedParam {
  int rule = -1;           // the rule that chose the spec, -1 for a given spec or none tried
  PartitionSpec requested; // what the rule or the caller asked for
  PartitionSpec spec;      // what applies (after correction)
  ArrayLayout layout;
  ShardingDiagnostics diagnostics;
};

struct ShardPlan {
  std::vector<PlannedParam> params; // aligned with the input
  DeviceTotals totals;
};

// A parameter as planShardGroups reads it, without copies (the values must outlive the call).
struct ShardParamRef {
  std::string_view path;
  const Shape* shape = nullptr;
  const DType* dtype = nullptr;
  const PartitionSpec* spec = nullptr; // null: chosen by the rules
  std::int64_t count = 1;              // identical parameters this entry stands for (in counts, totals)
};

// planShards with one result per group of parameters that cannot plan differently: same shape,
// same dtype and the same requested spec (the same rule, or equal given specs). Correction,
// layout and diagnostics do not depend on the path, so a model of 58 layers x 256 experts is
// planned once per distinct tensor rather than 46k times. Same results and errors as planShards.
struct ShardGroups {
  std::vector<PlannedParam> plans;     // one per group, in order of first appearance
  std::vector<std::uint32_t> group_of; // per input parameter: its group
  std::vector<std::int64_t> counts;    // parameters per group (the sum of their `count`)
  std::vector<std::size_t> first;      // per group: its first parameter, whose path errors name
  DeviceTotals totals;
};
ShardGroups planShardGroups(const MeshAxes& mesh, std::span<const ShardParamRef> params,
                            const ShardPlanOptions& options = {});

// Throws ValueError naming the parameter (unknown axis, axis used twice, a spec longer than the
// rank, an uneven dimension with allow_uneven = false, no rule matching, no rules given).
ShardPlan planShards(const MeshAxes& mesh, std::span<const ShardParam> params, const ShardPlanOptions& options = {});

} // namespace shardscope
