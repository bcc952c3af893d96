// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>

namespace shardscope {

namespace {

IndexRange blockRange(std::int64_t size, std::int64_t tiles, std::int64_t block) {
  const std::int64_t chunk = size / tiles + (size % tiles != 0 ? 1 : 0);
  const std::int64_t start = std::min(block * chunk, size);
  return {start, start + std::min(chunk, size - start)};
}

void checkListable(std::int64_t devices, std::size_t rank) {
  if (devices * static_cast<std::int64_t>(std::max<std::size_t>(1, rank)) > kMaxHloDecodedEntries)
    throwValueError("decoding " + std::to_string(devices) + " devices x " + std::to_string(rank) +
                    " dimensions lists too many ranges (at most " + std::to_string(kMaxHloDecodedEntries) + ")");
}

HloDeviceBlock wholeArray(std::int64_t device, const Shape& shape) {
  HloDeviceBlock b{device, Shape(shape.size(), 0), {}};
  for (const auto n : shape) b.index.push_back({0, n});
  return b;
}

} // namespace

HloDecoded decodeHloSharding(const HloSharding& s, const Shape& shape, std::int64_t num_devices) {
  if (shape.size() > kMaxHloTileRank)
    throwValueError("the shape has " + std::to_string(shape.size()) + " dimensions; at most " +
                    std::to_string(kMaxHloTileRank));
  for (std::size_t i = 0; i < shape.size(); ++i)
    if (shape[i] < 0 || shape[i] > kMaxHloDimension)
      throwValueError("shape dimension " + std::to_string(i) + " must be between 0 and 2^62, got " +
                      std::to_string(shape[i]));
  if (num_devices < 0 || num_devices > kMaxHloDevices)
    throwValueError("the device count must be between 1 and " + std::to_string(kMaxHloDevices));
  HloDecoded out;
  out.tile_dims.assign(shape.size(), 1);
  switch (s.kind) {
  case HloSharding::Kind::Tuple:
    throwValueError("a tuple sharding (" + std::to_string(s.elements.size()) +
                    " elements) shards several arrays: decode one element");
  case HloSharding::Kind::Replicated:
  case HloSharding::Kind::Manual:
    if (num_devices == 0)
      throwValueError(std::string(s.kind == HloSharding::Kind::Manual ? "{manual}" : "{replicated}") +
                      " puts the whole array on every device: give the device count");
    checkListable(num_devices, shape.size());
    out.replicated_tiles = num_devices;
    for (std::int64_t d = 0; d < num_devices; ++d) out.devices.push_back(wholeArray(d, shape));
    return out;
  case HloSharding::Kind::Maximal:
    if (num_devices != 0 && s.device >= num_devices)
      throwValueError("maximal device=" + std::to_string(s.device) + " but there are " + std::to_string(num_devices) +
                      " devices");
    out.devices.push_back(wholeArray(s.device, shape));
    return out;
  case HloSharding::Kind::Tiled:
    break;
  }
  const std::size_t rank = s.dataRank();
  if (rank != shape.size())
    throwValueError("the sharding tiles " + std::to_string(rank) + " dimensions but the shape has " +
                    std::to_string(shape.size()));
  const std::int64_t tiles = s.tileCount();
  if (num_devices != 0 && tiles != num_devices)
    throwValueError("the sharding names " + std::to_string(tiles) + " devices but there are " +
                    std::to_string(num_devices));
  checkListable(tiles, rank);
  const std::vector<std::int64_t> ids = tileAssignmentDevices(s);
  for (std::size_t d = 0; d < rank; ++d) out.tile_dims[d] = s.tile_dims[d];
  out.replicated_tiles = 1;
  for (std::size_t d = rank; d < s.tile_dims.size(); ++d) out.replicated_tiles *= s.tile_dims[d];
  // Walk the tile assignment row-major with an odometer over tile_dims.
  Shape index(s.tile_dims.size(), 0);
  out.devices.reserve(ids.size());
  for (const auto id : ids) {
    if (num_devices != 0 && id >= num_devices)
      throwValueError("device " + std::to_string(id) + " is not below the device count " + std::to_string(num_devices));
    HloDeviceBlock b{id, Shape(index.begin(), index.begin() + static_cast<std::ptrdiff_t>(rank)), {}};
    for (std::size_t d = 0; d < rank; ++d) b.index.push_back(blockRange(shape[d], s.tile_dims[d], index[d]));
    out.devices.push_back(std::move(b));
    for (std::size_t d = index.size(); d-- > 0;) {
      if (++index[d] < s.tile_dims[d]) break;
      index[d] = 0;
    }
  }
  std::sort(out.devices.begin(), out.devices.end(),
            [](const HloDeviceBlock& a, const HloDeviceBlock& b) { return a.device < b.device; });
  return out;
}

HloBlocks hloShardBlocks(const HloDecoded& decoded, const Shape& shape, const DType& dtype) {
  HloBlocks out;
  ArrayLayout& l = out.layout;
  l.shape = shape;
  l.dtype = dtype;
  l.total_elements = 1;
  l.shard_elements = 1;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    DimLayout dim;
    dim.ways = decoded.tile_dims[d];
    dim.chunk = shape[d] / dim.ways + (shape[d] % dim.ways != 0 ? 1 : 0);
    dim.uneven = shape[d] % dim.ways != 0;
    l.uneven = l.uneven || dim.uneven;
    l.shards *= dim.ways;
    l.shard_shape.push_back(dim.chunk);
    if (__builtin_mul_overflow(l.total_elements, shape[d], &l.total_elements) ||
        __builtin_mul_overflow(l.shard_elements, dim.chunk, &l.shard_elements))
      throwValueError("the shape has more elements than 64 bits can count");
    l.dims.push_back(dim);
  }
  if (l.shards > kMaxShardBlocks)
    throwValueError("the array is cut into " + std::to_string(l.shards) + " blocks; at most " +
                    std::to_string(kMaxShardBlocks) + " can be listed");
  l.replication = decoded.replicated_tiles;
  l.total_bytes = dtype.bytesFor(l.total_elements);
  l.shard_bytes = dtype.bytesFor(l.shard_elements);
  out.blocks.resize(static_cast<std::size_t>(l.shards));
  for (const auto& d : decoded.devices) {
    auto& b = out.blocks[static_cast<std::size_t>(flatBlockIndex(l, d.block))];
    if (b.positions.empty()) {
      b.block = d.block;
      b.ranges = d.index;
    }
    b.positions.push_back(d.device);
  }
  return out;
}

