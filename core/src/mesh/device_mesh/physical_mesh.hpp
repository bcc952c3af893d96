// SPDX-License-Identifier: Apache-2.0
// Internal: _get_physical_tpu_mesh on a device view; the grid holds view indices.
#pragma once

#include "device_view.hpp"
#include "shardscope/base/nd_array.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace shardscope::mesh_detail {

DeviceGrid physicalTpuMesh(const DeviceView& devices);

// Given the physical shape, the offset tables of each physical axis into the final array (see
// logicalOffsetTables); false to decline.
using TablesForShape = std::function<bool(const Shape& physicalShape, std::vector<std::vector<int>>& tables)>;

// One pass from devices straight to their final cells: for lists whose first and last devices are
// the bounding-box corners (jax.devices() order) and whose box has exactly one device per cell,
// the device goes to the sum of its axes' table entries; cells hold positions in the FULL list.
// nullopt whenever anything is unusual or would raise; the caller then takes the exact path,
// which reports the reference's errors.
std::optional<std::vector<int>> placeCornerOrdered(const DeviceView& devices, const TablesForShape& tables,
                                                   Shape* physicalShape);

} // namespace shardscope::mesh_detail
