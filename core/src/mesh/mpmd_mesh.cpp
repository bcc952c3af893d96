// SPDX-License-Identifier: Apache-2.0
// jaxpp MpmdMesh (eformer-jaxpp spec §2.1). Groups are slices of the device grid along the MPMD axis.
#include "shardscope/mesh/mpmd_mesh.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/axis_groups.hpp"

#include <algorithm>
#include <map>
#include <numeric>

namespace shardscope {

namespace {

// jaxpp builds every derived mesh as Mesh(devices, axis_names), without axis_types, so JAX gives
// them Auto axes whatever the parent had. The derived mesh holds only its own devices, in grid
// order (so unstacking n groups copies each device once, not n times).
Mesh derivedMesh(const Mesh& parent, const DeviceGrid& parentPositions) {
  Mesh out;
  out.devices.reserve(parentPositions.size());
  for (int pos : parentPositions.data()) out.devices.push_back(parent.devices[static_cast<std::size_t>(pos)]);
  out.grid = DeviceGrid::iota(parentPositions.shape());
  out.axis_names = parent.axis_names;
  out.axis_types.assign(parent.axis_names.size(), AxisType::Auto);
  return out;
}

// numpy's take(grid, indices, axis) for indices already within range: for each coordinate before
// the axis, the rows of the taken indices (each row the `stride` cells after the axis) in order.
DeviceGrid takeAlongAxis(const DeviceGrid& grid, std::size_t axis, const std::vector<std::int64_t>& indices) {
  const AxisGroups along(grid.shape(), axis);
  const std::int64_t row = along.stride();
  std::vector<int> data;
  data.reserve(static_cast<std::size_t>(along.count()) * indices.size());
  for (std::int64_t o = 0; o < along.outer(); ++o)
    for (std::int64_t k : indices) {
      const auto begin = grid.data().begin() + along.cell(o * row, k);
      data.insert(data.end(), begin, begin + row);
    }
  Shape outShape = grid.shape();
  outShape[axis] = static_cast<std::int64_t>(indices.size());
  return DeviceGrid(std::move(outShape), std::move(data));
}

// The coordinate along `axis` of every row-major grid position.
std::vector<std::int64_t> coordinatesAlong(const Shape& shape, std::size_t axis) {
  const AxisGroups along(shape, axis);
  const std::int64_t total = shapeSize(shape);
  std::vector<std::int64_t> out(static_cast<std::size_t>(total));
  for (std::int64_t p = 0; p < total; ++p) out[static_cast<std::size_t>(p)] = along.coordinate(p);
  return out;
}

std::string coordText(const Shape& shape, std::int64_t flat) {
  Shape coord(shape.size());
  for (std::size_t i = shape.size(); i-- > 0;) {
    coord[i] = flat % shape[i];
    flat /= shape[i];
  }
  return shapeRepr(coord);
}

} // namespace

MpmdMesh::MpmdMesh(Mesh mesh, std::string mpmdAxisName, int currentProcess)
    : mesh_(std::move(mesh)), axisName_(std::move(mpmdAxisName)), currentProcess_(currentProcess) {
  for (int pos : mesh_.grid.data())
    if (mesh_.devices[static_cast<std::size_t>(pos)].process_index != currentProcess_) multiProcess_ = true;

  const int axis = mesh_.axisIndex(axisName_);
  if (axis < 0) {
    if (multiProcess_) throwValueError("tuple.index(x): x not in tuple"); // jaxpp's check runs first there
    // jaxpp raises KeyError('<name>') from mesh.shape on a single-process mesh.
    std::string names;
    for (const auto& n : mesh_.axis_names) names += (names.empty() ? "" : ", ") + n;
    throwValueError("mpmd_axis_name '" + axisName_ + "' is not an axis of the mesh (axes: " + names + ")");
  }
  axis_ = static_cast<std::size_t>(axis);
  // jaxpp takes the axis position from the first axis of that name but its size from
  // dict(mesh.shape), i.e. the last one; they only agree when repeated names share a size.
  for (std::size_t i = axis_ + 1; i < mesh_.axis_names.size(); ++i)
    if (mesh_.axis_names[i] == axisName_ && mesh_.shape()[i] != mesh_.shape()[axis_])
      throwValueError("mpmd_axis_name '" + axisName_ + "' names several mesh axes of different sizes");
  if (!multiProcess_) return;

  // Every process must sit in one group. jaxpp walks a set of devices; we walk them by ascending
  // id (CPython's set order for small integer hashes), so the first conflict found is stable.
  const auto groups = groupOfGridPositions();
  std::vector<std::size_t> order(groups.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto idOf = [&](std::size_t p) { return mesh_.devices[static_cast<std::size_t>(mesh_.grid.data()[p])].id; };
  std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return idOf(a) < idOf(b); });
  std::map<int, std::int64_t> groupOfProcess;
  for (std::size_t p : order) {
    const Device& d = mesh_.devices[static_cast<std::size_t>(mesh_.grid.data()[p])];
    auto [it, inserted] = groupOfProcess.emplace(d.process_index, groups[p]);
    if (inserted || it->second == groups[p]) continue;
    // jaxpp's text (including its missing space before "jax.local_devices()="), with our device form.
    DeviceList local;
    std::string coords = "{";
    for (std::size_t q = 0; q < groups.size(); ++q) {
      const Device& e = mesh_.devices[static_cast<std::size_t>(mesh_.grid.data()[q])];
      if (e.process_index == currentProcess_) local.push_back(e);
      coords += (q ? ", " : "") + describeDevice(e) + ": " + coordText(mesh_.shape(), static_cast<std::int64_t>(q));
    }
    throwAssertion("Process " + std::to_string(d.process_index) +
                   " found in two mpmd indices: " + std::to_string(it->second) + " " + std::to_string(groups[p]) +
                   "jax.local_devices()=" + describeDevices(local) + " " + coords + "}");
  }
}

