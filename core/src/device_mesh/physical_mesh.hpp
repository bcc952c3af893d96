// Internal: _get_physical_tpu_mesh on a device view; the grid holds view indices.
#pragma once

#include "device_view.hpp"
#include "shardscope/nd_array.hpp"

namespace shardscope::mesh_detail {

DeviceGrid physicalTpuMesh(const DeviceView& devices);

} // namespace shardscope::mesh_detail
