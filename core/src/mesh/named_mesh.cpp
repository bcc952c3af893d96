// SPDX-License-Identifier: Apache-2.0
#include "shardscope/mesh/named_mesh.hpp"

namespace shardscope {

std::string_view axisTypeName(AxisType type) { return nameOf(type, kAxisTypeNames); }

std::optional<AxisType> parseAxisType(std::string_view name) { return parseName(name, kAxisTypeNames); }

int Mesh::axisIndex(std::string_view name) const {
  for (std::size_t i = 0; i < axis_names.size(); ++i)
    if (axis_names[i] == name) return static_cast<int>(i);
  return -1;
}

std::int64_t Mesh::axisSize(std::string_view name) const {
  const int i = axisIndex(name);
  return i < 0 ? 0 : grid.shape()[static_cast<std::size_t>(i)];
}

NdArray<std::int64_t> Mesh::deviceIds() const {
  return grid.map([this](int pos) { return devices[static_cast<std::size_t>(pos)].id; });
}

} // namespace shardscope