std::vector<std::int64_t> MpmdMesh::groupOfGridPositions() const { return coordinatesAlong(mesh_.shape(), axis_); }

std::vector<std::pair<std::int64_t, std::int64_t>> MpmdMesh::deviceMpmdIdx() const {
  const auto groups = groupOfGridPositions();
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  out.reserve(groups.size());
  for (std::size_t p = 0; p < groups.size(); ++p)
    out.emplace_back(mesh_.devices[static_cast<std::size_t>(mesh_.grid.data()[p])].id, groups[p]);
  return out;
}

std::vector<Mesh> MpmdMesh::unstack() const {
  // jaxpp splits into mpmd_dim sections; numpy divides by zero on an empty axis.
  if (mpmdDim() == 0) throwValueError("cannot unstack: the MPMD axis '" + axisName_ + "' has size 0");
  std::vector<Mesh> out;
  out.reserve(static_cast<std::size_t>(mpmdDim()));
  for (std::int64_t g = 0; g < mpmdDim(); ++g) {
    out.push_back(derivedMesh(mesh_, takeAlongAxis(mesh_.grid, axis_, {g})));
  }
  return out;
}

MpmdMesh MpmdMesh::submesh(const std::vector<std::int64_t>& groups) const {
  std::vector<std::int64_t> indices;
  indices.reserve(groups.size());
  const std::int64_t dim = mpmdDim();
  for (std::int64_t g : groups) {
    if (g < -dim || g >= dim)
      throwValueError("mpmd index " + std::to_string(g) + " is out of bounds for the MPMD axis '" + axisName_ +
                      "' of size " + std::to_string(dim));
    indices.push_back(g < 0 ? g + dim : g);
  }
  return MpmdMesh(derivedMesh(mesh_, takeAlongAxis(mesh_.grid, axis_, indices)), axisName_, currentProcess_);
}

std::int64_t MpmdMesh::myMpmdAxisIndex() const {
  if (!multiProcess_) throwValueError("my_mpmd_axis_index is supported only in multi-process meshes");
  const auto groups = groupOfGridPositions();
  std::vector<std::int64_t> mine;
  for (std::size_t p = 0; p < groups.size(); ++p)
    if (mesh_.devices[static_cast<std::size_t>(mesh_.grid.data()[p])].process_index == currentProcess_ &&
        std::find(mine.begin(), mine.end(), groups[p]) == mine.end())
      mine.push_back(groups[p]);
  // jaxpp unpacks a one-element set here; the constructor's check makes more than one impossible.
  if (mine.size() != 1)
    throwValueError("process " + std::to_string(currentProcess_) + " owns devices in " + std::to_string(mine.size()) +
                    " MPMD groups of this mesh; it must own devices in exactly one");
  return mine.front();
}

Mesh MpmdMesh::myMpmdGroupMesh() const {
  if (!multiProcess_) throwValueError("my_mpmd_group_mesh is supported only in multi-process meshes");
  return derivedMesh(mesh_, takeAlongAxis(mesh_.grid, axis_, {myMpmdAxisIndex()}));
}

Mesh MpmdMesh::loweringMesh() const {
  if (!multiProcess_) return submesh({0}).mesh();
  return myMpmdGroupMesh();
}

} // namespace shardscope
