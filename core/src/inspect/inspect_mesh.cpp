// SPDX-License-Identifier: Apache-2.0
#include "shardscope/inspect/inspect_mesh.hpp"

#include "shardscope/base/errors.hpp"

#include <numeric>

namespace shardscope {

std::int64_t InspectMesh::deviceCount() const {
  if (axes.empty()) return device_ids.empty() ? 0 : 1;
  std::int64_t n = 1;
  for (const auto& a : axes) n *= a.size; // validated: the product stays below 2^24
  return n;
}

int InspectMesh::axisIndex(std::string_view axis) const {
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i].name == axis) return static_cast<int>(i);
  return -1;
}

std::vector<std::int64_t> InspectMesh::positions() const {
  const std::int64_t n = deviceCount();
  std::vector<std::int64_t> pos(static_cast<std::size_t>(n));
  if (device_ids.size() != pos.size()) {
    std::iota(pos.begin(), pos.end(), std::int64_t{0});
    return pos;
  }
  for (std::size_t p = 0; p < device_ids.size(); ++p) pos[static_cast<std::size_t>(device_ids[p])] = std::int64_t(p);
  return pos;
}

std::string InspectMesh::describe() const {
  std::string out = "[";
  for (std::size_t i = 0; i < axes.size(); ++i) {
    if (i) out += ", ";
    out += "'" + axes[i].name + "'=" + std::to_string(axes[i].size);
  }
  out += "]";
  if (isMaximal()) out += " (maximal: device " + std::to_string(device_ids.front()) + ")";
  return out;
}

void validateInspectMesh(const InspectMesh& mesh, const std::string& what) {
  if (mesh.axes.size() > 64) throwValueError(what + ": more than 64 axes");
  std::int64_t n = 1;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    const auto& a = mesh.axes[i];
    if (a.name.empty()) throwValueError(what + ": an axis has an empty name");
    for (std::size_t j = 0; j < i; ++j)
      if (mesh.axes[j].name == a.name) throwValueError(what + ": axis '" + a.name + "' appears twice");
    if (a.size < 1) throwValueError(what + ": axis '" + a.name + "' has size " + std::to_string(a.size));
    if (a.size > kMaxInspectDevices / n)
      throwValueError(what + ": more than " + std::to_string(kMaxInspectDevices) + " devices");
    n *= a.size;
  }
  if (mesh.device_ids.empty()) return;
  if (mesh.axes.empty()) {
    if (mesh.device_ids.size() != 1)
      throwValueError(what + ": a mesh without axes lists one device (maximal), got " +
                      std::to_string(mesh.device_ids.size()));
    if (mesh.device_ids[0] < 0 || mesh.device_ids[0] >= kMaxInspectDevices)
      throwValueError(what + ": device id " + std::to_string(mesh.device_ids[0]) + " is out of range");
    return;
  }
  if (static_cast<std::int64_t>(mesh.device_ids.size()) != n)
    throwValueError(what + ": " + std::to_string(mesh.device_ids.size()) + " device ids for " + std::to_string(n) +
                    " devices");
  std::vector<bool> seen(static_cast<std::size_t>(n), false);
  for (const auto id : mesh.device_ids) {
    if (id < 0 || id >= n)
      throwValueError(what + ": device id " + std::to_string(id) + " is not below " + std::to_string(n));
    if (seen[static_cast<std::size_t>(id)])
      throwValueError(what + ": device id " + std::to_string(id) + " appears twice");
    seen[static_cast<std::size_t>(id)] = true;
  }
}

InspectMesh inspectMeshOf(const MeshAxes& axes, std::vector<std::int64_t> device_ids) {
  InspectMesh mesh;
  for (std::size_t i = 0; i < axes.rank(); ++i) mesh.axes.push_back({axes.names[i], axes.sizes[i]});
  mesh.device_ids = std::move(device_ids);
  validateInspectMesh(mesh, "mesh");
  return mesh;
}

} // namespace shardscope
