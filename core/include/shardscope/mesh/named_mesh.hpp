// SPDX-License-Identifier: Apache-2.0
// A named logical mesh: a device grid plus one name and one axis type per dimension (JAX's Mesh).
#pragma once

#include "shardscope/base/enum_names.hpp"
#include "shardscope/hardware/device.hpp"
#include "shardscope/base/nd_array.hpp"

#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

enum class AxisType { Auto = 1, Explicit = 2, Manual = 3 };
inline constexpr std::array<std::pair<std::string_view, AxisType>, 3> kAxisTypeNames{{
    {"Auto", AxisType::Auto},
    {"Explicit", AxisType::Explicit},
    {"Manual", AxisType::Manual},
}};
std::string_view axisTypeName(AxisType type); // the name in kAxisTypeNames
std::optional<AxisType> parseAxisType(std::string_view name);

struct Mesh {
  DeviceList devices; // the devices the grid points into
  DeviceGrid grid;    // positions into `devices`, one dimension per axis
  std::vector<std::string> axis_names;
  std::vector<AxisType> axis_types;

  const Shape& shape() const { return grid.shape(); }
  // Index of an axis by name, or -1.
  int axisIndex(std::string_view name) const;
  std::int64_t axisSize(std::string_view name) const; // 0 when absent
  // The grid with device ids instead of list positions.
  NdArray<std::int64_t> deviceIds() const;
};

} // namespace shardscope
