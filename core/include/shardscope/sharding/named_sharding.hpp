// SPDX-License-Identifier: Apache-2.0
// How one array lands on a mesh under a PartitionSpec (JAX NamedSharding semantics):
//   * dimension i is split into k_i = prod(size(a) for a in spec[i]) blocks;
//   * the device at mesh coordinate c holds block b_i = row-major flattening of (c[a] for a in
//     spec[i]), first listed axis major;
//   * axes the spec does not use replicate the array: replication = devices / prod(k_i);
//   * a dimension that k_i does not divide is "uneven": blocks are ceil(n/k_i) long, the last
//     ones shorter (or empty), and XLA pads every device's buffer to the ceil size.
// Shard sizes are computed once per array; per-device figures come from axis coordinates, so no
// per-device index list is built unless asked for (devicesIndicesMap, replicaGroups).
#pragma once

#include "shardscope/base/dtype.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/base/nd_array.hpp"
#include "shardscope/sharding/partition_spec.hpp"
#include "shardscope/sharding/sharding_diagnostic.hpp"

#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

namespace shardscope {

struct DimLayout {
  std::vector<int> axes;  // mesh axis indices, major first (empty: not split)
  std::int64_t ways = 1;  // product of their sizes
  std::int64_t chunk = 0; // ceil(size / ways): every block's allocated extent
  bool uneven = false;    // size % ways != 0
};

struct ArrayLayout {
  Shape shape;
  DType dtype;
  std::vector<DimLayout> dims; // one per array dimension (a short spec is padded with None)
  Shape shard_shape;           // the chunk of every dimension (the padded buffer shape)
  std::int64_t total_elements = 0;
  std::int64_t shard_elements = 0; // elements of the padded buffer
  std::int64_t total_bytes = 0;    // packed bytes of the whole array
  std::int64_t shard_bytes = 0;    // packed bytes of the padded buffer every device allocates
  std::int64_t shards = 1;         // distinct blocks: product of the dimensions' ways
  std::int64_t replication = 1;    // devices holding each block: device count / shards
  bool uneven = false;             // some dimension is uneven
  std::vector<bool> axis_used;     // per mesh axis: does the spec use it
};

struct LayoutOptions {
  std::string_view param;                     // the parameter named in error messages
  bool allow_uneven = true;                   // false: an uneven dimension is a ValueError
  ShardingDiagnostics* diagnostics = nullptr; // receives UnevenShard / UnexpectedEntry notes
};

// Validates and lays out one array. ValueErrors name the parameter, the dimension and the axis:
// spec longer than the rank, unknown axis, axis used twice, a None inside a tuple entry, and
// (with allow_uneven = false) a dimension not divisible by its axes. UNCONSTRAINED entries are
// laid out as replicated with a diagnostic.
ArrayLayout layoutArray(const MeshAxes& mesh, const Shape& shape, const DType& dtype, const PartitionSpec& spec,
                        const LayoutOptions& options = {});

// --- Per-device views (grid position = row-major index over the mesh axes).

// Block index along every dimension for the device at `position`.
Shape blockIndex(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position);

struct IndexRange {
  std::int64_t start = 0;
  std::int64_t stop = 0; // exclusive; start == stop for an empty block on the ragged edge
  bool operator==(const IndexRange&) const = default;
};

// The slice of the global array held by the device at `position` (one range per dimension).
std::vector<IndexRange> deviceIndexRanges(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position);
// JAX's devices_indices_map in grid-position order. Refuses (ValueError) more than 2^24
// position x dimension entries: ask per position instead.
std::vector<std::vector<IndexRange>> devicesIndicesMap(const ArrayLayout& layout, const MeshAxes& mesh);
// Elements really held at `position` (less than shard_elements on the ragged edge).
std::int64_t heldElements(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position);
// Grid positions holding the same block, one group per block, ordered by their first position.
// Same size limit as devicesIndicesMap.
std::vector<std::vector<std::int64_t>> replicaGroups(const ArrayLayout& layout, const MeshAxes& mesh);

// --- Totals over many arrays, per device.

struct DeviceTotals {
  std::vector<std::int64_t> data_bytes;    // per grid position: packed bytes of elements held
  std::vector<std::int64_t> data_elements; // per grid position: elements held
  std::int64_t padded_bytes = 0;           // per device, identical everywhere (XLA pads blocks)
  std::int64_t padded_elements = 0;
  std::int64_t total_bytes = 0; // sum of the arrays' full sizes (counted once)
  std::int64_t max_bytes = 0;   // of data_bytes
  std::int64_t min_bytes = 0;
  std::int64_t argmax = 0; // first position reaching max_bytes
  std::int64_t argmin = 0;
  double mean_bytes = 0.0;
};

// Accumulates arrays and spreads them over the devices. Cost: O(1) per evenly sharded array and
// per array with one uneven dimension (its held size is a step function of the block index,
// added as a difference array), O(sub-grid of the uneven axes) for arrays with several uneven
// dimensions, and O(devices) per distinct uneven axis sequence at finish().
class DeviceTotalsBuilder {
public:
  // Refuses (ValueError) meshes above 2^22 devices: per-device vectors would not fit.
  explicit DeviceTotalsBuilder(const MeshAxes& mesh);
  // Adds `count` identical arrays (count > 1 for repeated layers or optimizer copies).
  void add(const ArrayLayout& layout, std::int64_t count = 1);
  DeviceTotals finish() const;

private:
  // Per-cell sums over the sub-grid of `axes`, cell = row-major index over `axes` in this order
  // (which is the block-index order of the uneven dimensions).
  struct UnevenTable {
    std::vector<int> axes;
    std::vector<std::int64_t> bytes, elements;         // added cell by cell
    std::vector<std::int64_t> bytesDiff, elementsDiff; // difference arrays (prefix-summed at finish)
  };
  UnevenTable& tableFor(const std::vector<int>& axes);

  MeshAxes mesh_;
  std::int64_t uniform_bytes_ = 0;
  std::int64_t uniform_elements_ = 0;
  std::int64_t padded_bytes_ = 0;
  std::int64_t padded_elements_ = 0;
  std::int64_t total_bytes_ = 0;
  std::vector<UnevenTable> tables_;
};

DeviceTotals deviceTotals(const MeshAxes& mesh, std::span<const ArrayLayout> layouts);

} // namespace shardscope
