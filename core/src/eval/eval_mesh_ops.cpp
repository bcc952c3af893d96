// SPDX-License-Identifier: Apache-2.0
// Eval ops of the device-mesh engine: create_device_mesh, create_hybrid_device_mesh, make_mesh.
// Shapes are read as the reference receives them: any JSON value, or a Python literal in
// "<field>_repr" (how the golden files carry tuples and other non-JSON values), canonicalized
// with Python's int() so loose inputs and their error texts match JAX.
#include "base/json_input.hpp"
#include "shardscope/base/json_text.hpp"
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/base/errors.hpp"

#include <cctype>

namespace shardscope::eval {

namespace {

// JSON lists, at any depth, stand for the tuples a Python caller would pass, so messages print
// them as tuples: [[4], 4] is ((4,), 4).
void listsToTuples(PyValue& value) {
  if (value.kind == PyValue::Kind::List) value.kind = PyValue::Kind::Tuple;
  for (auto& item : value.items) listsToTuples(item);
}

// The raw value of a shape field: a JSON value, or a Python literal in "<field>_repr".
PyValue rawShape(const Json& request, const char* field) {
  const std::string reprField = std::string(field) + "_repr";
  if (const JsonField repr = fields(request)[reprField]; repr.present()) {
    if (!repr.json().is_string()) repr.fail("must be a string holding a Python literal, got " + jsonRepr(repr.json()));
    return parsePyLiteral(repr.json().get<std::string>());
  }
  PyValue raw = pyFromJson(requireField(request, field), field);
  listsToTuples(raw);
  return raw;
}

Json idsOf(const DeviceGrid& grid, const DeviceList& devices) {
  return nestedJson(grid.map([&](int pos) { return devices[static_cast<std::size_t>(pos)].id; }));
}

std::optional<std::vector<AxisType>> axisTypesField(const Json& request) {
  auto it = request.find("axis_types");
  if (it == request.end() || it->is_null()) return std::nullopt;
  // A single type stands for a 1-tuple, as _normalize_axis_types wraps a non-tuple.
  Json list = it->is_array() ? *it : Json::array({*it});
  std::vector<AxisType> types;
  for (const auto& t : list) {
    std::string name = t.is_string() ? t.get<std::string>() : "";
    if (name.rfind("AxisType.", 0) == 0) name.erase(0, 9);
    if (!name.empty()) name[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(name[0])));
    auto parsed = parseAxisType(name);
    if (!parsed) throwValueError("field 'axis_types' must hold Auto, Explicit or Manual, got " + dumpJson(t));
    types.push_back(*parsed);
  }
  return types;
}

} // namespace

Json opCreateDeviceMesh(const Json& request, EvalContext& context) {
  warnUnknownFields(request,
                    {"op", "devices", "device_kind", "platform", "mesh_shape", "mesh_shape_repr",
                     "allow_split_physical_axes", "contiguous_submeshes"},
                    "create_device_mesh", context.warnings);
  const DeviceList devices = parseDevices(request);
  const PyValue shape = rawShape(request, "mesh_shape");
  CreateMeshOptions options;
  options.allow_split_physical_axes = boolField(request, "allow_split_physical_axes", false);
  options.contiguous_submeshes = boolField(request, "contiguous_submeshes", false);
  return idsOf(createDeviceMesh(shape, devices, options).grid, devices);
}

Json opCreateHybridDeviceMesh(const Json& request, EvalContext&) {
  const DeviceList devices = parseDevices(request);
  const PyValue shape = rawShape(request, "mesh_shape");
  HybridMeshOptions options;
  Shape dcn;
  if (auto it = request.find("dcn_mesh_shape_repr"); it != request.end() && !it->is_null()) {
    if (!it->is_string()) throwValueError("field 'dcn_mesh_shape_repr' must be a string holding a Python literal");
    options.dcn_mesh_shape_repr = it->get<std::string>();
    auto sizes = canonicalizeAxisSizes(parsePyLiteral(options.dcn_mesh_shape_repr));
    if (!sizes) throwValueError("field 'dcn_mesh_shape_repr' must be a sequence of integers");
    dcn = *sizes;
  } else {
    dcn = intList(requireField(request, "dcn_mesh_shape"), "dcn_mesh_shape");
  }
  options.process_is_granule = boolField(request, "process_is_granule", false);
  options.should_sort_granules_by_key = boolField(request, "should_sort_granules_by_key", true);
  options.allow_split_physical_axes = boolField(request, "allow_split_physical_axes", false);
  return idsOf(createHybridDeviceMesh(shape, dcn, devices, options).grid, devices);
}

Json opMakeMesh(const Json& request, EvalContext& context) {
  warnUnknownFields(
      request,
      {"op", "axis_sizes", "axis_sizes_repr", "axis_names", "axis_types", "devices", "device_kind", "platform"},
      "make_mesh", context.warnings);
  const DeviceList devices = parseDevices(request);
  const PyValue raw = rawShape(request, "axis_sizes");
  const auto names = stringList(requireField(request, "axis_names"), "axis_names");
  // JAX's own text for sizes that are not ints; then sizes below 1, which JAX lets through to an
  // IndexError on an empty device list (0) or a slice from the end (-2), are named here instead.
  const auto sizes = canonicalizeAxisSizes(raw);
  if (!sizes) throwValueError("`axis_sizes` passed to `make_mesh` should be a sequence of ints. Got " + pyRepr(raw));
  for (std::size_t i = 0; i < sizes->size(); ++i)
    if ((*sizes)[i] < 1)
      fieldAt(request, "axis_sizes[" + std::to_string(i) + "]")
          .fail("must be a positive integer, got " + std::to_string((*sizes)[i]));
  const Mesh mesh = makeMesh(*sizes, names, axisTypesField(request), devices);
  Json out;
  out["device_ids"] = nestedJson(mesh.deviceIds());
  out["axis_names"] = mesh.axis_names;
  Json types = Json::array();
  for (auto t : mesh.axis_types) types.push_back(std::string(axisTypeName(t)));
  out["axis_types"] = std::move(types);
  return out;
}

} // namespace shardscope::eval
