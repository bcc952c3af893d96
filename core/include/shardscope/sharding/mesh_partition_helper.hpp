// SPDX-License-Identifier: Apache-2.0
// eformer's MeshPartitionHelper (escale/mesh/mesh_helpers.py): suggests "sharding methods"
// (groups of mesh axes) for an array shape and turns them into a PartitionSpec with a two-pass
// heuristic. Ported exactly, including its quirks, because users debug what their JAX program
// will do:
//   * the first pass compares a single dimension's size with an element-count threshold
//     (max(min_shard_size, elements // (2 * devices)));
//   * a pair method that fits stops the whole search;
//   * the fallback pass assigns ('fsdp', 'sp') with no divisibility check (eformer-jaxpp spec §1.11 bug #5),
//     so (3, 5) on fsdp=4 gives P('fsdp', 'sp'), which device_put would reject. That case is
//     kept, and reported as a diagnostic.
#pragma once

#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/base/nd_array.hpp"
#include "shardscope/sharding/partition_spec.hpp"
#include "shardscope/sharding/sharding_diagnostic.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

// Mesh axes used together on one or two dimensions, e.g. {"fsdp", "sp"} or {"tp"}.
using ShardingMethod = std::vector<std::string>;

class MeshPartitionHelper {
public:
  explicit MeshPartitionHelper(MeshAxes mesh);

  const MeshAxes& mesh() const { return mesh_; }

  // _suggest_methods: in order ('fsdp','sp') if both exist, rank > 1 and s0*s1 >= their
  // product; ('dp',) for rank > 0; ('sp',) for rank > 1 when the pair was not added; ('tp',)
  // always (scalars too); ('fsdp',) when no earlier method holds fsdp.
  std::vector<ShardingMethod> suggestMethods(const Shape& shape) const;

  // create_partition_spec. Methods naming an axis the mesh lacks raise KeyError('<axis>') where
  // the reference looks the size up. Diagnostics report specs the reference produces although
  // they cannot be applied (non-divisible fallback).
  PartitionSpec createPartitionSpec(const Shape& shape, const std::vector<ShardingMethod>& methods,
                                    std::int64_t minShardSize = 1024, ShardingDiagnostics* diagnostics = nullptr) const;

  // analyze_pytree: distinct shapes in first-seen order, each with its suggested methods.
  std::vector<std::pair<Shape, std::vector<ShardingMethod>>> analyze(std::span<const Shape> shapes) const;

  // suggestMethods + createPartitionSpec (what auto_shard_pytree applies per leaf).
  PartitionSpec autoSpec(const Shape& shape, std::int64_t minShardSize = 1024,
                         ShardingDiagnostics* diagnostics = nullptr) const;

private:
  std::int64_t sizeOrKeyError(const std::string& axis) const;
  MeshAxes mesh_;
};

} // namespace shardscope
