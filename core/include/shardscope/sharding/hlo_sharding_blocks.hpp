// SPDX-License-Identifier: Apache-2.0
// What an HLO sharding means for one array, and the HLO sharding JAX gives a NamedSharding.
//   * decodeHloSharding: per device id, the block of the array it holds, as XLA cuts it: data
//     dimension d of size n split into t_d tiles is cut in blocks of ceil(n / t_d); block b covers
//     [min(b*c, n), min((b+1)*c, n)) so the last block is ragged and blocks past the end are empty.
//   * hloShardingOf: jax/_src/named_sharding.py named_sharding_to_xla_hlo_sharding: mesh axes of size
//     1 dropped; tile dim d = product of the sizes of the axes spec[d] names; mesh axes the spec
//     leaves out form one trailing replicated subgroup (last_tile_dim_replicate); the device ids are
//     iota(mesh shape) transposed to (the spec's axes in order, then the unused axes in mesh order),
//     written in XLA's canonical V2 form; {replicated} when nothing is cut.
#pragma once

#include "shardscope/sharding/hlo_sharding.hpp"
#include "shardscope/sharding/named_sharding.hpp"
#include "shardscope/sharding/param_table.hpp"
#include "shardscope/sharding/shard_blocks.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

struct HloDeviceBlock {
  std::int64_t device = 0;       // id in the computation's device assignment
  Shape block;                   // block index along every array dimension
  std::vector<IndexRange> index; // its slice of the array, one half-open range per dimension
};

struct HloDecoded {
  Shape tile_dims;                     // tiles along every array dimension (1: not cut)
  std::int64_t replicated_tiles = 1;   // devices holding each block (product of the subgroup dims)
  std::vector<HloDeviceBlock> devices; // ascending device id
};

// Devices x dimensions listed at most (as devicesIndicesMap): 2^21, a million devices of a 2-D
// array. Each range costs ~100 bytes of table or JSON; 2^24 of them took 1.7-2.9 GB and 6-9 s.
inline constexpr std::int64_t kMaxHloDecodedEntries = std::int64_t{1} << 21;
// Largest array dimension decoded (block starts then never overflow).
inline constexpr std::int64_t kMaxHloDimension = std::int64_t{1} << 62;

// A decoded sharding in the shapes the shard views draw (ArrayLayout without mesh axes, and
// ShardBlock whose positions are HLO device ids), blocks in row-major block order.
struct HloBlocks {
  ArrayLayout layout;
  std::vector<ShardBlock> blocks;
};
// Refuses (ValueError) more than kMaxShardBlocks blocks.
HloBlocks hloShardBlocks(const HloDecoded& decoded, const Shape& shape, const DType& dtype);

// `num_devices`: size of the device assignment, 0 when unknown. {replicated} and {manual} need it
// (every device holds the whole array); when known, a tiled sharding must name exactly that many
// devices and every id must be below it. Throws ValueError: tuple shardings (decode one element),
// a shape whose rank differs from the sharding's data dimensions, sizes outside [0, 2^62], too many
// entries.
HloDecoded decodeHloSharding(const HloSharding& sharding, const Shape& shape, std::int64_t num_devices = 0);

// The HLO sharding JAX lowers `layout` (a NamedSharding over `mesh`) to. Device id k is the mesh's
// grid position k (its k-th device, row-major).
HloSharding hloShardingOf(const ArrayLayout& layout, const MeshAxes& mesh);
// The same as text for `spec` on any array of `rank` dimensions (the sharding does not depend on
// the sizes). Throws ValueError as layoutArray does when the spec does not fit the mesh or rank.
std::string hloShardingText(const MeshAxes& mesh, const PartitionSpec& spec, std::size_t rank);
// hloShardingText of every group of a parameter table (index it with table.groupOf(i)), at the rank
// of the group's first parameter; nullopt for a spec that does not fit the mesh.
std::vector<std::optional<std::string>> groupHloShardings(const ParamTable& table, const MeshAxes& mesh);

} // namespace shardscope
