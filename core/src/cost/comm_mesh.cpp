// SPDX-License-Identifier: Apache-2.0
#include "shardscope/cost/comm_mesh.hpp"

#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"

#include <unordered_map>
#include <unordered_set>

namespace shardscope {

PlacedMesh placeMesh(const LinkGraph& graph, const MeshAxes& axes) {
  PlacedMesh out;
  const auto& devices = graph.devices();
  const int slices = graph.platform() == Platform::Tpu ? graph.slices() : std::max(1, graph.spec().slices);
  const std::string splitNote = "jax.make_mesh cannot place this mesh without splitting physical axes; placed with "
                                "allow_split_physical_axes=True";
  auto needsSplit = [](const Error& e) { return e.kind() == ErrorKind::NotImplementedError; };
  if (slices <= 1) {
    MeshPlacement placement;
    try {
      out.mesh = makeMesh(axes.sizes, axes.names, std::nullopt, devices, &placement);
    } catch (const Error& e) {
      if (!needsSplit(e)) throw;
      CreateMeshOptions options;
      options.allow_split_physical_axes = true;
      placement = createDeviceMesh(axes.sizes, devices, options);
      out.mesh.devices = devices;
      out.mesh.grid = placement.grid;
      out.mesh.axis_names = axes.names;
      out.mesh.axis_types.assign(axes.names.size(), AxisType::Explicit);
      out.note = splitNote;
    }
    out.path = placement.path;
    return out;
  }
  Shape dcn(axes.sizes.size(), 1), ici = axes.sizes;
  bool placed = false;
  for (std::size_t a = 0; a < ici.size() && !placed; ++a)
    if (ici[a] % slices == 0) {
      dcn[a] = slices;
      ici[a] /= slices;
      placed = true;
    }
  if (!placed)
    throwValueError("mesh: no axis size is divisible by the " + std::to_string(slices) +
                    " slices; give the grid explicitly");
  HybridPlacement hybrid;
  try {
    hybrid = createHybridDeviceMesh(ici, dcn, devices);
  } catch (const Error& e) {
    if (!needsSplit(e)) throw;
    HybridMeshOptions options;
    options.allow_split_physical_axes = true;
    hybrid = createHybridDeviceMesh(ici, dcn, devices, options);
    out.note = "create_hybrid_device_mesh cannot place this mesh without splitting physical axes; placed with "
               "allow_split_physical_axes=True";
  }
  out.mesh.devices = devices;
  out.mesh.grid = hybrid.grid;
  out.mesh.axis_names = axes.names;
  out.mesh.axis_types.assign(axes.names.size(), AxisType::Explicit);
  out.path = "hybrid";
  out.dcn_shape = dcn;
  return out;
}

PlacedMesh meshFromDeviceIds(const LinkGraph& graph, const MeshAxes& axes, const std::vector<std::int64_t>& ids) {
  const auto& devices = graph.devices();
  if (static_cast<std::int64_t>(ids.size()) != shapeSize(axes.sizes))
    throwValueError("mesh grid holds " + std::to_string(ids.size()) + " device ids, the axis sizes need " +
                    std::to_string(shapeSize(axes.sizes)));
  std::unordered_map<std::int64_t, int> position;
  for (std::size_t i = 0; i < devices.size(); ++i) position.emplace(devices[i].id, static_cast<int>(i));
  std::unordered_set<std::int64_t> seen;
  std::vector<int> cells;
  cells.reserve(ids.size());
  for (auto id : ids) {
    auto it = position.find(id);
    if (it == position.end()) throwValueError("mesh grid: device id " + std::to_string(id) + " is not in the topology");
    if (!seen.insert(id).second) throwValueError("mesh grid: device id " + std::to_string(id) + " appears twice");
    cells.push_back(it->second);
  }
  PlacedMesh out;
  out.mesh.devices = devices;
  out.mesh.grid = DeviceGrid(axes.sizes, std::move(cells));
  out.mesh.axis_names = axes.names;
  out.mesh.axis_types.assign(axes.names.size(), AxisType::Explicit);
  out.path = "grid";
  return out;
}

} // namespace shardscope
