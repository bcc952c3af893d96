// SPDX-License-Identifier: Apache-2.0
// Which mesh axes a collective's device groups span, and which axes cut each dimension of an HLO
// sharding. The rule: device id i sits at the mesh position InspectMesh gives it (position i for an
// iota mesh: row-major over the axes, as jax.sharding.Mesh lists its devices). A group set spans
// axes A when its groups are exactly the sets of devices that vary along A with every other
// coordinate fixed. Groups that vary only part of an axis span a sub-axis "x:(m)k" (Shardy's
// notation: axis x of size n seen as [m, k, n/(m*k)], the middle factor). Groups that are no such
// product fit no order of the mesh (for example [3,10]<=[6,5]T(1,0) on a 6x5 mesh).
//
// Example on mesh data=2, model=4 (device d = 4*data + model): {{0,1,2,3},{4,5,6,7}} spans model;
// [4,2]<=[2,4]T(1,0) = {{0,4},{1,5},{2,6},{3,7}} spans data; {{0,1},{2,3},{4,5},{6,7}} spans the
// sub-axis model:(2)2 (the minor factor 2 of model); {} spans data and model.
#pragma once

#include "shardscope/inspect/inspect_mesh.hpp"
#include "shardscope/inspect/replica_groups.hpp"
#include "shardscope/sharding/hlo_sharding.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// Axis `axis` of a mesh, or its sub-axis (pre_size, size); the whole axis when size == its size.
struct MeshAxisPart {
  std::size_t axis = 0;
  std::int64_t pre_size = 1;
  std::int64_t size = 1;
  bool operator==(const MeshAxisPart&) const = default;
};
// "model" for a whole axis, "model:(2)2" for a sub-axis.
std::string meshAxisPartName(const InspectMesh& mesh, const MeshAxisPart& part);
// The parts of every mesh axis of size > 1 that no part of `used` covers, named, in mesh order
// (the axes along which an array is replicated). Throws ValueError when two used parts overlap.
std::vector<std::string> meshPartsLeft(const InspectMesh& mesh, std::vector<MeshAxisPart> used);

struct GroupSpan {
  enum class Fit { Axes, SubAxes, NoFit };
  Fit fit = Fit::NoFit;
  std::vector<MeshAxisPart> parts;          // mesh order (axis, then major first)
  std::vector<MeshAxisPart> major_to_minor; // as the members of each group are listed
  std::string why;                          // NoFit: what does not match
};

// The span of `groups` on `mesh` (`{}`, all devices, spans every axis of size > 1). The groups must
// cover the mesh's devices, each once, in groups of one size.
GroupSpan spanOfGroups(const DeviceGroups& groups, const InspectMesh& mesh);
// The whole axes a span covers, in mesh order; nullopt for sub-axes or no fit.
std::optional<std::vector<std::string>> spannedAxes(const GroupSpan& span, const InspectMesh& mesh);
// Why a span has no axes, for a collective's note ("" for whole axes).
std::string spanNote(const GroupSpan& span, const InspectMesh& mesh);

// An order of the mesh's axes under which `groups` span whole axes, when the mesh's own order does
// not (meshes of up to 6 axes, iota device order): the axis indices in that order; nullopt if none.
std::optional<std::vector<std::size_t>> fittingAxisOrder(const DeviceGroups& groups, const InspectMesh& mesh);

// The axes whose coordinate a collective-permute's pairs change, in mesh order (pairs of ids
// outside the mesh: nullopt).
std::optional<std::vector<std::string>> permuteAxes(const std::vector<SourceTargetPair>& pairs,
                                                    const InspectMesh& mesh);

// What an HLO sharding means on a mesh: per data dimension the (sub-)axes that cut it, major first,
// and the (sub-)axes every device holds the same block along. nullopt spec with a note when the
// tile assignment fits no order of the mesh or names other devices.
struct HloShardingSpec {
  std::optional<std::vector<std::vector<std::string>>> spec;
  std::vector<std::string> replicated_axes;
  std::string note;
};
HloShardingSpec hloShardingSpec(const HloSharding& sharding, std::size_t rank, const InspectMesh& mesh);

} // namespace shardscope
