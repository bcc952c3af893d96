// Internal: the whole-axis assignment as a plan (which physical axes each logical axis takes),
// separate from moving devices, so the fused fast path can place devices in one pass.
#pragma once

#include "shardscope/device_mesh_internals.hpp"

#include <optional>

namespace shardscope::mesh_detail {

struct WholeAxisPlan {
  std::vector<int> perm;        // physical axes in output order (grouped by logical axis)
  AssignmentMatrix assignment;  // [physical][logical]
};

// nullopt when a logical axis larger than 1 finds no set of free physical axes; then
// *failedAxis and *remaining (the free sizes, 0 for taken axes) describe the failure.
std::optional<WholeAxisPlan> planWholeAxisAssignment(const Shape& physicalShape, const Shape& meshShape, std::size_t* failedAxis = nullptr,
                                                     Shape* remaining = nullptr);

} // namespace shardscope::mesh_detail
