// Logical-to-physical device assignment, behaving exactly as JAX's mesh_utils
// (../shared/spec/jax-mesh-utils.md §1-§5, §9): create_device_mesh, create_hybrid_device_mesh and
// jax.make_mesh. Results are grids of positions into the given device list, plus an explanation of
// which code path produced them so the GUI can say why an axis landed where it did.
#pragma once

#include "shardscope/device.hpp"
#include "shardscope/mesh.hpp"
#include "shardscope/nd_array.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope {

struct CreateMeshOptions {
  bool contiguous_submeshes = false;
  bool allow_split_physical_axes = false;
};

// How one create_device_mesh call decided.
struct MeshPlacement {
  DeviceGrid grid;       // positions into the device list passed in
  // "handler:<reference function name>", "nd_torus", "nd_torus_split", "gpu_sort_by_id" or "reshape"
  std::string path;
  // Physical mesh the torus paths worked on (after any contiguous-submesh transpose), e.g. {4,4,8}
  // or {2,2,2,2} with a trailing core axis; empty for handler/GPU/CPU paths.
  Shape physical_shape;
  // [physical axis][logical axis] -> size taken, as the reference's assignment matrix; empty when
  // the path has none.
  std::vector<std::vector<std::int64_t>> assignment;
};

MeshPlacement createDeviceMesh(const Shape& meshShape, const DeviceList& devices,
                               const CreateMeshOptions& options = {});

struct HybridMeshOptions {
  bool process_is_granule = false;
  bool should_sort_granules_by_key = true;
  bool allow_split_physical_axes = false;
};

struct HybridPlacement {
  DeviceGrid grid;                        // positions into the full device list
  std::vector<MeshPlacement> granules;    // one per slice/process, in DCN order (positions into the full list)
};

HybridPlacement createHybridDeviceMesh(const Shape& meshShape, const Shape& dcnMeshShape,
                                       const DeviceList& devices, const HybridMeshOptions& options = {});

// jax.make_mesh: truncates to the first prod(axis_sizes) devices, auto-splits on v5e, refuses
// multi-slice, axis types default to Explicit. The Mesh holds the (truncated) device list.
Mesh makeMesh(const Shape& axisSizes, const std::vector<std::string>& axisNames,
              const std::optional<std::vector<AxisType>>& axisTypes, const DeviceList& devices,
              MeshPlacement* placementOut = nullptr);

} // namespace shardscope
