// SPDX-License-Identifier: Apache-2.0
// Eval ops for eformer's mesh creation and jaxpp's MpmdMesh, in the request and result forms of
// ../shared/golden/eformer-jaxpp-public.json (its `meta.ops`).
#include "base/json_input.hpp"
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/mpmd_mesh.hpp"

#include <set>

namespace shardscope::eval {

namespace {

// numpy's rank limit, also the deepest nesting accepted for a device grid.
constexpr std::size_t kMaxMeshAxes = 32;

// jax.process_count() of the simulated runtime (meta: simulated_runtime); the current process is 0.
SimulatedRuntime runtimeFrom(const Json& request) {
  SimulatedRuntime runtime;
  const JsonField r = fields(request);
  runtime.process_count = r["process_count"].intOr(runtime.process_count, kPositiveInt);
  // Not in the golden protocol: lets a caller model MEGASCALE_NUM_SLICES (unset by default).
  if (auto slices = r["megascale_num_slices"].optionalInt(kPositiveInt)) runtime.megascale_num_slices = *slices;
  return runtime;
}

// axis_types "passed through as given": null, one string, or a list whose entries eformer checks
// one by one (a non-string entry keeps its JSON type name for the message).
AxisTypesArg axisTypesFrom(const Json& request) {
  auto it = request.find("axis_types");
  if (it == request.end() || it->is_null()) return AxisTypesArg::absent();
  if (it->is_string()) return AxisTypesArg::single(it->get<std::string>());
  if (!it->is_array())
    throwValueError(std::string("field 'axis_types' must be null, a string or a list of strings, got ") +
                    it->type_name());
  AxisTypesArg arg;
  arg.form = AxisTypesArg::Form::List;
  for (const auto& v : *it) {
    if (v.is_string())
      arg.entries.push_back({v.get<std::string>(), true});
    else
      arg.entries.push_back({v.type_name(), false});
  }
  return arg;
}

Shape optionalIntList(const Json& request, const char* name, const Shape& fallback) {
  return present(request, name) ? intList(request[name], name) : fallback;
}

std::vector<std::string> optionalStringList(const Json& request, const char* name,
                                            const std::vector<std::string>& fallback) {
  return present(request, name) ? stringList(request[name], name) : fallback;
}

// meta.common_encodings.mesh_result. A repeated axis name keeps its first position and the last
// size, as dict(mesh.shape) does.
Json meshResult(const Mesh& mesh) {
  Json shape = Json::object();
  for (std::size_t i = 0; i < mesh.axis_names.size(); ++i) shape[mesh.axis_names[i]] = mesh.shape()[i];
  Json types = Json::array();
  for (AxisType t : mesh.axis_types) types.push_back(std::string(axisTypeName(t)));
  Json out;
  out["shape"] = std::move(shape);
  out["device_ids"] = nestedJson(mesh.deviceIds());
  out["axis_types"] = std::move(types);
  return out;
}

Json answerMesh(EformerMesh built, EvalContext& context) {
  for (auto& w : built.warnings) context.warnings.push_back(std::move(w));
  return meshResult(built.mesh);
}

// A nested list of integers of exactly `shape`, flattened row-major.
void flattenNested(const Json& value, const Shape& shape, std::size_t level, const std::string& what,
                   std::vector<std::int64_t>& out) {
  if (level == shape.size()) {
    if (!value.is_number_integer())
      throwValueError("field '" + what + "' must hold integers, got " + value.type_name());
    out.push_back(value.get<std::int64_t>());
    return;
  }
  if (!value.is_array() || static_cast<std::int64_t>(value.size()) != shape[level]) {
    const std::string found =
        value.is_array() ? std::to_string(value.size()) + " entries" : std::string("a ") + value.type_name();
    throwValueError("field '" + what + "' must be nested lists of shape " + shapeRepr(shape) +
                    " (the mesh_axes sizes); level " + std::to_string(level) + " has " + found + " instead of " +
                    std::to_string(shape[level]));
  }
  for (const auto& v : value) flattenNested(v, shape, level + 1, what, out);
}

} // namespace

Json opCreateMesh(const Json& request, EvalContext& context) {
  const DeviceList devices = parseDevices(request);
  EformerMeshArgs args;
  args.axis_dims = optionalIntList(request, "axis_dims", kEformerDefaultAxisDims);
  args.axis_names = optionalStringList(request, "axis_names", kEformerDefaultAxisNames);
  if (auto it = request.find("dcn_mesh_dims"); it != request.end() && !it->is_null())
    args.dcn_mesh_dims = intList(*it, "dcn_mesh_dims");
  args.should_sort_granules_by_key = boolField(request, "should_sort_granules_by_key", true);
  args.allow_split_physical_axes = boolField(request, "allow_split_physical_axes", true);
  args.use_jax = boolField(request, "use_jax", false);
  args.axis_types = axisTypesFrom(request);
  return answerMesh(createEformerMesh(devices, args, runtimeFrom(request)), context);
}

Json opCalculateHostMeshShape(const Json& request, EvalContext&) {
  const Shape global = intList(requireField(request, "global_mesh_shape"), "global_mesh_shape");
  // eformer uses `value or runtime_default`: 0 or null falls back to jax.local_device_count() /
  // jax.process_count() of the simulated runtime (optional "devices" and "process_count").
  auto orRuntime = [&](const char* name, auto fallback) -> std::int64_t {
    auto it = request.find(name);
    if (it != request.end() && !it->is_null()) {
      const std::int64_t v = intField(request, name);
      if (v != 0) return v;
    }
    return fallback();
  };
  const std::int64_t total = orRuntime("total_devices", [&] {
    if (request.find("devices") == request.end()) return std::int64_t{0};
    std::int64_t local = 0;
    for (const auto& d : parseDevices(request)) local += d.process_index == 0 ? 1 : 0;
    return local;
  });
  const std::int64_t processes = orRuntime("num_processes", [&] { return runtimeFrom(request).process_count; });
  Json out = Json::array();
  for (auto d : calculateHostMeshShape(global, total, processes)) out.push_back(d);
  return out;
}

Json opParseMeshFromString(const Json& request, EvalContext& context) {
  const std::string axisDims = stringField(request, "axis_dims");
  const auto names = stringList(requireField(request, "names"), "names");
  // The string is checked before the devices are needed, as eformer does.
  ParsedMeshString parsed = parseMeshString(axisDims, names);
  EformerMeshArgs args;
  args.axis_dims = std::move(parsed.dims);
  args.axis_names = std::move(parsed.names);
  return answerMesh(createEformerMesh(parseDevices(request), args, runtimeFrom(request)), context);
}

Json opMpmdMesh(const Json& request, EvalContext&) {
  const Json& axes = requireField(request, "mesh_axes");
  if (!axes.is_array()) throwValueError("field 'mesh_axes' must be a list of [name, size] pairs");
  if (axes.size() > kMaxMeshAxes)
    throwValueError("field 'mesh_axes' has more than " + std::to_string(kMaxMeshAxes) + " axes");
  Mesh mesh;
  Shape shape;
  const JsonField axesField = fields(request)["mesh_axes"];
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const JsonField a = axesField[i];
    if (!a.json().is_array() || a.json().size() != 2) a.fail("must be a [name, size] pair, got " + jsonRepr(a.json()));
    mesh.axis_names.push_back(a[0].toString());
    shape.push_back(a[1].toInt(kNonNegativeInt));
  }
  std::vector<std::int64_t> ids, processes;
  flattenNested(requireField(request, "device_ids"), shape, 0, "device_ids", ids);
  if (auto it = request.find("process_index"); it != request.end() && !it->is_null())
    flattenNested(*it, shape, 0, "process_index", processes);
  else
    processes.assign(ids.size(), 0);

