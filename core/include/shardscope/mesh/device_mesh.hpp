// SPDX-License-Identifier: Apache-2.0
// Logical-to-physical device assignment, behaving exactly as JAX's mesh_utils
// (../shared/spec/jax-mesh-utils.md §1-§5, §9): create_device_mesh, create_hybrid_device_mesh and
// jax.make_mesh. Results are grids of positions into the given device list, plus an explanation of
// which code path produced them so the GUI can say why an axis landed where it did.
#pragma once

#include "shardscope/hardware/device.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/base/nd_array.hpp"

#include "shardscope/base/py_value.hpp"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct CreateMeshOptions {
  bool contiguous_submeshes = false;
  bool allow_split_physical_axes = false;
};

// How one create_device_mesh call decided.
struct MeshPlacement {
  DeviceGrid grid; // positions into the device list passed in
  // "handler:<reference function name>", "nd_torus", "nd_torus_split", "gpu_sort_by_id" or "reshape"
  std::string path;
  // Physical mesh the torus paths worked on (after any contiguous-submesh transpose), e.g. {4,4,8}
  // or {2,2,2,2} with a trailing core axis; empty for handler/GPU/CPU paths.
  Shape physical_shape;
  // [physical axis][logical axis] -> size taken, as the reference's assignment matrix; empty when
  // the path has none.
  std::vector<std::vector<std::int64_t>> assignment;
};

// jax.experimental.mesh_utils.create_device_mesh on an already-canonical shape. Throws Error with
// the reference's exception kind and text (§4). Positions in the grid index `devices`.
MeshPlacement createDeviceMesh(const Shape& meshShape, const DeviceList& devices,
                               const CreateMeshOptions& options = {});
// The same from a raw Python value, canonicalized with int() first (§3 step 2): a value int()
// rejects raises "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got ...".
MeshPlacement createDeviceMesh(const PyValue& rawMeshShape, const DeviceList& devices,
                               const CreateMeshOptions& options = {});

// int() of every element, as _canonicalize_axis_sizes; nullopt when any element (or the value
// itself, when it is not a sequence) fails.
std::optional<Shape> canonicalizeAxisSizes(const PyValue& raw);

// --- The device-kind registry (JAX's public, mutable device_kind_handler_dict).
// A handler sees the canonical shape and the devices; it returns a grid of positions, or nullopt
// to fall through to the generic paths. Both option flags are passed but the built-ins ignore them.
using DeviceMeshHandlerFn = std::function<std::optional<DeviceGrid>(const Shape& meshShape, const DeviceList& devices,
                                                                    const CreateMeshOptions& options)>;
struct DeviceMeshHandler {
  std::string name; // reported in MeshPlacement::path as "handler:<name>"
  DeviceMeshHandlerFn fn;
};
// Adds or replaces the handler of a device kind (thread-safe; affects every later call).
void registerDeviceMeshHandler(const std::string& deviceKind, DeviceMeshHandler handler);
// Removes it; false when the kind had none.
bool unregisterDeviceMeshHandler(std::string_view deviceKind);
// The handler of a kind, or nullptr.
std::shared_ptr<const DeviceMeshHandler> findDeviceMeshHandler(std::string_view deviceKind);
// Device kinds that have a handler, sorted.
std::vector<std::string> deviceMeshHandlerKinds();
// Restores the built-in table (§2): v2/v3, v4 lite, v5 lite/v5e/v6 lite, v5p/v5, 7x/7, 8i.
void resetDeviceMeshHandlers();

struct HybridMeshOptions {
  bool process_is_granule = false;
  bool should_sort_granules_by_key = true;
  bool allow_split_physical_axes = false;
  // How the granule-count error prints dcn_mesh_shape (the reference prints the value as passed);
  // empty means a Python tuple such as "(4, 1, 1)".
  std::string dcn_mesh_shape_repr;
};

struct HybridPlacement {
  DeviceGrid grid;                     // positions into the full device list
  std::vector<MeshPlacement> granules; // one per slice/process, in DCN order (positions into the full list)
};

HybridPlacement createHybridDeviceMesh(const Shape& meshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                                       const HybridMeshOptions& options = {});
// The same with a raw mesh_shape (canonicalized by each granule's create_device_mesh call, after
// the granule checks, as the reference does).
HybridPlacement createHybridDeviceMesh(const PyValue& rawMeshShape, const Shape& dcnMeshShape,
                                       const DeviceList& devices, const HybridMeshOptions& options = {});

// jax.make_mesh: truncates to the first prod(axis_sizes) devices, auto-splits on v5e, refuses
// multi-slice, axis types default to Explicit. The Mesh holds the (truncated) device list.
Mesh makeMesh(const Shape& axisSizes, const std::vector<std::string>& axisNames,
              const std::optional<std::vector<AxisType>>& axisTypes, const DeviceList& devices,
              MeshPlacement* placementOut = nullptr);
// The same with raw axis sizes ("`axis_sizes` passed to `make_mesh` should be a sequence of ints").
Mesh makeMesh(const PyValue& rawAxisSizes, const std::vector<std::string>& axisNames,
              const std::optional<std::vector<AxisType>>& axisTypes, const DeviceList& devices,
              MeshPlacement* placementOut = nullptr);

} // namespace shardscope
