// SPDX-License-Identifier: Apache-2.0
// The mesh the inspect readers map device groups and shardings onto: axis names and sizes, and
// optionally the device order. It is what a Shardy `sdy.mesh @name = <["data"=4, "model"=2],
// device_ids=[...]>` says, and what the caller gives for HLO text (`--mesh data:4,model:2`).
//
// Device order: mesh position p (row-major over the axes, the first axis most major, as
// jax.sharding.Mesh lists mesh.devices.flat) holds device device_ids[p], or device p when
// device_ids is empty (iota, the common case; Shardy omits iota ids). The ids a collective's
// replica groups and an HLO sharding's tile assignment name are these device ids: for a JAX
// program, partition ids = positions in the compiled device assignment = the mesh's order.
#pragma once

#include "shardscope/mesh/mesh_axes.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

// At most this many devices in an inspected mesh or one collective's groups (2^24).
inline constexpr std::int64_t kMaxInspectDevices = std::int64_t{1} << 24;

struct InspectAxis {
  std::string name;
  std::int64_t size = 1;
  bool operator==(const InspectAxis&) const = default;
};

struct InspectMesh {
  std::string name;                     // "mesh" for `sdy.mesh @mesh`; "" for the caller's mesh
  std::vector<InspectAxis> axes;        // major to minor
  std::vector<std::int64_t> device_ids; // device at each position; empty: iota

  // Shardy's two special meshes: `<[]>` (empty: a placeholder, no devices known) and
  // `<[], device_ids=[3]>` (maximal: everything on that one device).
  bool isEmpty() const { return axes.empty() && device_ids.empty(); }
  bool isMaximal() const { return axes.empty() && device_ids.size() == 1; }
  // Product of the axis sizes (1 for a maximal mesh, 0 for an empty one).
  std::int64_t deviceCount() const;
  int axisIndex(std::string_view axis) const; // -1 when absent
  // Position of every device id (the inverse of device_ids; iota when they are).
  std::vector<std::int64_t> positions() const;
  // "['data'=4, 'model'=2]" for messages.
  std::string describe() const;
  bool operator==(const InspectMesh&) const = default;
};

// Checks what Shardy's verifier checks: axis names non-empty and distinct, sizes at least 1, at
// most kMaxInspectDevices devices, device_ids (when given) a permutation of 0..n-1 (one id for a
// maximal mesh). Throws ValueError naming `what`.
void validateInspectMesh(const InspectMesh& mesh, const std::string& what);

// The caller's mesh from named axes (the CLI's --mesh), optionally with a device order; validated.
InspectMesh inspectMeshOf(const MeshAxes& axes, std::vector<std::int64_t> device_ids = {});

} // namespace shardscope
