// SPDX-License-Identifier: Apache-2.0
// jax.make_mesh (jax-mesh-utils spec §5): truncate to the first prod(axis_sizes) devices BEFORE anything else,
// allow axis splitting on v5e only (judged by the first device), refuse a mesh spanning slices,
// and default every axis to Explicit.
#include "create_mesh_impl.hpp"

#include "shardscope/base/errors.hpp"

#include <set>

namespace shardscope {

namespace {

std::string namesTuple(const std::vector<std::string>& names) {
  std::vector<PyValue> items;
  for (const auto& n : names) {
    PyValue v;
    v.kind = PyValue::Kind::Str;
    v.s = n;
    items.push_back(std::move(v));
  }
  return pyRepr(PyValue::tuple(std::move(items)));
}

std::string typesTuple(const std::vector<AxisType>& types) {
  std::string out = "(";
  for (std::size_t k = 0; k < types.size(); ++k) {
    if (k) out += ", ";
    out += axisTypeName(types[k]);
  }
  if (types.size() == 1) out += ',';
  return out + ")";
}

} // namespace

Mesh makeMesh(const Shape& axisSizes, const std::vector<std::string>& axisNames,
              const std::optional<std::vector<AxisType>>& axisTypes, const DeviceList& devices,
              MeshPlacement* placementOut) {
  std::int64_t wanted = 1;
  bool overflow = false;
  for (auto d : axisSizes) overflow |= __builtin_mul_overflow(wanted, d, &wanted);
  if (overflow || wanted > static_cast<std::int64_t>(devices.size()))
    throwValueError("Number of devices " + std::to_string(devices.size()) + " must be >= the product of mesh_shape " +
                    shapeRepr(axisSizes));
  // devices[:n]: a negative n counts from the end, as a Python slice does.
  std::size_t keep = devices.size();
  if (wanted < static_cast<std::int64_t>(devices.size()))
    keep =
        wanted >= 0
            ? static_cast<std::size_t>(wanted)
            : static_cast<std::size_t>(std::max<std::int64_t>(0, static_cast<std::int64_t>(devices.size()) + wanted));
  Mesh mesh;
  mesh.devices.assign(devices.begin(), devices.begin() + static_cast<std::ptrdiff_t>(keep));
  if (mesh.devices.empty()) throwValueError("list index out of range"); // devices[0]

  CreateMeshOptions options;
  const std::string& kind = mesh.devices.front().device_kind;
  options.allow_split_physical_axes = kind == "TPU v5 lite" || kind == "TPU v5e"; // not TPU v6 lite (§9.9)
  MeshPlacement placement = createDeviceMesh(axisSizes, mesh.devices, options);

  // The first device OF THE MESH decides whether slices are checked.
  const Device& first = mesh.devices[static_cast<std::size_t>(placement.grid.data().front())];
  if (first.slice_index) {
    std::set<std::optional<int>> slices;
    for (const Device& d : mesh.devices) slices.insert(d.slice_index);
    if (slices.size() > 1)
      throwValueError("`jax.make_mesh` does not support multi-slice topologies. Please use "
                      "jax.experimental.mesh_utils.create_hybrid_device_mesh");
  }

  const std::size_t ndim = placement.grid.ndim();
  std::vector<AxisType> types = axisTypes ? *axisTypes : std::vector<AxisType>(ndim, AxisType::Explicit);
  // Mesh() checks the grid rank against the names before it normalises the axis types.
  if (ndim != axisNames.size())
    throwValueError(
        "Mesh requires the ndim of its first argument (`devices`) to equal the length of its second argument "
        "(`axis_names`), but got devices.ndim == " +
        std::to_string(ndim) + " and len(axis_names) == " + std::to_string(axisNames.size()) + ".");
  if (types.size() != axisNames.size())
    throwValueError("Number of axis names should match the number of axis_types. Got axis_names=" +
                    namesTuple(axisNames) + " and axis_types=" + typesTuple(types));
  mesh.grid = placement.grid;
  mesh.axis_names = axisNames;
  mesh.axis_types = std::move(types);
  if (placementOut) *placementOut = std::move(placement);
  return mesh;
}

Mesh makeMesh(const PyValue& rawAxisSizes, const std::vector<std::string>& axisNames,
              const std::optional<std::vector<AxisType>>& axisTypes, const DeviceList& devices,
              MeshPlacement* placementOut) {
  auto sizes = canonicalizeAxisSizes(rawAxisSizes);
  if (!sizes)
    throwValueError("`axis_sizes` passed to `make_mesh` should be a sequence of ints. Got " + pyRepr(rawAxisSizes));
  return makeMesh(*sizes, axisNames, axisTypes, devices, placementOut);
}

} // namespace shardscope
