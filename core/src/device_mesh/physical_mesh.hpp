// Internal: _get_physical_tpu_mesh on a device view; the grid holds view indices.
#pragma once

#include "device_view.hpp"
#include "shardscope/nd_array.hpp"

#include <functional>
#include <optional>
#include <vector>

namespace shardscope::mesh_detail {

DeviceGrid physicalTpuMesh(const DeviceView& devices);

// Given the physical shape, the stride in the final array of each physical axis (nullopt: decline).
using StridesForShape = std::function<std::optional<Shape>(const Shape& physicalShape)>;

// One pass from devices straight to their final cells: for lists whose first and last devices are
// the bounding-box corners (jax.devices() order) and whose box has exactly one device per cell,
// device view index k goes to sum(coordinate offset * stride). nullopt whenever anything is unusual
// or would raise; the caller then takes the exact path, which reports the reference's errors.
std::optional<std::vector<int>> placeCornerOrdered(const DeviceView& devices, const StridesForShape& strides, Shape* physicalShape);

} // namespace shardscope::mesh_detail
