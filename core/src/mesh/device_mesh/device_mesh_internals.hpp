// SPDX-License-Identifier: Apache-2.0
// The helper functions of JAX's mesh_utils, one C++ function each, exposed so tests can check
// every helper-level reference case (jax-mesh-utils spec §3.2-§3.5, golden "internal_cases"). Library users want
// device_mesh.hpp instead.
#pragma once

#include "shardscope/hardware/device.hpp"
#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::mesh_detail {

// [physical axis][logical axis] -> size of the physical axis that logical axis takes.
using AssignmentMatrix = std::vector<std::vector<std::int64_t>>;

// _get_prime_factors: trial division, ascending; 1 -> {}; x <= 0 raises AssertionError.
std::vector<std::int64_t> getPrimeFactors(std::int64_t x);

// _get_physical_tpu_mesh: positions into `devices` laid out by coordinates, offset by the minimum:
// (x, y, cores) for TPU v2/v3, (x, y, z, cores) for TPU7x/TPU7/TPU8i and 2-core v5p, else (x, y, z).
// Raises the reference's AssertionErrors (count, megacore, hole).
DeviceGrid getPhysicalTpuMesh(const DeviceList& devices);

// _transpose_trick: the table-driven axis permutation for contiguous per-host submeshes.
DeviceGrid transposeTrick(const DeviceGrid& physicalMesh, const Shape& meshShape);

struct TorusAssignment {
  DeviceGrid mesh;             // the logical mesh (entries taken from the physical mesh)
  AssignmentMatrix assignment; // [physical][logical]
  bool split = false;          // produced by the axis-splitting search
};

// _create_device_mesh_for_nd_torus: greedy whole-axis assignment, last logical axis first; with
// allowSplit a failure restarts with the splitting search, otherwise raises NotImplementedError.
TorusAssignment createDeviceMeshForNdTorus(const DeviceGrid& physicalMesh, const Shape& meshShape, bool allowSplit);

// _create_device_mesh_for_nd_torus_splitting_axes.
TorusAssignment createDeviceMeshForNdTorusSplittingAxes(const DeviceGrid& physicalMesh, const Shape& meshShape);

// _enumerate_feasible_logical_axis_assignments, as a set in ascending order. `assignedPerAxis[i]`
// is prod(A[i, :]) (how much of physical axis i earlier logical axes took).
std::vector<Shape> enumerateFeasibleLogicalAxisAssignments(const Shape& physicalShape, const Shape& assignedPerAxis,
                                                           std::int64_t logicalAxisSize);

// _prefer_first_logical_axis_assignment: key(x) > key(y) with key = (whole-axis product, number of
// whole axes > 1, product over already-used axes, the tuple itself). Ports the code, not its
// comment (jax-mesh-utils spec §9.1): overlapping already-used axes is preferred.
bool preferFirstLogicalAxisAssignment(const Shape& x, const Shape& y, const Shape& physicalShape,
                                      const Shape& assignedPerAxis);

// _generate_logical_mesh: split each physical axis i into sub-axes A[i][0..m) (logical axis 0 most
// significant), group the sub-axes by logical axis and reshape to the logical shape.
DeviceGrid generateLogicalMesh(const DeviceGrid& physicalMesh, const Shape& logicalShape,
                               const AssignmentMatrix& assignment);

// How error messages print a device: the form of the reference's fake devices, e.g.
// "MockTpuDevice(id=3, platform='tpu', device_kind='TPU v4', process_index=0, coords=(1, 0, 0), core_on_chip=0,
// slice_index=0)".
std::string referenceDeviceRepr(const Device& device);
std::string referenceDevicesRepr(const DeviceList& devices);

} // namespace shardscope::mesh_detail
