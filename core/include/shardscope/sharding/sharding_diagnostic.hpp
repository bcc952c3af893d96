// SPDX-License-Identifier: Apache-2.0
// Notes attached to one parameter wherever a sharding step silently changes or questions what
// was asked for (eformer drops axes, trims specs and skips small arrays without a word). Each
// step appends to the parameter's list instead of hiding the change.
#pragma once

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

struct ShardingDiagnostic {
  enum class Kind {
    NoShape,         // leaf without a shape: rules give P()
    Scalar,          // rank-0 leaf: rules give P()
    BelowMinSize,    // matched a rule but is smaller than min_size: kept replicated
    SpecTrimmed,     // the rule's spec was longer than the rank and was cut
    AxisMissing,     // a dimension named an axis the mesh lacks: the whole dimension replicated
    NotDivisible,    // dimension size not divisible by its axes' product: replicated (correction)
    UnexpectedEntry, // an UNCONSTRAINED or malformed entry was treated as None
    AllReplicated,   // after correction nothing was sharded: the spec became P()
    NoConstraint,    // P() given to with_sharding_constraint: no constraint is applied at all
    NoMesh,          // no mesh: the spec cannot apply
    UnevenShard,     // dimension not divisible: JAX/XLA pads to ceil-sized shards
    DuplicateAxis,   // the same mesh axis shards two dimensions (JAX rejects this)
    OverMemoryLimit, // a memory-constrained rule could not reach its byte limit
    ReferenceBug     // the result differs from the reference because the reference is broken
  };
  Kind kind = Kind::NoShape;
  int dim = -1;     // array dimension concerned, -1 for the whole array
  std::string axis; // mesh axis (or axes, comma separated) concerned, empty if none
  std::string message;
};

using ShardingDiagnostics = std::vector<ShardingDiagnostic>;

// Stable snake_case name of each kind, used in JSON output.
inline constexpr std::array<std::pair<std::string_view, ShardingDiagnostic::Kind>, 14> kShardingDiagnosticKindNames{{
    {"no_shape", ShardingDiagnostic::Kind::NoShape},
    {"scalar", ShardingDiagnostic::Kind::Scalar},
    {"below_min_size", ShardingDiagnostic::Kind::BelowMinSize},
    {"spec_trimmed", ShardingDiagnostic::Kind::SpecTrimmed},
    {"axis_missing", ShardingDiagnostic::Kind::AxisMissing},
    {"not_divisible", ShardingDiagnostic::Kind::NotDivisible},
    {"unexpected_entry", ShardingDiagnostic::Kind::UnexpectedEntry},
    {"all_replicated", ShardingDiagnostic::Kind::AllReplicated},
    {"no_constraint", ShardingDiagnostic::Kind::NoConstraint},
    {"no_mesh", ShardingDiagnostic::Kind::NoMesh},
    {"uneven_shard", ShardingDiagnostic::Kind::UnevenShard},
    {"duplicate_axis", ShardingDiagnostic::Kind::DuplicateAxis},
    {"over_memory_limit", ShardingDiagnostic::Kind::OverMemoryLimit},
    {"reference_bug", ShardingDiagnostic::Kind::ReferenceBug},
}};
std::string_view diagnosticKindName(ShardingDiagnostic::Kind kind);

} // namespace shardscope
