// The whole path from a parameter list to what every device holds: spec per parameter (given,
// or chosen by regex rules), eformer's correction step, the layout of each array on the mesh,
// and per-device byte totals. The `shard` eval op, the CLI and the memory estimate share it.
#pragma once

#include "shardscope/partition_rules.hpp"
#include "shardscope/sharding.hpp"

#include <optional>
#include <span>
#include <string>
#include <vector>

namespace shardscope {

struct ShardParam {
  std::string path;
  Shape shape;
  DType dtype = float32DType();
  std::optional<PartitionSpec> spec; // set: used as is; unset: chosen by the rules
};

struct ShardPlanOptions {
  const RuleSet* rules = nullptr;            // required when some parameter has no spec
  std::optional<std::int64_t> min_size = 0;  // rules' min_size (nullopt: kMinShardingSize)
  bool correct = true;                       // eformer's get_corrected_named_sharding
  bool allow_uneven = true;                  // without correction: pad uneven dimensions
};

struct PlannedParam {
  int rule = -1;              // the rule that chose the spec, -1 for a given spec or none tried
  PartitionSpec requested;    // what the rule or the caller asked for
  PartitionSpec spec;         // what applies (after correction)
  ArrayLayout layout;
  ShardingDiagnostics diagnostics;
};

struct ShardPlan {
  std::vector<PlannedParam> params; // aligned with the input
  DeviceTotals totals;
};

// Throws ValueError naming the parameter (unknown axis, axis used twice, a spec longer than the
// rank, an uneven dimension with allow_uneven = false, no rule matching, no rules given).
ShardPlan planShards(const MeshAxes& mesh, std::span<const ShardParam> params, const ShardPlanOptions& options = {});

} // namespace shardscope
