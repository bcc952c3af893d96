// SPDX-License-Identifier: Apache-2.0
// create_device_mesh (jax-mesh-utils spec §3): product check, the device-kind handler of the LAST device, then
// the TPU torus paths, GPU sort-by-id or a plain reshape.
#include "create_mesh_impl.hpp"

#include "grid_ops.hpp"
#include "physical_mesh.hpp"
#include "torus_plan.hpp"
#include "mesh/device_mesh/device_mesh_internals.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <numeric>

namespace shardscope {

namespace mesh_detail {

namespace {

// math.prod with Python's unbounded ints: an overflowing product can never equal a device count.
bool productEquals(const Shape& shape, std::int64_t target) {
  std::int64_t product = 1;
  for (auto d : shape)
    if (__builtin_mul_overflow(product, d, &product)) return false;
  return product == target;
}

DeviceGrid toPositions(DeviceGrid grid, const DeviceView& view) {
  if (view.positions) {
    for (int& entry : grid.data()) entry = view.position(static_cast<std::size_t>(entry));
  } else if (view.offset) {
    const int offset = static_cast<int>(view.offset);
    for (int& entry : grid.data()) entry += offset;
  }
  return grid;
}

} // namespace

void checkDeviceCount(const Shape& meshShape, std::size_t deviceCount) {
  if (!productEquals(meshShape, static_cast<std::int64_t>(deviceCount)))
    throwValueError("Number of devices " + std::to_string(deviceCount) + " must equal the product of mesh_shape " +
                    shapeRepr(meshShape));
}

Shape canonicalMeshShape(const PyValue& raw) {
  auto shape = canonicalizeAxisSizes(raw);
  if (!shape)
    throwValueError("`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got " + pyRepr(raw));
  return *shape;
}

MeshPlacement createDeviceMeshOnView(const Shape& meshShape, const DeviceView& devices,
                                     const CreateMeshOptions& options) {
  checkDeviceCount(meshShape, devices.size());
  if (devices.size() == 0) throwValueError("list index out of range"); // devices[-1] of an empty list
  const Device& last = devices.back();
  MeshPlacement placement;

  // Handlers see a real list; only kinds that have one pay for building it.
  if (auto handler = findDeviceMeshHandler(last.device_kind)) {
    std::optional<DeviceGrid> grid;
    if (devices.isWholeList())
      grid = handler->fn(meshShape, *devices.all, options);
    else
      grid = handler->fn(meshShape, devices.materialize(), options);
    if (grid) {
      if (grid->shape() != meshShape || grid->size() != devices.size())
        throwValueError("device-kind handler '" + handler->name + "' returned a mesh of shape " +
                        shapeRepr(grid->shape()) + " for mesh_shape " + shapeRepr(meshShape));
      for (int entry : grid->data())
        if (entry < 0 || static_cast<std::size_t>(entry) >= devices.size())
          throwValueError("device-kind handler '" + handler->name + "' returned a position outside the device list");
      placement.grid = toPositions(std::move(*grid), devices);
      placement.path = "handler:" + handler->name;
      return placement;
    }
  }

  switch (last.platform) {
  case Platform::Tpu: {
    if (!options.contiguous_submeshes) {
      // Fused fast path: plan the assignment from the corner-derived physical shape (whole axes,
      // else the splitting search when allowed) and scatter every device straight into its
      // logical cell, with no physical-mesh array and no transpose pass.
      AssignmentMatrix assignment;
      bool split = false;
      const TablesForShape tables = [&](const Shape& physical, std::vector<std::vector<int>>& out) {
        if (auto plan = planWholeAxisAssignment(physical, meshShape)) {
          if (plan->perm.size() != physical.size()) return false; // numpy's transpose would raise
          assignment = std::move(plan->assignment);
        } else if (options.allow_split_physical_axes) {
          try {
            assignment = planSplitAssignment(physical, meshShape);
          } catch (const Error&) {
            return false; // the exact path raises it
          }
          split = true;
        } else {
          return false; // the exact path raises NotImplementedError
        }
        out = logicalOffsetTables(physical, assignment);
        return true;
      };
      Shape physicalShape;
      if (auto cells = placeCornerOrdered(devices, tables, &physicalShape)) {
        placement.grid = DeviceGrid(meshShape, std::move(*cells)); // already full-list positions
        placement.path = split ? "nd_torus_split" : "nd_torus";
        placement.physical_shape = std::move(physicalShape);
        placement.assignment = std::move(assignment);
        return placement;
      }
    }
    DeviceGrid physical = physicalTpuMesh(devices);
    if (options.contiguous_submeshes) physical = transposeTrick(physical, meshShape);
    TorusAssignment torus = createDeviceMeshForNdTorus(physical, meshShape, options.allow_split_physical_axes);
    placement.grid = toPositions(std::move(torus.mesh), devices);
    placement.path = torus.split ? "nd_torus_split" : "nd_torus";
    placement.physical_shape = physical.shape();
    placement.assignment = std::move(torus.assignment);
    return placement;
  }
  case Platform::Gpu: {
    // sorted(devices, key=id): stable, so equal ids keep list order.
    std::vector<int> order(devices.size());
    std::iota(order.begin(), order.end(), 0);
    const bool alreadySorted = std::is_sorted(order.begin(), order.end(), [&](int a, int b) {
      return devices[static_cast<std::size_t>(a)].id < devices[static_cast<std::size_t>(b)].id;
    });
    if (!alreadySorted)
      std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
        return devices[static_cast<std::size_t>(a)].id < devices[static_cast<std::size_t>(b)].id;
      });
    const auto count = static_cast<std::int64_t>(order.size()); // read before the move below
    placement.grid = toPositions(reshaped(DeviceGrid({count}, std::move(order)), meshShape), devices);
    placement.path = "gpu_sort_by_id";
    return placement;
  }
  case Platform::Cpu:
    break;
  }
  std::vector<int> order(devices.size());
  std::iota(order.begin(), order.end(), 0);
  const auto count = static_cast<std::int64_t>(order.size());
  placement.grid = toPositions(reshaped(DeviceGrid({count}, std::move(order)), meshShape), devices);
  placement.path = "reshape";
  return placement;
}

} // namespace mesh_detail

std::optional<Shape> canonicalizeAxisSizes(const PyValue& raw) {
  Shape out;
  switch (raw.kind) {
  case PyValue::Kind::List:
  case PyValue::Kind::Tuple:
    out.reserve(raw.items.size());
    for (const auto& item : raw.items) {
      auto v = pyInt(item);
      if (!v) return std::nullopt;
      out.push_back(*v);
    }
    return out;
  case PyValue::Kind::Str:
    // A str is a sequence of one-character strings to Python: "24" canonicalizes to (2, 4).
    for (char c : raw.s) {
      if (c < '0' || c > '9') return std::nullopt;
      out.push_back(c - '0');
    }
    return out;
  default:
    return std::nullopt; // int() over a non-iterable: TypeError, swallowed into None
  }
}

MeshPlacement createDeviceMesh(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions& options) {
  return mesh_detail::createDeviceMeshOnView(meshShape, mesh_detail::DeviceView::whole(devices), options);
}

MeshPlacement createDeviceMesh(const PyValue& rawMeshShape, const DeviceList& devices,
                               const CreateMeshOptions& options) {
  return createDeviceMesh(mesh_detail::canonicalMeshShape(rawMeshShape), devices, options);
}

} // namespace shardscope
