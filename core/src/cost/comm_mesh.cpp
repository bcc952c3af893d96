// SPDX-License-Identifier: Apache-2.0
#include "shardscope/cost/comm_mesh.hpp"

#include "shardscope/base/errors.hpp"

#include <unordered_map>
#include <unordered_set>

namespace shardscope {

Mesh meshFromDeviceIds(const LinkGraph& graph, const MeshAxes& axes, const std::vector<std::int64_t>& ids) {
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
  Mesh out;
  out.devices = devices;
  out.grid = DeviceGrid(axes.sizes, std::move(cells));
  out.axis_names = axes.names;
  out.axis_types.assign(axes.names.size(), AxisType::Explicit);
  return out;
}

} // namespace shardscope
