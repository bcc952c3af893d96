// SPDX-License-Identifier: Apache-2.0
// A named logical mesh placed on a topology's devices the way JAX would place it, for the
// communication views (CLI `comm`, eval `axis_report`, the GUI chart).
#pragma once

#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/mesh/mesh_string.hpp"

#include <string>

namespace shardscope {

struct PlacedMesh {
  Mesh mesh;
  std::string path; // how the placement was decided (MeshPlacement::path, or "hybrid" / "grid")
  Shape dcn_shape;  // multi-slice: the slices per axis (empty for one slice)
  std::string note; // set when the placement differs from what jax.make_mesh would do
};

// One slice: jax.make_mesh over all the graph's devices. Several slices: a hybrid mesh whose DCN
// part puts all slices on the first axis they divide (the MaxText convention: data parallelism
// across slices), the rest of each axis inside every slice. When JAX refuses because an axis
// would need a split physical axis (NotImplementedError), the placement is retried with
// allow_split_physical_axes=True and `note` says so: a communication report for the mesh the
// user most likely ends up with beats an error.
PlacedMesh placeMesh(const LinkGraph& graph, const MeshAxes& axes);

// A mesh from an explicit grid of device ids (row-major over `axes.sizes`), for callers that
// placed devices themselves.
PlacedMesh meshFromDeviceIds(const LinkGraph& graph, const MeshAxes& axes, const std::vector<std::int64_t>& ids);

} // namespace shardscope
