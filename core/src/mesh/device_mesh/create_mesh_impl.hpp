// SPDX-License-Identifier: Apache-2.0
// Internal: create_device_mesh on a device view, shared by the public call and the hybrid mesh.
#pragma once

#include "device_view.hpp"
#include "shardscope/mesh/device_mesh.hpp"

namespace shardscope::mesh_detail {

// Grid positions index view.all (the full list), not the view.
MeshPlacement createDeviceMeshOnView(const Shape& meshShape, const DeviceView& devices,
                                     const CreateMeshOptions& options);

// "Number of devices N must equal the product of mesh_shape (..)" unless the product matches.
void checkDeviceCount(const Shape& meshShape, std::size_t deviceCount);

// The raw-shape canonicalization with create_device_mesh's error text.
Shape canonicalMeshShape(const PyValue& raw);

} // namespace shardscope::mesh_detail
