// SPDX-License-Identifier: Apache-2.0
// What an HLO sharding string means on a mesh: the tile assignment read along each data dimension
// is a set of device groups (one per index of the other tile dimensions); the axes those groups
// span, in the order the tile assignment lists them, cut that dimension. This reads back what JAX
// lowers a NamedSharding to (hlo_sharding_blocks.hpp) and XLA's import of GSPMD shardings into
// Shardy meshes (xla/service/spmd/shardy/test/import_shardings.mlir).
#include "shardscope/inspect/collective_axes.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>

namespace shardscope {

std::vector<std::string> meshPartsLeft(const InspectMesh& mesh, std::vector<MeshAxisPart> used) {
  std::sort(used.begin(), used.end(), [](const MeshAxisPart& a, const MeshAxisPart& b) {
    return a.axis != b.axis ? a.axis < b.axis : a.pre_size < b.pre_size;
  });
  std::vector<std::string> out;
  std::size_t u = 0;
  for (std::size_t k = 0; k < mesh.axes.size(); ++k) {
    const std::int64_t n = mesh.axes[k].size;
    std::int64_t covered = 1; // the multiplicative range [1, covered) of axis k is used
    const auto gap = [&](std::int64_t lo, std::int64_t hi) {
      if (hi > lo) out.push_back(meshAxisPartName(mesh, {k, lo, hi / lo}));
    };
    for (; u < used.size() && used[u].axis == k; ++u) {
      const std::int64_t lo = used[u].pre_size, hi = used[u].pre_size * used[u].size;
      if (lo < covered) throwValueError("axis '" + mesh.axes[k].name + "' is used twice");
      if (n > 1) gap(covered, lo);
      covered = hi;
    }
    if (n > 1) gap(covered, n);
  }
  return out;
}

namespace {

// The groups of devices along tile dimension `dim` (one per index of the other dimensions).
DeviceGroups groupsAlong(const std::vector<std::int64_t>& ids, const Shape& tileDims, std::size_t dim) {
  std::int64_t stride = 1;
  for (std::size_t i = dim + 1; i < tileDims.size(); ++i) stride *= tileDims[i];
  const std::int64_t t = tileDims[dim];
  DeviceGroups g;
  g.group_size = t;
  g.ids.reserve(ids.size());
  for (std::int64_t lin = 0; lin < std::int64_t(ids.size()); ++lin) {
    if ((lin / stride) % t != 0) continue;
    for (std::int64_t j = 0; j < t; ++j) g.ids.push_back(ids[std::size_t(lin + j * stride)]);
  }
  return g;
}

HloShardingSpec unknownSpec(std::string note) {
  HloShardingSpec s;
  s.note = std::move(note);
  return s;
}

} // namespace

HloShardingSpec hloShardingSpec(const HloSharding& s, std::size_t rank, const InspectMesh& mesh) {
  using Kind = HloSharding::Kind;
  HloShardingSpec out;
  switch (s.kind) {
  case Kind::Tuple:
    return unknownSpec("a tuple sharding on one array");
  case Kind::Manual:
    return unknownSpec("manual (inside shard_map): the shape is already per device");
  case Kind::Replicated:
    out.spec = std::vector<std::vector<std::string>>(rank);
    out.replicated_axes = meshPartsLeft(mesh, {});
    return out;
  case Kind::Maximal:
    out.spec = std::vector<std::vector<std::string>>(rank);
    out.note = "the whole array on device " + std::to_string(s.device);
    return out;
  case Kind::Tiled:
    break;
  }
  if (s.dataRank() != rank)
    return unknownSpec("the sharding tiles " + std::to_string(s.dataRank()) + " dimensions of a rank-" +
                       std::to_string(rank) + " array");
  if (s.tileCount() != mesh.deviceCount())
    return unknownSpec("the sharding names " + std::to_string(s.tileCount()) + " devices, the mesh has " +
                       std::to_string(mesh.deviceCount()));
  const std::vector<std::int64_t> ids = tileAssignmentDevices(s);
  std::vector<MeshAxisPart> used;
  std::vector<std::vector<std::string>> spec(rank);
  std::string manual;
  for (std::size_t d = 0; d < s.tile_dims.size(); ++d) {
    const bool subgroup = d >= rank;
    if (s.tile_dims[d] == 1 || (subgroup && s.subgroups[d - rank] == HloSubgroup::Replicated)) continue;
    const GroupSpan span = spanOfGroups(groupsAlong(ids, s.tile_dims, d), mesh);
    if (span.fit == GroupSpan::Fit::NoFit)
      return unknownSpec("the tile assignment fits no order of the mesh: " + span.why);
    for (const auto& p : span.major_to_minor) {
      used.push_back(p);
      if (subgroup)
        manual += (manual.empty() ? "" : ", ") + meshAxisPartName(mesh, p);
      else
        spec[d].push_back(meshAxisPartName(mesh, p));
    }
  }
  out.spec = std::move(spec);
  out.replicated_axes = meshPartsLeft(mesh, used);
  if (!manual.empty()) out.note = "manual along " + manual;
  return out;
}

} // namespace shardscope
