// SPDX-License-Identifier: Apache-2.0
// XLA's HLO sharding text (what `sharding={...}` holds in an HLO dump), read and written the way
// XLA's HloSharding does:
//   {replicated}  {manual}  {maximal device=3}
//   {devices=[2,1,4]0,1,2,3,4,5,6,7}                    V1: the tile assignment listed row-major
//   {devices=[4,2]<=[8]}  {devices=[2,4]<=[4,2]T(1,0)}   V2: iota(reshape dims), transposed, reshaped
//   {devices=[2,1,4]<=[8] last_tile_dim_replicate}      last tile dim = devices holding the same block
//   {devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}
//   {{replicated}, {devices=[2]0,1}}                     tuples
// The tile assignment is an array of device ids of shape `tile_dims`: the device at index
// (i_0, .., i_k) holds block i_d of data dimension d; trailing "subgroup" dimensions (replicated or
// manual) do not cut the data. Device ids are positions in the computation's device assignment
// (for JAX: the mesh's devices flattened row-major), not physical device ids.
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Sizes read from text are bounded before anything is allocated.
inline constexpr std::size_t kMaxHloTileRank = 64;                    // tile dims, reshape dims
inline constexpr std::int64_t kMaxHloDevices = std::int64_t{1} << 20; // tiles; = kMaxTopologyDevices
inline constexpr int kMaxHloTupleDepth = 16;
inline constexpr std::size_t kMaxHloTupleElements = 4096; // in one tuple, all levels together

enum class HloSubgroup : unsigned char { Replicated, Manual };

// V2 form: iota over reshape_dims, transposed by perm, then read in tile_dims' shape.
// Kept canonical as XLA keeps it (IotaTileAssignment::Create): size-1 reshape dims dropped, runs of
// reshape dims the transpose keeps adjacent and in order merged; never empty ([n] with perm [0]).
struct IotaTiles {
  Shape reshape_dims;
  std::vector<int> perm;
  bool operator==(const IotaTiles&) const = default;
};

struct HloSharding {
  enum class Kind : unsigned char { Replicated, Manual, Maximal, Tiled, Tuple };
  Kind kind = Kind::Replicated;
  std::int64_t device = 0; // Maximal: the one device holding everything

  // Tiled:
  Shape tile_dims;                      // data dims then one dim per subgroup
  std::vector<HloSubgroup> subgroups;   // types of the trailing subgroup dims, in text order
  bool last_tile_dim_replicate = false; // written as such (one Replicated subgroup)
  bool iota = false;                    // V2 form (iota_tiles) instead of an explicit list
  IotaTiles iota_tiles;
  std::vector<std::int64_t> devices; // V1: the ids row-major over tile_dims

  std::vector<HloSharding> elements; // Tuple

  // Number of data dimensions the tiling cuts (tile_dims minus subgroup dims).
  std::size_t dataRank() const { return tile_dims.size() - subgroups.size(); }
  // Product of tile_dims (devices the assignment names).
  std::int64_t tileCount() const;

  bool operator==(const HloSharding&) const = default;
};

// Parses one sharding. Throws ValueError "HLO sharding, column C: expected ..., got ..." (C counts
// from 1) for bad text, and for: a tile dim < 1, more than kMaxHloTileRank dims, more than
// kMaxHloDevices tiles, an explicit list whose length is not the tile count, a device id listed
// twice or not below kMaxHloDevices, reshape dims whose product is not the tile count, a transpose
// that is not a permutation, two kinds at once, subgroups without `devices=`. `metadata={...}` is
// skipped; other attributes (shard_as, shard_like, unknown, unreduced, ...) are refused by name.
HloSharding parseHloSharding(std::string_view text);

// XLA's text: V2 iota in canonical form, `last_tile_dims={manual, replicated}` with ", ".
std::string hloShardingToString(const HloSharding& sharding);

// --- Tile assignment (V2 iota as XLA's IotaTileAssignment).

// Canonical form of iota(reshape_dims).transpose(perm) (see IotaTiles). `perm` must be a
// permutation of 0..n-1.
IotaTiles canonicalIota(const Shape& reshape_dims, const std::vector<int>& perm);
// Device id at `index` (row-major over tile_dims) of the iota tiles.
std::int64_t iotaValueAt(const IotaTiles& iota, std::int64_t linear_index);
// "<=[12,5]T(1,0)" (T omitted when there is one reshape dim).
std::string iotaToString(const IotaTiles& iota);

// Every device id of a tiled sharding, row-major over tile_dims (materialises an iota).
std::vector<std::int64_t> tileAssignmentDevices(const HloSharding& sharding);

} // namespace shardscope
