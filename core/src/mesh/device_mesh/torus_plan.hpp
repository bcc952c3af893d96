// SPDX-License-Identifier: Apache-2.0
// Internal: the whole-axis assignment as a plan (which physical axes each logical axis takes),
// separate from moving devices, so the fused fast path can place devices in one pass.
#pragma once

#include "mesh/device_mesh/device_mesh_internals.hpp"

#include <optional>

namespace shardscope::mesh_detail {

struct WholeAxisPlan {
  std::vector<int> perm;       // physical axes in output order (grouped by logical axis)
  AssignmentMatrix assignment; // [physical][logical]
};

// nullopt when a logical axis larger than 1 finds no set of free physical axes; then
// *failedAxis and *remaining (the free sizes, 0 for taken axes) describe the failure.
std::optional<WholeAxisPlan> planWholeAxisAssignment(const Shape& physicalShape, const Shape& meshShape,
                                                     std::size_t* failedAxis = nullptr, Shape* remaining = nullptr);

// The splitting search's assignment matrix alone (no devices moved). Raises the reference's
// ValueError when the sizes differ, and AssertionError for non-positive sizes.
AssignmentMatrix planSplitAssignment(const Shape& physicalShape, const Shape& meshShape);

// Where each physical coordinate goes: for an assignment matrix whose rows multiply to the
// physical sizes, tables[i][v] is the contribution of coordinate v on physical axis i to the flat
// index of the logical mesh (the same layout _generate_logical_mesh builds), so a device's cell
// is the sum over its axes.
std::vector<std::vector<int>> logicalOffsetTables(const Shape& physicalShape, const AssignmentMatrix& assignment);

} // namespace shardscope::mesh_detail
