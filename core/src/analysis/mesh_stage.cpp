// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

namespace shardscope::analysis {

namespace {

// Names of the physical mesh's axes: v2/v3 build (x, y, core), the others (x, y, z[, core]).
std::vector<std::string> physicalAxisNames(const std::string& deviceKind) {
  if (deviceKind == "TPU v2" || deviceKind == "TPU v3") return {"x", "y", "core"};
  return {"x", "y", "z", "core"};
}

std::string explainAxis(const MeshPlacement& p, std::size_t logical, const std::vector<std::string>& names) {
  if (p.assignment.empty()) {
    if (p.path.rfind("handler:", 0) == 0) return "placed by the " + p.path.substr(8) + " ring order";
    if (p.path == "gpu_sort_by_id") return "GPUs in device-id order";
    return "devices in list order";
  }
  std::string text;
  for (std::size_t i = 0; i < p.assignment.size() && i < names.size(); ++i) {
    const auto taken = p.assignment[i][logical];
    if (taken <= 1) continue;
    const auto full = p.physical_shape[i];
    if (!text.empty()) text += " and ";
    text += taken == full ? names[i] + " (" + std::to_string(full) + ") whole"
                          : std::to_string(taken) + " of " + names[i] + " (" + std::to_string(full) + ", split)";
  }
  return text.empty() ? "a single device along this axis" : "takes " + text;
}

} // namespace

MeshPlacementOf placeMesh(const Scenario& scenario, const DeviceList& devices) {
  MeshPlacementOf out;
  const int slices = std::max(1, scenario.topology.slices);
  const auto perSlice = static_cast<std::int64_t>(devices.size()) / slices;

  const Shape ici = resolveIciShape(scenario.mesh, perSlice);
  // DCN sizes: -1 absorbs the remaining slices.
  Shape dcn;
  std::int64_t dcnKnown = 1;
  int dcnWildcard = -1;
  for (std::size_t i = 0; i < scenario.mesh.axes.size(); ++i) {
    const auto d = scenario.mesh.axes[i].dcn;
    if (d == -1) {
      if (dcnWildcard >= 0) throwValueError("only one axis may have DCN size -1");
      dcnWildcard = static_cast<int>(i);
    } else {
      dcnKnown *= d;
    }
    dcn.push_back(d);
  }
  if (dcnWildcard >= 0) {
    if (slices % dcnKnown != 0)
      throwValueError("DCN axis '" + scenario.mesh.axes[static_cast<std::size_t>(dcnWildcard)].name + "' is -1 but " +
                      std::to_string(slices) + " slices are not divisible by " + std::to_string(dcnKnown));
    dcn[static_cast<std::size_t>(dcnWildcard)] = slices / dcnKnown;
  }

  const bool hybrid = slices > 1 || shapeSize(dcn) != 1;
  if (hybrid) {
    HybridMeshOptions options;
    options.allow_split_physical_axes = scenario.mesh.allow_split_physical_axes;
    HybridPlacement placed = createHybridDeviceMesh(ici, dcn, devices, options);
    out.grid = std::move(placed.grid);
    out.placements = std::move(placed.granules);
  } else {
    CreateMeshOptions options;
    options.allow_split_physical_axes = scenario.mesh.allow_split_physical_axes;
    options.contiguous_submeshes = scenario.mesh.contiguous_submeshes;
    MeshPlacement placed = createDeviceMesh(ici, devices, options);
    out.grid = placed.grid;
    out.placements.push_back(std::move(placed));
  }
  out.ici = ici;
  out.dcn = dcn;
  return out;
}

void buildMesh(const Scenario& scenario, Analysis& out) {
  DeviceList devices = makeDevices(scenario.topology);
  MeshPlacementOf placed = placeMesh(scenario, devices);
  out.mesh.grid = std::move(placed.grid);
  out.placements = std::move(placed.placements);
  const Shape& ici = placed.ici;
  const Shape& dcn = placed.dcn;
  out.mesh.devices = std::move(devices);
  out.axes.clear();
  const auto names = physicalAxisNames(out.mesh.devices.empty() ? std::string() : out.mesh.devices.front().device_kind);
  for (std::size_t i = 0; i < scenario.mesh.axes.size(); ++i) {
    const auto& a = scenario.mesh.axes[i];
    out.mesh.axis_names.push_back(a.name);
    out.mesh.axis_types.push_back(a.type);
    AxisPlacement ap{a.name, ici[i] * dcn[i], ici[i], dcn[i], explainAxis(out.placements.front(), i, names)};
    if (dcn[i] > 1) ap.explanation += "; " + std::to_string(dcn[i]) + " slices over DCN";
    out.axes.push_back(std::move(ap));
  }
}

} // namespace shardscope::analysis
