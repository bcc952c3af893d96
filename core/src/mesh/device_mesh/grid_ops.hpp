// SPDX-License-Identifier: Apache-2.0
// Internal: numpy-like moves of device grids without copying the data twice.
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <algorithm>
#include <span>
#include <utility>
#include <vector>

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

namespace shardscope::mesh_detail {

// numpy's transpose(perm) followed by a copy, tuned for device grids: size-1 axes are dropped and
// output axes that stay adjacent in the source are merged, so the common cases become one strided
// loop (often a plain copy). Same result and errors as NdArray::transpose.
// `data` is read as a row-major array of `shape` (a view: no copy is made to reinterpret it).
inline DeviceGrid fastTranspose(const Shape& shape, const std::vector<int>& data, std::span<const int> perm) {
  const std::size_t n = shape.size();
  if (perm.size() != n) throwValueError("axes don't match array");
  std::vector<bool> seen(n, false);
  for (int p : perm) {
    if (p < 0 || static_cast<std::size_t>(p) >= n || seen[static_cast<std::size_t>(p)])
      throwValueError("axes don't match array");
    seen[static_cast<std::size_t>(p)] = true;
  }
  Shape srcStrides(n, 1);
  for (std::size_t i = n; i-- > 1;) srcStrides[i - 1] = srcStrides[i] * shape[i];
  Shape outShape(n);
  // (size, source stride) per output axis, without size-1 axes, merged where contiguous.
  std::vector<std::pair<std::int64_t, std::int64_t>> loops;
  for (std::size_t k = 0; k < n; ++k) {
    const auto axis = static_cast<std::size_t>(perm[k]);
    outShape[k] = shape[axis];
    if (shape[axis] == 1) continue;
    if (!loops.empty() && loops.back().second == srcStrides[axis] * shape[axis]) {
      loops.back() = {loops.back().first * shape[axis], srcStrides[axis]};
    } else {
      loops.push_back({shape[axis], srcStrides[axis]});
    }
  }
  const auto& src = data;
  std::vector<int> out(src.size());
  if (src.empty()) return DeviceGrid(std::move(outShape), std::move(out));
  if (loops.empty() || (loops.size() == 1 && loops[0].second == 1)) {
    std::copy(src.begin(), src.end(), out.begin());
    return DeviceGrid(std::move(outShape), std::move(out));
  }
  // Odometer over the outer loops; the innermost loop is a tight strided copy.
  const std::size_t outer = loops.size() - 1;
  const auto [innerSize, innerStride] = loops.back();
  std::vector<std::int64_t> idx(outer, 0);
  std::int64_t base = 0;
  int* dst = out.data();
  const int* s = src.data();
  for (;;) {
    for (std::int64_t i = 0, off = base; i < innerSize; ++i, off += innerStride) *dst++ = s[off];
    std::size_t k = outer;
    while (k > 0) {
      --k;
      if (++idx[k] < loops[k].first) {
        base += loops[k].second;
        break;
      }
      base -= loops[k].second * (loops[k].first - 1);
      idx[k] = 0;
      if (k == 0) return DeviceGrid(std::move(outShape), std::move(out));
    }
    if (outer == 0) break;
  }
  return DeviceGrid(std::move(outShape), std::move(out));
}

} // namespace shardscope::mesh_detail

namespace shardscope::mesh_detail {

inline DeviceGrid fastTranspose(const DeviceGrid& grid, std::span<const int> perm) {
  return fastTranspose(grid.shape(), grid.data(), perm);
}

} // namespace shardscope::mesh_detail
