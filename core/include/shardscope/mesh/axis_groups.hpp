// SPDX-License-Identifier: Apache-2.0
// The groups of one axis of a row-major grid: the cells that share every coordinate but the axis',
// each ordered by its coordinate on the axis. These are the device sets of the axis' collectives
// (a named mesh's grid), the rings the axis report routes, and jaxpp's MPMD groups. Group g holds
// the cells first(g) + k * stride() for k < size(); groups run over the earlier (outer) and the
// later (inner) coordinates in row-major order. The one place the axis' strides are worked out.
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <cstddef>
#include <cstdint>

namespace shardscope {

class AxisGroups {
public:
  AxisGroups(const Shape& shape, std::size_t axis) {
    if (axis >= shape.size()) {
      outer_ = 0; // no groups
      return;
    }
    size_ = shape[axis];
    for (std::size_t a = 0; a < axis; ++a) outer_ *= shape[a];
    for (std::size_t a = axis + 1; a < shape.size(); ++a) inner_ *= shape[a];
  }

  std::int64_t count() const { return outer_ * inner_; } // groups
  std::int64_t size() const { return size_; }            // members of each: the axis' extent
  std::int64_t stride() const { return inner_; }         // cells between consecutive members
  std::int64_t outer() const { return outer_; }          // extent of the coordinates before the axis
  // The first member's cell of group `g` (g < count()).
  std::int64_t first(std::int64_t g) const { return (g / inner_) * size_ * inner_ + g % inner_; }
  // The cell of member `k` of group `g`.
  std::int64_t cell(std::int64_t g, std::int64_t k) const { return first(g) + k * inner_; }
  // A cell's coordinate on the axis, and its group.
  std::int64_t coordinate(std::int64_t cell) const { return (cell / inner_) % size_; }
  std::int64_t group(std::int64_t cell) const { return cell / (size_ * inner_) * inner_ + cell % inner_; }

private:
  std::int64_t size_ = 0, outer_ = 1, inner_ = 1;
};

} // namespace shardscope
