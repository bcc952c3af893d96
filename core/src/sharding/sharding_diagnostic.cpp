// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/sharding_diagnostic.hpp"

namespace shardscope {

std::string_view diagnosticKindName(ShardingDiagnostic::Kind kind) {
  using K = ShardingDiagnostic::Kind;
  switch (kind) {
  case K::NoShape:
    return "no_shape";
  case K::Scalar:
    return "scalar";
  case K::BelowMinSize:
    return "below_min_size";
  case K::SpecTrimmed:
    return "spec_trimmed";
  case K::AxisMissing:
    return "axis_missing";
  case K::NotDivisible:
    return "not_divisible";
  case K::UnexpectedEntry:
    return "unexpected_entry";
  case K::AllReplicated:
    return "all_replicated";
  case K::NoConstraint:
    return "no_constraint";
  case K::NoMesh:
    return "no_mesh";
  case K::UnevenShard:
    return "uneven_shard";
  case K::DuplicateAxis:
    return "duplicate_axis";
  case K::OverMemoryLimit:
    return "over_memory_limit";
  case K::ReferenceBug:
    return "reference_bug";
  }
  return "unknown";
}

} // namespace shardscope
