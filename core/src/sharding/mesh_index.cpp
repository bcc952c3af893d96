// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/mesh_index.hpp"

#include "shardscope/mesh/axis_groups.hpp"

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
  if (!inMesh(pos) || axis < 0 || axis >= axisCount()) return -1;
  std::int64_t cell = 0; // row-major
  for (int a = 0; a < axisCount(); ++a) cell = cell * shape_[static_cast<std::size_t>(a)] + coordinate(pos, a);
  return static_cast<int>(AxisGroups(shape_, static_cast<std::size_t>(axis)).group(cell));
}

int MeshIndex::groupCount(int axis) const {
  if (axis < 0 || axis >= axisCount()) return 0;
  return static_cast<int>(AxisGroups(shape_, static_cast<std::size_t>(axis)).count());
}

std::vector<int> MeshIndex::groupMembers(int pos, int axis) const {
  std::vector<int> members;
  if (!inMesh(pos) || axis < 0 || axis >= axisCount()) return members;
  const AxisGroups along(shape_, static_cast<std::size_t>(axis));
  const std::int64_t g = groupId(pos, axis);
  for (std::int64_t k = 0; k < along.size(); ++k)
    members.push_back(gridPos_[static_cast<std::size_t>(along.cell(g, k))]);
  return members;
}

std::vector<std::vector<int>> MeshIndex::groups(int axis) const {
  std::vector<std::vector<int>> out;
  if (axis < 0 || axis >= axisCount()) return out;
  const AxisGroups along(shape_, static_cast<std::size_t>(axis));
  out.reserve(static_cast<std::size_t>(along.count()));
  for (std::int64_t g = 0; g < along.count(); ++g) {
    std::vector<int> group;
    group.reserve(static_cast<std::size_t>(along.size()));
    for (std::int64_t k = 0; k < along.size(); ++k)
      group.push_back(gridPos_[static_cast<std::size_t>(along.cell(g, k))]);
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
