// SPDX-License-Identifier: Apache-2.0
// The blocks an array is cut into on a mesh, for drawing it the way jax.debug.visualize_array_sharding
// does: each block's slice of the global array and every device (grid position) that holds it.
#pragma once

#include "shardscope/sharding/named_sharding.hpp"

#include <cstdint>
#include <vector>

namespace shardscope {

struct ShardBlock {
  Shape block;                         // block index along every dimension
  std::vector<IndexRange> ranges;      // its slice of the global array (empty on a ragged edge)
  std::vector<std::int64_t> positions; // grid positions holding it, ascending: its replicas
};

// More blocks than any view can show legibly (a 256 x 256 grid).
inline constexpr std::int64_t kMaxShardBlocks = std::int64_t{1} << 16;

// Every block, in row-major block order: block i is the one whose block index flattens to i
// (the numbering shard colours use). Throws ValueError when the layout has more than
// kMaxShardBlocks blocks. Cost: O(devices x rank).
std::vector<ShardBlock> shardBlocks(const ArrayLayout& layout, const MeshAxes& mesh);

// Row-major flattening of a block index (its position in shardBlocks' result).
std::int64_t flatBlockIndex(const ArrayLayout& layout, const Shape& block);

} // namespace shardscope
