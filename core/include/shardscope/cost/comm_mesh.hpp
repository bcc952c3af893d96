// SPDX-License-Identifier: Apache-2.0
// A mesh from an explicit grid of device ids, for the eval's `axis_report` with `mesh_grid`
// (devices the caller placed itself). Placing a mesh the way JAX does is the analysis' job
// (analyzeMesh): there is one placement path.
#pragma once

#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/mesh/named_mesh.hpp"

#include <cstdint>
#include <vector>

namespace shardscope {

// `ids` is row-major over `axes.sizes`; every id must be one of the graph's devices, once.
Mesh meshFromDeviceIds(const LinkGraph& graph, const MeshAxes& axes, const std::vector<std::int64_t>& ids);

} // namespace shardscope
