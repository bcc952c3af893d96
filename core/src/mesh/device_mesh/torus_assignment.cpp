// SPDX-License-Identifier: Apache-2.0
// _create_device_mesh_for_nd_torus: the greedy whole-axis assignment (jax-mesh-utils spec §3.4). Logical axes are
// served from the last (most network-intensive) to the first; each takes the largest set of still
// free physical axes, in itertools.combinations order, whose sizes multiply to its size.
#include "mesh/device_mesh/device_mesh_internals.hpp"

#include "grid_ops.hpp"
#include "torus_plan.hpp"
#include "shardscope/base/errors.hpp"

namespace shardscope::mesh_detail {

namespace {

// The first k-combination (ascending indices, lexicographic order) of free axes whose product is
// `size`; used axes count as size 0, as the reference zeroes them. Returns a bit mask, 0 if none.
unsigned findCombination(const Shape& avail, std::size_t k, std::int64_t size) {
  const std::size_t n = avail.size();
  std::vector<std::size_t> idx(k);
  for (std::size_t j = 0; j < k; ++j) idx[j] = j;
  for (;;) {
    std::int64_t product = 1;
    for (std::size_t j : idx) product *= avail[j];
    if (product == size) {
      unsigned mask = 0;
      for (std::size_t j : idx) mask |= 1u << j;
      return mask;
    }
    // Next combination in lexicographic order.
    std::size_t j = k;
    while (j > 0 && idx[j - 1] == n - k + (j - 1)) --j;
    if (j == 0) return 0;
    ++idx[j - 1];
    for (std::size_t t = j; t < k; ++t) idx[t] = idx[t - 1] + 1;
  }
}

std::string listText(const Shape& values) { return listRepr(values); }

} // namespace

std::optional<WholeAxisPlan> planWholeAxisAssignment(const Shape& physical, const Shape& meshShape,
                                                     std::size_t* failedAxis, Shape* remaining) {
  const std::size_t n = physical.size();
  if (n > 30) throwValueError("physical mesh has too many dimensions");
  Shape avail = physical;
  std::vector<unsigned> taken(meshShape.size(), 0);
  for (std::size_t li = meshShape.size(); li-- > 0;) {
    const std::int64_t size = meshShape[li];
    unsigned mask = 0;
    for (std::size_t k = n; k >= 1 && !mask; --k) mask = findCombination(avail, k, size);
    if (mask) {
      taken[li] = mask;
      for (std::size_t i = 0; i < n; ++i)
        if (mask & (1u << i)) avail[i] = 0;
    } else if (size > 1) {
      if (failedAxis) *failedAxis = li;
      if (remaining) *remaining = avail;
      return std::nullopt;
    }
  }
  // Physical axes grouped by logical axis, ascending inside each group.
  WholeAxisPlan plan;
  plan.perm.reserve(n);
  plan.assignment.assign(n, std::vector<std::int64_t>(meshShape.size(), 1));
  for (std::size_t li = 0; li < meshShape.size(); ++li)
    for (std::size_t i = 0; i < n; ++i)
      if (taken[li] & (1u << i)) {
        plan.perm.push_back(static_cast<int>(i));
        plan.assignment[i][li] = physical[i];
      }
  return plan;
}

TorusAssignment createDeviceMeshForNdTorus(const DeviceGrid& physicalMesh, const Shape& meshShape, bool allowSplit) {
  std::size_t failed = 0;
  Shape avail;
  auto plan = planWholeAxisAssignment(physicalMesh.shape(), meshShape, &failed, &avail);
  if (!plan) {
    if (!allowSplit)
      throwNotImplemented(
          "Failed to find assignment for logical_axis_index " + std::to_string(failed) + " of size " +
          std::to_string(meshShape[failed]) + " with remaining assignable mesh " + listText(avail) +
          ". The size of each axis in your logical mesh must be equal to the product of some subset of the physical "
          "mesh axis sizes. E.g. logical mesh (4, 16) is compatible with physical mesh 4x4x4 since 4=4 and 16=4x4. If "
          "you want to split physical axes, set  allow_split_physical_axes to True.");
    // A complete restart with the other algorithm, not a continuation (§9.7).
    return createDeviceMeshForNdTorusSplittingAxes(physicalMesh, meshShape);
  }
  TorusAssignment out;
  out.assignment = std::move(plan->assignment);
  // An incomplete permutation (e.g. mesh_shape () on one device) fails in numpy's transpose.
  out.mesh = reshaped(fastTranspose(physicalMesh, plan->perm), meshShape);
  return out;
}

} // namespace shardscope::mesh_detail
