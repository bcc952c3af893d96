// SPDX-License-Identifier: Apache-2.0
#include "shardscope/inspect/inspect_pricing.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/cost/comm_mesh.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/inspect/inspect_workspace.hpp"
#include "shardscope/mesh/mesh_string.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>

namespace shardscope {

std::string readInspectFile(const std::filesystem::path& file) {
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throwValueError(file.string() + ": cannot read file (" + ec.message() + ")");
  if (size > kMaxInspectTextBytes)
    throwValueError(file.string() + ": " + std::to_string(size) + " bytes; at most " +
                    std::to_string(kMaxInspectTextBytes) + " are read");
  std::ifstream in(file, std::ios::binary);
  if (!in) throwValueError(file.string() + ": cannot open file");
  std::string text(static_cast<std::size_t>(size), '\0');
  in.read(text.data(), static_cast<std::streamsize>(size));
  text.resize(static_cast<std::size_t>(in.gcount()));
  return text;
}

InspectMesh inspectMeshOf(const Mesh& placed) {
  InspectMesh mesh;
  for (std::size_t k = 0; k < placed.axis_names.size(); ++k)
    mesh.axes.push_back({placed.axis_names[k], placed.shape()[k]});
  validateInspectMesh(mesh, "mesh");
  return mesh;
}

namespace {

// The placed devices reordered so the axes `spanned` come last (merged into one axis, major
// first) and the others first, in mesh order: the mesh whose last axis is the collective's groups.
Mesh mergedMesh(const Mesh& placed, const LinkGraph& graph, const std::vector<std::size_t>& spanned) {
  const Shape& sizes = placed.shape();
  std::vector<std::size_t> order;
  for (std::size_t k = 0; k < sizes.size(); ++k)
    if (std::find(spanned.begin(), spanned.end(), k) == spanned.end()) order.push_back(k);
  MeshAxes axes;
  for (const auto k : order) {
    axes.names.push_back(placed.axis_names[k]);
    axes.sizes.push_back(sizes[k]);
  }
  std::string merged;
  std::int64_t mergedSize = 1;
  for (const auto k : spanned) {
    merged += (merged.empty() ? "" : "+") + placed.axis_names[k];
    mergedSize *= sizes[k];
    order.push_back(k);
  }
  axes.names.push_back(merged);
  axes.sizes.push_back(mergedSize);
  // Row-major strides of the placed grid, then the ids walked in the new order.
  std::vector<std::int64_t> stride(sizes.size(), 1);
  for (std::size_t k = sizes.size(); k-- > 1;) stride[k - 1] = stride[k] * sizes[k];
  const auto ids = placed.deviceIds();
  const auto total = static_cast<std::int64_t>(placed.grid.size());
  std::vector<std::int64_t> flat(static_cast<std::size_t>(total));
  std::vector<std::int64_t> coord(order.size(), 0);
  for (std::int64_t n = 0; n < total; ++n) {
    std::int64_t at = 0;
    for (std::size_t i = 0; i < order.size(); ++i) at += coord[i] * stride[order[i]];
    flat[static_cast<std::size_t>(n)] = ids.data()[static_cast<std::size_t>(at)];
    for (std::size_t i = order.size(); i-- > 0;) {
      if (++coord[i] < sizes[order[i]]) break;
      coord[i] = 0;
    }
  }
  return meshFromDeviceIds(graph, axes, flat);
}

void addNote(InspectCollective& c, const std::string& what) { c.note += (c.note.empty() ? "" : "; ") + what; }

// How the result's notes say that the program does not run on the workspace's mesh.
constexpr std::string_view kNotPricedNote = "collectives not priced";

} // namespace

void priceInspectCollectives(InspectResult& result, const Mesh& placed, const LinkGraph& graph) {
  const InspectMesh mesh = inspectMeshOf(placed);
  const InspectMesh* own = nullptr;
  for (const auto& m : result.meshes)
    if (!m.axes.empty()) {
      own = &m;
      break;
    }
  if (!own || own->axes != mesh.axes) {
    result.notes.push_back(std::string(kNotPricedNote) + ": the program's mesh is not the workspace's " +
                           mesh.describe());
    return;
  }
  std::map<std::vector<std::size_t>, RingCostInputs> rings; // one ring per set of spanned axes
  for (auto& c : result.collectives) {
    const auto kind = costCollective(c.op);
    if (!c.axes || c.axes->empty()) continue;
    if (!kind) {
      addNote(c, "not priced: the cost model has no form for " + std::string(inspectCollectiveOpName(c.op)));
      continue;
    }
    std::vector<std::size_t> spanned;
    for (const auto& name : *c.axes) spanned.push_back(static_cast<std::size_t>(mesh.axisIndex(name)));
    auto it = rings.find(spanned);
    if (it == rings.end()) {
      const Mesh merged = mergedMesh(placed, graph, spanned);
      const AxisReport report = axisReport(graph, merged, static_cast<int>(merged.axis_names.size()) - 1);
      it = rings.emplace(spanned, ringCostInputs(report)).first;
    }
    c.time_s = collectiveSeconds(*kind, double(c.cost_bytes), it->second) * double(c.trip_count);
  }
}

InspectResult inspectOnScenario(std::string_view text, InspectOptions options, const Scenario& scenario) {
  const Analysis placed = analyzeMesh(scenario);
  options.mesh = inspectMeshOf(placed.mesh);
  InspectResult result = inspectText(text, options);
  if (result.kind == InspectKind::Oom || !placed.links) return result;
  priceInspectCollectives(result, placed.mesh, *placed.links);
  // Beside the workspace's own analysis, when the program runs on its mesh (the collectives were
  // priced on its links): matched arguments, silent replication, the two step estimates.
  if (std::none_of(result.notes.begin(), result.notes.end(),
                   [](const std::string& n) { return n.starts_with(kNotPricedNote); }))
    compareWithWorkspace(result, scenario, analyze(scenario));
  return result;
}

namespace {

// "data:4,model:2" as axes, without a device count: the product of the sizes is the count.
MeshAxes meshWithoutTopology(const std::string& text) {
  std::int64_t product = 1;
  for (std::size_t start = 0; start <= text.size();) {
    const auto comma = std::min(text.find(',', start), text.size());
    const auto colon = text.find(':', start);
    std::int64_t size = 0;
    if (colon != std::string::npos && colon < comma) {
      const auto [end, ec] = std::from_chars(text.data() + colon + 1, text.data() + comma, size);
      if (ec == std::errc() && end == text.data() + comma && size == -1)
        throwValueError("mesh '" + text + "': a size -1 needs the device count: give a topology");
      if (ec == std::errc() && size > 0 && product <= kMaxInspectDevices) product *= size;
    }
    start = comma + 1;
  }
  return parseMeshAxes(text, std::max<std::int64_t>(1, std::min(product, kMaxInspectDevices + 1)));
}

} // namespace

InspectMesh inspectMeshFromText(const std::string& text) { return inspectMeshOf(meshWithoutTopology(text)); }

InspectResult inspectPlaced(std::string_view text, InspectOptions options, const InspectPlacement& placement) {
  if (placement.topology || placement.workspace) {
    Scenario scenario = placement.workspace ? *placement.workspace : defaultScenario();
    if (placement.topology) scenario.topology = parseTopology(*placement.topology);
    if (placement.mesh)
      scenario.mesh.axes = meshAxesFromText(*placement.mesh, scenario.topology);
    else if (!placement.workspace)
      throwValueError("a topology needs a mesh (e.g. data:4,model:2) to place");
    return inspectOnScenario(text, std::move(options), scenario);
  }
  if (placement.mesh) options.mesh = inspectMeshFromText(*placement.mesh);
  return inspectText(text, options);
}

} // namespace shardscope
