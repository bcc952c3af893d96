// SPDX-License-Identifier: Apache-2.0
// The named axes of a logical mesh without its devices: what sharding rules and shard shapes
// need. A full `Mesh` (mesh.hpp) converts to this; the device grid only matters for mapping a
// grid position (row-major over the axes) to a device id.
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/mesh/named_mesh.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct MeshAxes {
  std::vector<std::string> names;
  std::vector<std::int64_t> sizes;

  MeshAxes() = default;
  // Validates: names unique, sizes >= 1, device count representable. Throws ValueError.
  MeshAxes(std::vector<std::string> axisNames, std::vector<std::int64_t> axisSizes);
  static MeshAxes fromMesh(const Mesh& mesh);
  // [[name, size], ...]; `what` names the field in messages.
  static MeshAxes fromJson(const Json& value, std::string_view what = "mesh_axes");

  std::size_t rank() const { return names.size(); }
  // JAX calls a mesh without axes "empty" (a 0-d device array): eformer treats it as no mesh.
  bool empty() const { return names.empty(); }
  int index(std::string_view name) const;         // -1 when absent
  std::int64_t size(std::string_view name) const; // 0 when absent
  std::int64_t deviceCount() const;
  // Row-major strides of grid positions (last axis fastest), one per axis.
  std::vector<std::int64_t> strides() const;
  // "{'dp': 2, 'tp': 4}" as Python prints mesh.shape, for messages.
  std::string describe() const;
};

} // namespace shardscope
