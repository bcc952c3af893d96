// SPDX-License-Identifier: Apache-2.0
// eformer's escale mesh creation (../shared/spec/eformer-escale-and-jaxpp.md §1.2): create_mesh,
// calculate_host_mesh_shape and parse_mesh_from_string, on top of the JAX device-mesh engine
// (device_mesh.hpp). The JAX runtime eformer reads (process count, local devices, the
// MEGASCALE_NUM_SLICES variable) is an explicit input, so any cluster can be planned offline.
//
// Where eformer silently builds a mesh of another shape than the one asked for (a user
// dcn_mesh_dims that disagrees with its own host split, eformer-jaxpp spec §1.11 #4), the result carries a
// warning saying so instead of hiding it.
#pragma once

#include "shardscope/hardware/device.hpp"
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/base/nd_array.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

// eformer's DEFAULT_SHARDING_STG and DEFAULT_NAMED_SHARDING_STG: everything on fsdp.
inline const Shape kEformerDefaultAxisDims = {1, -1, 1, 1, 1};
inline const std::vector<std::string> kEformerDefaultAxisNames = {"dp", "fsdp", "ep", "tp", "sp"};

// What eformer asks the JAX runtime.
struct SimulatedRuntime {
  std::int64_t process_count = 1; // jax.process_count()
  int process_index = 0;          // the current process; its devices are jax.local_devices()
  // MEGASCALE_NUM_SLICES; unset by default. eformer reads it only when the devices report a single
  // slice, and it can then *raise* the slice count (eformer-jaxpp spec §1.11 #17).
  std::optional<std::int64_t> megascale_num_slices;
};

// The axis_types argument as eformer accepts it: absent, one value for every axis, or a list (a
// one-entry list is broadcast to every axis). Entries are names ("auto", "Explicit", " MANUAL "),
// matched after stripping and lower-casing. An entry that is not a string at all (possible from
// JSON) keeps its type name and fails in the reference's order.
struct AxisTypesArg {
  enum class Form { Absent, Single, List };
  struct Entry {
    std::string text; // the name, or the JSON type name when !is_string
    bool is_string = true;
  };
  Form form = Form::Absent;
  std::vector<Entry> entries; // one entry for Single

  static AxisTypesArg absent() { return {}; }
  static AxisTypesArg single(std::string name);
  static AxisTypesArg list(const std::vector<std::string>& names);
};

// eformer's _normalize_axis_types: nullopt for Absent, else one AxisType per axis name.
// ValueError for an unknown name or a length mismatch (texts as eformer's), and for a non-string
// entry (eformer raises TypeError there; we answer a ValueError saying what is wrong).
std::optional<std::vector<AxisType>> normalizeEformerAxisTypes(const std::vector<std::string>& axisNames,
                                                               const AxisTypesArg& axisTypes);

// numpy's `np.arange(size).reshape(dims).shape`: one negative entry is inferred; errors carry
// numpy 1.24's texts ("cannot reshape array of size 8 into shape (3,newaxis)",
// "can only specify one unknown dimension").
Shape resolveReshape(const Shape& dims, std::int64_t size);

// eformer's calculate_host_mesh_shape: the per-process shape, splitting the leftmost axes first.
// Arguments are the values after eformer's `x or runtime_default` fallbacks.
Shape calculateHostMeshShape(const Shape& globalMeshShape, std::int64_t totalDevices, std::int64_t numProcesses);

// eformer's fill_minus_one_to_target for dcn_mesh_dims: at most one -1, the rest positive, the
// product must equal `target` (slices or processes).
Shape fillDcnMinusOne(const Shape& dcnMeshDims, std::int64_t target);

// eformer's _get_num_slices: distinct slice_index values when the first device has one (a list
// where only some devices have it counts as one slice, as the swallowed exception does), then
// MEGASCALE_NUM_SLICES when that gave 1.
std::int64_t eformerNumSlices(const DeviceList& devices, const SimulatedRuntime& runtime);

struct EformerMeshArgs {
  Shape axis_dims = kEformerDefaultAxisDims;
  std::vector<std::string> axis_names = kEformerDefaultAxisNames;
  std::optional<Shape> dcn_mesh_dims;
  bool should_sort_granules_by_key = true;
  bool allow_split_physical_axes = true;
  bool use_jax = false;
  AxisTypesArg axis_types;
};

// Which branch of create_mesh built the mesh.
enum class EformerMeshPath {
  MakeMesh,      // use_jax on one slice, one process, no dcn_mesh_dims: jax.make_mesh
  MultiSlice,    // create_hybrid_device_mesh with slices as granules
  MultiProcess,  // create_hybrid_device_mesh with processes as granules
  SingleProcess, // create_device_mesh
};
inline constexpr std::array<std::pair<std::string_view, EformerMeshPath>, 4> kEformerMeshPathNames{{
    {"make_mesh", EformerMeshPath::MakeMesh},
    {"multi_slice", EformerMeshPath::MultiSlice},
    {"multi_process", EformerMeshPath::MultiProcess},
    {"single_process", EformerMeshPath::SingleProcess},
}};
std::string_view eformerMeshPathName(EformerMeshPath path); // the name in kEformerMeshPathNames

struct EformerMesh {
  Mesh mesh; // axis types Auto unless given (Explicit by default on MakeMesh)
  EformerMeshPath path = EformerMeshPath::SingleProcess;
  Shape requested_shape; // axis_dims with -1 resolved against all devices
  std::int64_t num_slices = 1;
  Shape granule_shape;                           // hybrid paths: the per-slice / per-process (ICI) shape
  Shape dcn_shape;                               // hybrid paths: the DCN shape used
  std::optional<std::size_t> dcn_axis;           // multi-slice without dcn_mesh_dims: the axis split over slices
  MeshPlacement placement;                       // single-process and make_mesh paths: how the engine decided
  std::vector<MeshPlacement> granule_placements; // hybrid paths, in DCN order
  // Where eformer changed what was asked without saying so; empty when the mesh has the requested shape.
  std::vector<std::string> warnings;
};

// eformer's create_mesh on an explicit device list (jax.devices() order) and runtime.
// Throws Error (ValueError / NotImplementedError / AssertionError as the reference does).
EformerMesh createEformerMesh(const DeviceList& devices, const EformerMeshArgs& args = {},
                              const SimulatedRuntime& runtime = {});

// The dims and names parse_mesh_from_string hands to create_mesh. Named form "dp:2,tp:4" (the
// mesh follows the string's order, names must all appear) or positional form "2,4" (zipped with
// `names`). Integers follow Python's int(): surrounding spaces, a sign and digit-separating
// underscores are fine. Errors carry eformer's and CPython's texts.
struct ParsedMeshString {
  Shape dims;
  std::vector<std::string> names;
};
ParsedMeshString parseMeshString(std::string_view axisDims, const std::vector<std::string>& names);

// eformer's parse_mesh_from_string: parseMeshString then create_mesh with every other default.
EformerMesh parseMeshFromString(std::string_view axisDims, const std::vector<std::string>& names,
                                const DeviceList& devices, const SimulatedRuntime& runtime = {});

} // namespace shardscope