HloSharding hloShardingOf(const ArrayLayout& layout, const MeshAxes& mesh) {
  // Mesh axes of size 1 disappear (get_non_one_sized_mesh_spec); the rest keep mesh order.
  std::vector<int> kept(mesh.rank(), -1);
  Shape reshape;
  for (std::size_t a = 0; a < mesh.rank(); ++a)
    if (mesh.sizes[a] != 1) {
      kept[a] = static_cast<int>(reshape.size());
      reshape.push_back(mesh.sizes[a]);
    }
  HloSharding s;
  std::vector<int> perm;
  std::vector<bool> used(reshape.size(), false);
  s.tile_dims.assign(layout.dims.size(), 1);
  for (std::size_t d = 0; d < layout.dims.size(); ++d)
    for (const int a : layout.dims[d].axes) {
      const int k = kept[static_cast<std::size_t>(a)];
      if (k < 0) continue;
      s.tile_dims[d] *= mesh.sizes[static_cast<std::size_t>(a)];
      perm.push_back(k);
      used[static_cast<std::size_t>(k)] = true;
    }
  if (perm.empty()) return s; // nothing cut: {replicated}
  s.kind = HloSharding::Kind::Tiled;
  std::int64_t replicated = 1;
  for (std::size_t k = 0; k < reshape.size(); ++k)
    if (!used[k]) {
      replicated *= reshape[k];
      perm.push_back(static_cast<int>(k));
    }
  if (replicated > 1) {
    s.tile_dims.push_back(replicated);
    s.subgroups = {HloSubgroup::Replicated};
    s.last_tile_dim_replicate = true;
  }
  s.iota = true;
  s.iota_tiles = canonicalIota(reshape, perm);
  return s;
}

std::string hloShardingText(const MeshAxes& mesh, const PartitionSpec& spec, std::size_t rank) {
  // Sizes of 1 divide nothing, so no uneven refusal; only the axes matter.
  const ArrayLayout layout = layoutArray(mesh, Shape(rank, 1), parseDType("float32"), spec);
  return hloShardingToString(hloShardingOf(layout, mesh));
}

std::vector<std::optional<std::string>> groupHloShardings(const ParamTable& table, const MeshAxes& mesh) {
  std::vector<std::optional<std::string>> texts(table.groups().size());
  std::vector<bool> done(texts.size(), false);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const std::uint32_t g = table.groupOf(i);
    if (done[g]) continue;
    done[g] = true;
    try {
      texts[g] = hloShardingText(mesh, table.groups()[g].spec, table[i].shape.size());
    } catch (const Error&) {}
  }
  return texts;
}

} // namespace shardscope
