// SPDX-License-Identifier: Apache-2.0
// jaxpp's MpmdMesh (../shared/spec/eformer-escale-and-jaxpp.md §2.1): an ordinary mesh whose one
// named axis is the pipeline (MPMD) axis. Each index along it is a pipeline group running its own
// SPMD program on the devices of the other axes.
#pragma once

#include "shardscope/mesh/named_mesh.hpp"

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

class MpmdMesh {
public:
  // Wraps `mesh`. When the mesh spans several processes (some device's process_index differs from
  // `currentProcess`, JAX's is_multi_process), checks that every process lies in a single group:
  // AssertionError "Process P found in two mpmd indices: A B ..." otherwise. A name that is not an
  // axis is a ValueError (on a multi-process mesh with jaxpp's exact text, "tuple.index(x): x not
  // in tuple"; on a single-process mesh jaxpp raises KeyError, answered as a ValueError).
  MpmdMesh(Mesh mesh, std::string mpmdAxisName, int currentProcess = 0);

  const Mesh& mesh() const { return mesh_; }
  const std::string& mpmdAxisName() const { return axisName_; }
  std::size_t mpmdAxis() const { return axis_; }
  std::int64_t mpmdDim() const { return mesh_.shape()[axis_]; }
  bool isMultiProcess() const { return multiProcess_; }

  // The group (coordinate along the MPMD axis) of the device at each grid position, row-major.
  std::vector<std::int64_t> groupOfGridPositions() const;
  // {device id, group} for every device, in the mesh's row-major device order (jaxpp's
  // device_mpmd_idx).
  std::vector<std::pair<std::int64_t, std::int64_t>> deviceMpmdIdx() const;

  // One mesh per group, in group order; each keeps every axis name, the MPMD axis at size 1. Like
  // every mesh derived here, its axis types are Auto: jaxpp builds them as Mesh(devices, axis_names).
  // ValueError when the MPMD axis has size 0 (numpy's split divides by zero there).
  std::vector<Mesh> unstack() const;
  // The groups `groups` (in the given order, negative indices from the end) as one MpmdMesh.
  // ValueError for an index out of range (numpy raises IndexError there).
  MpmdMesh submesh(const std::vector<std::int64_t>& groups) const;

  // The group of the current process's devices. Multi-process meshes only (ValueError otherwise,
  // as jaxpp without JAXPP_DEBUG_FORCE_MPMDIFY).
  std::int64_t myMpmdAxisIndex() const;
  // The current process's group as a mesh (MPMD axis kept at size 1). Multi-process only.
  Mesh myMpmdGroupMesh() const;
  // The mesh jaxpp lowers with: the own group on a multi-process mesh, group 0 otherwise (jaxpp
  // lowers every stage with group 0's devices in a single process, eformer-jaxpp spec §2.5).
  Mesh loweringMesh() const;

private:
  Mesh mesh_;
  std::string axisName_;
  std::size_t axis_ = 0;
  int currentProcess_ = 0;
  bool multiProcess_ = false;
};

} // namespace shardscope
