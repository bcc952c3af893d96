// SPDX-License-Identifier: Apache-2.0
// Internal: the built-in device-kind handlers of JAX's mesh_utils (jax-mesh-utils spec §3.1).
#pragma once

#include "shardscope/mesh/device_mesh.hpp"

namespace shardscope::mesh_detail {

std::optional<DeviceGrid> tpuV2V3Handler(const Shape& meshShape, const DeviceList& devices,
                                         const CreateMeshOptions& options);
std::optional<DeviceGrid> v4iV8iHandler(const Shape& meshShape, const DeviceList& devices,
                                        const CreateMeshOptions& options);
std::optional<DeviceGrid> v5eHandler(const Shape& meshShape, const DeviceList& devices,
                                     const CreateMeshOptions& options);
std::optional<DeviceGrid> v5pHandler(const Shape& meshShape, const DeviceList& devices,
                                     const CreateMeshOptions& options);
std::optional<DeviceGrid> tpu7xHandler(const Shape& meshShape, const DeviceList& devices,
                                       const CreateMeshOptions& options);

} // namespace shardscope::mesh_detail
