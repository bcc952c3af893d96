// SPDX-License-Identifier: Apache-2.0
// The inspected program on a workspace's hardware: the workspace's mesh is the mesh device groups
// are mapped onto (device i is the i-th device of the mesh, as jax.sharding.Mesh lists
// mesh.devices.flat), and each collective whose groups span whole axes is priced by the ring cost
// model the step estimate uses (cost/collectives.hpp) on the links those groups' rings take.
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/inspect/inspect.hpp"
#include "shardscope/mesh/named_mesh.hpp"

#include <filesystem>
#include <optional>
#include <string>

namespace shardscope {

// The text of a file to inspect (at most kMaxInspectTextBytes). Throws ValueError when it cannot
// be read or is larger.
std::string readInspectFile(const std::filesystem::path& file);

// The inspect mesh of a placed mesh: its axes in mesh order, device order iota (mesh positions).
InspectMesh inspectMeshOf(const Mesh& placed);

// Sets time_s of every collective of `result` whose axes are known, on the mesh's links: the
// groups' rings over those axes (several axes as one ring over their devices, major first), the
// cost form of the step estimate, times trip_count. Collective-permute and collective-broadcast
// (no ring form) and collectives without axes keep 0 and say so in their note. Nothing is priced
// when the result's mesh is not `placed`'s (other axes or sizes): a note says so.
void priceInspectCollectives(InspectResult& result, const Mesh& placed, const LinkGraph& graph);

// inspectText with the scenario's mesh (its placement on its topology: analyzeMesh) as the mesh,
// then priceInspectCollectives on its links. options.mesh is replaced.
InspectResult inspectOnScenario(std::string_view text, InspectOptions options, const Scenario& scenario);

// The caller's mesh from a --mesh text without a topology ("data:4,model:2"; a size -1 is refused:
// it needs a device count). Throws ValueError.
InspectMesh inspectMeshFromText(const std::string& text);

// Where the CLI's and the eval's options put the program: a mesh text ("data:4,model:2", as
// --mesh), a topology ("v5p:2x2x2") and a workspace, each optional.
struct InspectPlacement {
  std::optional<std::string> mesh;
  std::optional<std::string> topology;
  std::optional<Scenario> workspace;
};
// With a topology or a workspace: the scenario (the workspace, else the built-in one) with the
// topology and mesh given, then inspectOnScenario (a topology without a mesh is refused unless a
// workspace gives the mesh). With a mesh alone: that mesh, nothing priced (a size -1 needs a
// topology). With none: the file's own meshes. Throws ValueError.
InspectResult inspectPlaced(std::string_view text, InspectOptions options, const InspectPlacement& placement);

} // namespace shardscope
