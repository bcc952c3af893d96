// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/mesh_index.hpp"

#include <algorithm>

namespace shardscope {

MeshIndex::MeshIndex(const Mesh& mesh)
    : deviceCount_(static_cast<int>(mesh.devices.size())), shape_(mesh.shape()), names_(mesh.axis_names) {
  const std::size_t nd = shape_.size();
  coords_.assign(static_cast<std::size_t>(deviceCount_) * nd, -1);
  gridPos_ = mesh.grid.data();
  std::vector<int> idx(nd, 0);
  for (std::size_t flat = 0; flat < gridPos_.size(); ++flat) {
    const int pos = gridPos_[flat];
    if (pos >= 0 && pos < deviceCount_)
      for (std::size_t a = 0; a < nd; ++a) coords_[static_cast<std::size_t>(pos) * nd + a] = idx[a];
    for (std::size_t a = nd; a-- > 0;) {
      if (++idx[a] < shape_[a]) break;
      idx[a] = 0;
    }
  }
}

int MeshIndex::axisIndex(const std::string& name) const {
  const auto it = std::find(names_.begin(), names_.end(), name);
  return it == names_.end() ? -1 : static_cast<int>(it - names_.begin());
}

bool MeshIndex::inMesh(int pos) const {
  return pos >= 0 && pos < deviceCount_ &&
         (shape_.empty() || coords_[static_cast<std::size_t>(pos) * shape_.size()] >= 0);
}

int MeshIndex::coordinate(int pos, int axis) const {
  if (pos < 0 || pos >= deviceCount_ || axis < 0 || axis >= axisCount()) return -1;
  return coords_[static_cast<std::size_t>(pos) * shape_.size() + static_cast<std::size_t>(axis)];
}

int MeshIndex::groupId(int pos, int axis) const {
  if (!inMesh(pos)) return -1;
  int id = 0;
  for (int a = 0; a < axisCount(); ++a) {
    if (a == axis) continue;
    id = id * static_cast<int>(shape_[static_cast<std::size_t>(a)]) + coordinate(pos, a);
  }
  return id;
}

int MeshIndex::groupCount(int axis) const {
  std::int64_t n = 1;
  for (int a = 0; a < axisCount(); ++a)
    if (a != axis) n *= shape_[static_cast<std::size_t>(a)];
  return static_cast<int>(n);
}

std::vector<int> MeshIndex::groupMembers(int pos, int axis) const {
  std::vector<int> members;
  if (!inMesh(pos) || axis < 0 || axis >= axisCount()) return members;
  // Row-major: flat = sum(coord[a] * stride[a]); members vary only the coordinate on `axis`.
  const std::size_t nd = shape_.size();
  std::vector<std::int64_t> stride(nd, 1);
  for (std::size_t a = nd; a-- > 1;) stride[a - 1] = stride[a] * shape_[a];
  std::int64_t base = 0;
  for (std::size_t a = 0; a < nd; ++a)
    if (static_cast<int>(a) != axis) base += stride[a] * coordinate(pos, static_cast<int>(a));
  const auto ax = static_cast<std::size_t>(axis);
  for (std::int64_t k = 0; k < shape_[ax]; ++k)
    members.push_back(gridPos_[static_cast<std::size_t>(base + k * stride[ax])]);
  return members;
}

std::vector<std::vector<int>> MeshIndex::groups(int axis) const {
  std::vector<std::vector<int>> out;
  if (axis < 0 || axis >= axisCount()) return out;
  // Row-major: the axis' stride is the product of the later extents; the groups run over the
  // earlier (outer) and later (inner) coordinates in order, which is groupId's order.
  const auto ax = static_cast<std::size_t>(axis);
  const std::int64_t size = shape_[ax];
  std::int64_t inner = 1;
  for (std::size_t a = ax + 1; a < shape_.size(); ++a) inner *= shape_[a];
  const std::int64_t outer = size * inner > 0 ? static_cast<std::int64_t>(gridPos_.size()) / (size * inner) : 0;
  out.reserve(static_cast<std::size_t>(outer * inner));
  for (std::int64_t o = 0; o < outer; ++o)
    for (std::int64_t i = 0; i < inner; ++i) {
      std::vector<int> group;
      group.reserve(static_cast<std::size_t>(size));
      for (std::int64_t k = 0; k < size; ++k)
        group.push_back(gridPos_[static_cast<std::size_t>((o * size + k) * inner + i)]);
      out.push_back(std::move(group));
    }
  return out;
}

int MeshIndex::shardId(int pos, const PartitionSpec& spec) const {
  if (!inMesh(pos)) return -1;
  int id = 0;
  for (const auto& entry : spec.entries())
    for (const auto& name : entry.members) {
      const int a = name ? axisIndex(*name) : -1;
      if (a < 0) continue;
      id = id * static_cast<int>(shape_[static_cast<std::size_t>(a)]) + coordinate(pos, a);
    }
  return id;
}

int MeshIndex::shardCount(const PartitionSpec& spec) const {
  int n = 1;
  for (const auto& entry : spec.entries())
    for (const auto& name : entry.members) {
      const int a = name ? axisIndex(*name) : -1;
      if (a >= 0) n *= static_cast<int>(shape_[static_cast<std::size_t>(a)]);
    }
  return n;
}

} // namespace shardscope
