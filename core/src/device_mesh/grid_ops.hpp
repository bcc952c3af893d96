// Internal: numpy-like moves of device grids without copying the data twice.
#pragma once

#include "shardscope/nd_array.hpp"

namespace shardscope::mesh_detail {

// numpy's reshape on an array we own: same message on a size mismatch, no copy.
inline DeviceGrid reshaped(DeviceGrid&& grid, Shape shape) {
  int unknown = 0;
  for (auto d : shape) unknown += d < 0;
  if (unknown > 1) throwValueError("can only specify one unknown dimension");
  if (shapeSize(shape) != static_cast<std::int64_t>(grid.size()))
    throwValueError("cannot reshape array of size " + std::to_string(grid.size()) + " into shape " + shapeRepr(shape));
  return DeviceGrid(std::move(shape), std::move(grid.data()));
}

// Entries of `grid` at the positions `order` (numpy's a.reshape(-1)[order]), reshaped.
inline DeviceGrid gathered(const std::vector<int>& flat, const int* order, std::size_t count, Shape shape) {
  std::vector<int> out(count);
  for (std::size_t k = 0; k < count; ++k) out[k] = flat[static_cast<std::size_t>(order[k])];
  return reshaped(DeviceGrid({static_cast<std::int64_t>(count)}, std::move(out)), std::move(shape));
}

} // namespace shardscope::mesh_detail
