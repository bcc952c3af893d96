// SPDX-License-Identifier: Apache-2.0
// _transpose_trick (jax-mesh-utils spec §3.3): for the few (topology, mesh) pairs in the reference's table, swap
// physical y and z so every host's 2x2x1 block becomes a contiguous sub-block of the logical mesh.
#include "mesh/device_mesh/device_mesh_internals.hpp"

#include "grid_ops.hpp"
#include "shardscope/base/errors.hpp"

#include <array>

namespace shardscope::mesh_detail {

namespace {

struct MeshTrick {
  std::array<std::int64_t, 2> meshShape;
  std::array<int, 3> perm;
};
struct TopologyTricks {
  std::array<std::int64_t, 3> topology;
  std::vector<MeshTrick> tricks; // in the reference's insertion order (the error lists them so)
};

const std::vector<TopologyTricks>& trickTable() {
  static const std::vector<TopologyTricks> table = {
      {{2, 2, 1}, {{{2, 2}, {0, 1, 2}}}},  {{2, 2, 4}, {{{4, 4}, {0, 1, 2}}}},
      {{4, 4, 4}, {{{16, 4}, {0, 2, 1}}}}, {{4, 8, 8}, {{{64, 4}, {0, 2, 1}}, {{4, 64}, {0, 2, 1}}}},
      {{8, 8, 8}, {{{64, 8}, {0, 2, 1}}}}, {{8, 16, 16}, {{{256, 8}, {0, 2, 1}}, {{8, 256}, {0, 2, 1}}}},
  };
  return table;
}

} // namespace

DeviceGrid transposeTrick(const DeviceGrid& physicalMesh, const Shape& meshShape) {
  const Shape& topology = physicalMesh.shape();
  const TopologyTricks* entry = nullptr;
  for (const auto& t : trickTable())
    if (topology.size() == 3 && std::equal(t.topology.begin(), t.topology.end(), topology.begin())) entry = &t;
  if (!entry)
    throwValueError("create_device_mesh cannot create contiguous submeshes for physical mesh topology " +
                    shapeRepr(topology));
  Shape squeezed;
  for (auto d : meshShape)
    if (d != 1) squeezed.push_back(d);
  for (const auto& trick : entry->tricks)
    if (squeezed.size() == 2 && squeezed[0] == trick.meshShape[0] && squeezed[1] == trick.meshShape[1])
      return fastTranspose(physicalMesh, trick.perm);
  std::string available = "[";
  for (std::size_t k = 0; k < entry->tricks.size(); ++k) {
    if (k) available += ", ";
    available += shapeRepr(Shape(entry->tricks[k].meshShape.begin(), entry->tricks[k].meshShape.end()));
  }
  available += "]";
  throwValueError("create_device_mesh cannot create contiguous submeshes for mesh_shape " + shapeRepr(meshShape) +
                  " and physical mesh topology " + shapeRepr(topology) + ". Available mesh_shapes: " + available);
}

} // namespace shardscope::mesh_detail