  std::set<std::int64_t> seen;
  std::vector<int> positions;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    if (!seen.insert(ids[i]).second)
      throwValueError("field 'device_ids' lists device " + std::to_string(ids[i]) + " twice");
    if (processes[i] < 0 || processes[i] > (1 << 30))
      throwValueError("field 'process_index' must hold process numbers >= 0");
    Device d;
    d.id = ids[i];
    d.platform = Platform::Gpu;
    d.device_kind = "gpu";
    d.process_index = static_cast<int>(processes[i]);
    mesh.devices.push_back(std::move(d));
    positions.push_back(static_cast<int>(i));
  }
  mesh.grid = DeviceGrid(shape, std::move(positions));
  mesh.axis_types.assign(mesh.axis_names.size(), AxisType::Auto);

  // Same order of evaluation as jaxpp: construction (and its check), mpmd_dim, unstack, device_mpmd_idx.
  const MpmdMesh mpmd(std::move(mesh), stringField(request, "mpmd_axis_name"));
  Json out;
  out["mpmd_dim"] = mpmd.mpmdDim();
  Json groups = Json::array();
  for (const Mesh& g : mpmd.unstack()) groups.push_back(nestedJson(g.deviceIds()));
  out["groups"] = std::move(groups);
  Json idx = Json::object();
  for (const auto& [id, group] : mpmd.deviceMpmdIdx()) idx[std::to_string(id)] = group;
  out["device_mpmd_idx"] = std::move(idx);
  return out;
}

} // namespace shardscope::eval
