// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/shard_blocks.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>

namespace shardscope {

std::int64_t flatBlockIndex(const ArrayLayout& layout, const Shape& block) {
  std::int64_t flat = 0;
  for (std::size_t i = 0; i < layout.dims.size(); ++i) flat = flat * layout.dims[i].ways + block[i];
  return flat;
}

std::vector<ShardBlock> shardBlocks(const ArrayLayout& layout, const MeshAxes& mesh) {
  if (layout.shards > kMaxShardBlocks)
    throwValueError("the array is cut into " + std::to_string(layout.shards) + " blocks; at most " +
                    std::to_string(kMaxShardBlocks) + " can be listed");
  std::vector<ShardBlock> blocks(static_cast<std::size_t>(layout.shards));
  // Block index of every flat index: an odometer over the dimensions' ways.
  Shape index(layout.dims.size(), 0);
  for (auto& b : blocks) {
    b.block = index;
    b.ranges.resize(layout.dims.size());
    for (std::size_t i = 0; i < layout.dims.size(); ++i) {
      const std::int64_t n = layout.shape[i], chunk = layout.dims[i].chunk;
      const std::int64_t start = std::min(index[i] * chunk, n);
      b.ranges[i] = {start, start + std::min(chunk, n - start)};
    }
    for (std::size_t i = layout.dims.size(); i-- > 0;) {
      if (++index[i] < layout.dims[i].ways) break;
      index[i] = 0;
    }
  }
  const std::int64_t devices = mesh.deviceCount();
  for (auto& b : blocks) b.positions.reserve(static_cast<std::size_t>(layout.replication));
  for (std::int64_t p = 0; p < devices; ++p)
    blocks[static_cast<std::size_t>(flatBlockIndex(layout, blockIndex(layout, mesh, p)))].positions.push_back(p);
  return blocks;
}

} // namespace shardscope
