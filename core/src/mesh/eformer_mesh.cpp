// SPDX-License-Identifier: Apache-2.0
// eformer create_mesh and its helpers (spec eformer-escale-and-jaxpp.md §1.2). The device
// placement itself is the JAX engine's (device_mesh.hpp); this file decides which engine call
// eformer makes, with which shapes, and reproduces eformer's and numpy's checks and texts.
#include "shardscope/mesh/eformer_mesh.hpp"

#include "mesh/eformer_python_text.hpp"
#include "shardscope/base/errors.hpp"

#include <set>

namespace shardscope {

namespace {

// Python's exact integers become int64 here; a product that leaves int64 is reported instead of
// wrapping (numpy would wrap silently, Python would carry on with a huge number).
std::int64_t checkedMul(std::int64_t a, std::int64_t b, const char* what) {
  std::int64_t out = 0;
  if (__builtin_mul_overflow(a, b, &out))
    throwValueError(std::string(what) + " is too large: its product does not fit in 64 bits");
  return out;
}

std::int64_t checkedProduct(const Shape& shape, const char* what) {
  std::int64_t p = 1;
  for (auto d : shape) p = checkedMul(p, d, what);
  return p;
}

// Python's floor division for b != 0.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
  return q;
}

// numpy's convert_shape_to_string as its reshape errors print the requested shape: leading
// unknown (negative) dimensions are dropped, later ones print as "newaxis", one entry gets a
// trailing comma.
std::string numpyShapeText(const Shape& dims) {
  std::size_t i = 0;
  while (i < dims.size() && dims[i] < 0) ++i;
  if (i == dims.size()) return "()";
  std::string out = "(";
  out += std::to_string(dims[i++]);
  for (; i < dims.size(); ++i) {
    out += ',';
    out += dims[i] < 0 ? std::string("newaxis") : std::to_string(dims[i]);
  }
  out += dims.size() == 1 ? ",)" : ")";
  return out;
}

[[noreturn]] void throwReshapeMismatch(const Shape& dims, std::int64_t size) {
  throwValueError("cannot reshape array of size " + std::to_string(size) + " into shape " + numpyShapeText(dims));
}

// numpy's limit on array rank (NPY_MAXDIMS in numpy 1.x).
constexpr std::size_t kNumpyMaxDims = 32;

// jax.sharding.Mesh(devices, axis_names, axis_types): its rank check, then Auto by default.
Mesh buildJaxMesh(const DeviceList& devices, DeviceGrid grid, const std::vector<std::string>& axisNames,
                  const std::optional<std::vector<AxisType>>& axisTypes) {
  if (grid.ndim() != axisNames.size())
    throwValueError("Mesh requires the ndim of its first argument (`devices`) to equal the length of its second "
                    "argument (`axis_names`), but got devices.ndim == " +
                    std::to_string(grid.ndim()) + " and len(axis_names) == " + std::to_string(axisNames.size()) + ".");
  Mesh mesh;
  mesh.devices = devices;
  mesh.grid = std::move(grid);
  mesh.axis_names = axisNames;
  mesh.axis_types = axisTypes.value_or(std::vector<AxisType>(axisNames.size(), AxisType::Auto));
  return mesh;
}

std::string meshShapeText(const Mesh& mesh) {
  std::string out = "{";
  for (std::size_t i = 0; i < mesh.axis_names.size(); ++i)
    out += (i ? ", " : "") + pytext::reprStr(mesh.axis_names[i]) + ": " + std::to_string(mesh.shape()[i]);
  return out + "}";
}

// The warning for a mesh whose shape differs from the resolved axis_dims (eformer-jaxpp spec §1.11 #4): eformer
// chooses the per-granule shape with its own leftmost split and then tiles the granules by
// whatever DCN shape it was given, so the device count is kept while the axis sizes move.
std::string shapeChangeWarning(const EformerMesh& out, const std::optional<Shape>& userDcn, bool byProcess) {
  const char* granules = byProcess ? "processes" : "slices";
  std::string text = "create_mesh built a mesh of shape " + meshShapeText(out.mesh) + ", not the requested axis_dims " +
                     shapeRepr(out.requested_shape) + ": eformer gives each of the " + granules + " a " +
                     shapeRepr(out.granule_shape) + " block of its own choosing (" +
                     (byProcess ? "splitting the leftmost axes" : "dividing the first axis the slice count divides") +
                     ") and lays the " + granules + " out by the DCN shape " + shapeRepr(out.dcn_shape);
  if (userDcn) {
    text += " from dcn_mesh_dims " + shapeRepr(*userDcn);
    if (userDcn->size() != out.requested_shape.size())
      text += ", which has " + std::to_string(userDcn->size()) + (userDcn->size() == 1 ? " axis" : " axes") +
              " for a " + std::to_string(out.requested_shape.size()) +
              "-axis mesh (numpy's block layout lines the DCN axes up "
              "with the last mesh axes)";
  } else {
    text += " (its fallback when the per-axis ratios do not multiply to the process count)";
  }
  // The DCN shape that would have kept axis_dims: requested / per-granule size, axis by axis.
  bool divisible = out.granule_shape.size() == out.requested_shape.size();
  Shape keep;
  for (std::size_t i = 0; divisible && i < out.requested_shape.size(); ++i) {
    divisible = out.granule_shape[i] > 0 && out.requested_shape[i] % out.granule_shape[i] == 0;
    if (divisible) keep.push_back(out.requested_shape[i] / out.granule_shape[i]);
  }
  text += ". The axis sizes changed while the device count stayed the same";
  if (divisible) text += "; dcn_mesh_dims " + shapeRepr(keep) + " (or none) keeps axis_dims";
  return text + ".";
}

} // namespace

AxisTypesArg AxisTypesArg::single(std::string name) {
  AxisTypesArg arg;
  arg.form = Form::Single;
  arg.entries.push_back({std::move(name), true});
  return arg;
}

AxisTypesArg AxisTypesArg::list(const std::vector<std::string>& names) {
  AxisTypesArg arg;
  arg.form = Form::List;
  for (const auto& n : names) arg.entries.push_back({n, true});
  return arg;
}

std::optional<std::vector<AxisType>> normalizeEformerAxisTypes(const std::vector<std::string>& axisNames,
                                                               const AxisTypesArg& axisTypes) {
  if (axisTypes.form == AxisTypesArg::Form::Absent) return std::nullopt;
  std::vector<AxisTypesArg::Entry> seq;
  if (axisTypes.form == AxisTypesArg::Form::Single) {
    if (axisTypes.entries.size() != 1) throwValueError("axis_types: a single axis type needs exactly one value");
    seq.assign(axisNames.size(), axisTypes.entries.front());
  } else {
    seq = axisTypes.entries;
    if (seq.size() == 1 && axisNames.size() > 1) seq.assign(axisNames.size(), seq.front());
  }
  std::vector<AxisType> normalized;
  normalized.reserve(seq.size());
  for (const auto& entry : seq) {
    if (!entry.is_string)
      // eformer raises TypeError here; a ValueError with the same facts is clearer for a caller.
      throwValueError("axis_types entries must be strings ('auto', 'explicit' or 'manual'), got a " + entry.text + ".");
    const std::string key = pytext::asciiLower(pytext::strip(entry.text));
    if (key == "auto")
      normalized.push_back(AxisType::Auto);
    else if (key == "explicit")
      normalized.push_back(AxisType::Explicit);
    else if (key == "manual")
      normalized.push_back(AxisType::Manual);
    else
      throwValueError("axis_types must be one of {'auto', 'explicit', 'manual'} or AxisType, got " +
                      pytext::reprStr(entry.text) + ".");
  }
  if (normalized.size() != axisNames.size())
    throwValueError("axis_types length must match axis_names length. Got " + std::to_string(normalized.size()) +
                    " types for " + std::to_string(axisNames.size()) + " axis names.");
  return normalized;
}

Shape resolveReshape(const Shape& dims, std::int64_t size) {
  if (dims.size() > kNumpyMaxDims)
    throwValueError("maximum supported dimension for an ndarray is " + std::to_string(kNumpyMaxDims) + ", found " +
                    std::to_string(dims.size()));
  std::optional<std::size_t> unknown;
  std::int64_t known = 1;
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] < 0) {
      if (unknown) throwValueError("can only specify one unknown dimension");
      unknown = i;
    } else if (__builtin_mul_overflow(known, dims[i], &known)) {
      throwReshapeMismatch(dims, size); // numpy reports an overflowing shape as a size mismatch
    }
  }
  Shape out = dims;
  if (unknown) {
    if (known == 0 || size % known != 0) throwReshapeMismatch(dims, size);
    out[*unknown] = size / known;
  } else if (known != size) {
    throwReshapeMismatch(dims, size);
  }
  return out;
}

Shape calculateHostMeshShape(const Shape& globalMeshShape, std::int64_t totalDevices, std::int64_t numProcesses) {
  const std::int64_t meshSize = checkedProduct(globalMeshShape, "global_mesh_shape");
  const std::int64_t available = checkedMul(totalDevices, numProcesses, "total_devices x num_processes");
  if (meshSize != available)
    throwValueError("Mesh size " + std::to_string(meshSize) + " doesn't match available devices " +
                    std::to_string(available) + " (local x processes)");
  // Processes take the leftmost axes first: a whole axis while the remaining process count is
  // larger, then a (floor) share of the next one.
  Shape host = globalMeshShape;
  std::int64_t remaining = numProcesses;
  for (std::size_t i = 0; remaining > 1 && i < host.size(); ++i) {
    const std::int64_t dim = host[i];
    if (dim >= remaining) {
      host[i] = floorDiv(dim, remaining);
      remaining = 1;
    } else {
      // eformer divides by the axis size here; a zero-size axis makes Python raise
      // ZeroDivisionError, answered as a ValueError.
      if (dim == 0)
        throwValueError("global_mesh_shape " + shapeRepr(globalMeshShape) +
                        " has a zero-size axis, which cannot be split over processes");
      host[i] = 1;
      remaining = floorDiv(remaining, dim);
    }
  }
  const std::int64_t hostTotal = checkedProduct(host, "host mesh shape");
  if (hostTotal != totalDevices)
    throwValueError("Host mesh shape " + shapeRepr(host) + " uses " + std::to_string(hostTotal) +
                    " devices instead of " + std::to_string(totalDevices) +
                    ". Ensure that num_processes factors the global mesh shape.");
  return host;
}

Shape fillDcnMinusOne(const Shape& dcnMeshDims, std::int64_t target) {
  std::vector<std::size_t> minus;
  for (std::size_t i = 0; i < dcnMeshDims.size(); ++i)
    if (dcnMeshDims[i] == -1) minus.push_back(i);
  if (minus.size() > 1) throwValueError("Only one -1 is supported in dcn_mesh_dims.");
  std::int64_t known = 1;
  for (auto v : dcnMeshDims) {
    if (v == -1) continue;
    if (v <= 0) throwValueError("dcn_mesh_dims entries must be > 0 or -1, got " + std::to_string(v));
    known = checkedMul(known, v, "dcn_mesh_dims");
  }
  Shape out = dcnMeshDims;
  if (!minus.empty()) {
    if (target % known != 0)
      throwValueError("dcn_mesh_dims product (" + std::to_string(known) + ") does not divide target (" +
                      std::to_string(target) + ").");
    out[minus.front()] = target / known;
  }
  const std::int64_t product = checkedProduct(out, "dcn_mesh_dims");
  if (product != target)
    throwValueError("dcn_mesh_dims product " + std::to_string(product) + " must equal " + std::to_string(target) +
                    "; got " + shapeRepr(out));
  return out;
}

std::int64_t eformerNumSlices(const DeviceList& devices, const SimulatedRuntime& runtime) {
  std::int64_t numSlices = 1;
  if (!devices.empty() && devices.front().slice_index) {
    // eformer reads d.slice_index of every device inside a try: one device without the attribute
    // makes the whole count fall back to 1.
    std::set<int> slices;
    bool complete = true;
    for (const auto& d : devices) {
      if (!d.slice_index) {
        complete = false;
        break;
      }
      slices.insert(*d.slice_index);
    }
    if (complete) numSlices = static_cast<std::int64_t>(slices.size());
  }
  if (numSlices == 1 && runtime.megascale_num_slices) numSlices = *runtime.megascale_num_slices;
  return numSlices;
}

std::string_view eformerMeshPathName(EformerMeshPath path) { return nameOf(path, kEformerMeshPathNames); }

namespace {

// The multi-slice and multi-process paths differ only in what a granule is (a slice or a
// process); both place out.granule_shape x out.dcn_shape with mesh_utils' hybrid mesh.
void placeHybrid(EformerMesh& out, const DeviceList& devices, const EformerMeshArgs& args,
                 const std::optional<std::vector<AxisType>>& axisTypes, bool processIsGranule) {
  HybridMeshOptions options;
  options.process_is_granule = processIsGranule;
  options.should_sort_granules_by_key = args.should_sort_granules_by_key;
  options.allow_split_physical_axes = args.allow_split_physical_axes;
  HybridPlacement hybrid = createHybridDeviceMesh(out.granule_shape, out.dcn_shape, devices, options);
  out.granule_placements = std::move(hybrid.granules);
  out.mesh = buildJaxMesh(devices, std::move(hybrid.grid), args.axis_names, axisTypes);
}

} // namespace

EformerMesh createEformerMesh(const DeviceList& devices, const EformerMeshArgs& args, const SimulatedRuntime& runtime) {
  const auto axisTypes = normalizeEformerAxisTypes(args.axis_names, args.axis_types);
  const auto totalDevices = static_cast<std::int64_t>(devices.size());

  EformerMesh out;
  out.num_slices = eformerNumSlices(devices, runtime);
  // -1 is resolved the way eformer does it, by numpy reshaping all device indices.
  out.requested_shape = resolveReshape(args.axis_dims, totalDevices);
  // The reference would fail inside JAX on an empty list with an IndexError.
  if (devices.empty()) throwValueError("devices must not be empty: create_mesh needs at least one device");

  if (args.use_jax && out.num_slices == 1 && runtime.process_count == 1 && !args.dcn_mesh_dims) {
    out.path = EformerMeshPath::MakeMesh;
    // jax.make_mesh defaults to Explicit axes. Passing that default with one type per axis *name*
    // leaves the rank mismatch (more dims than names) to Mesh's own check, which JAX runs before
    // it looks at axis_types.
    const auto types = axisTypes.value_or(std::vector<AxisType>(args.axis_names.size(), AxisType::Explicit));
    out.mesh = makeMesh(out.requested_shape, args.axis_names, types, devices, &out.placement);
    return out;
  }

  const Shape& global = out.requested_shape;
  if (out.num_slices > 1) {
    out.path = EformerMeshPath::MultiSlice;
    std::optional<std::size_t> dynamicAxis;
    for (std::size_t i = 0; i < global.size() && !dynamicAxis; ++i)
      if (global[i] % out.num_slices == 0) dynamicAxis = i;
    if (!dynamicAxis)
      throwValueError("Multi-slice detected (num_slices=" + std::to_string(out.num_slices) + ") but no mesh axis in " +
                      shapeRepr(global) + " is divisible by num_slices.");
    out.granule_shape = global;
    out.granule_shape[*dynamicAxis] /= out.num_slices;
    if (args.dcn_mesh_dims) {
      out.dcn_shape = fillDcnMinusOne(*args.dcn_mesh_dims, out.num_slices);
    } else {
      out.dcn_shape = Shape(args.axis_dims.size(), 1);
      out.dcn_shape[*dynamicAxis] = out.num_slices;
      out.dcn_axis = dynamicAxis;
    }
    placeHybrid(out, devices, args, axisTypes, /*processIsGranule=*/false);
  } else if (runtime.process_count > 1) {
    out.path = EformerMeshPath::MultiProcess;
    std::int64_t localDevices = 0;
    for (const auto& d : devices) localDevices += d.process_index == runtime.process_index ? 1 : 0;
    out.granule_shape = calculateHostMeshShape(global, localDevices, runtime.process_count);
    if (args.dcn_mesh_dims) {
      out.dcn_shape = fillDcnMinusOne(*args.dcn_mesh_dims, runtime.process_count);
    } else {
      // Global over local size per axis; host shapes that passed calculateHostMeshShape divide
      // the global ones, so eformer's fallback below is a safeguard.
      Shape ratios;
      for (std::size_t i = 0; i < global.size() && i < out.granule_shape.size(); ++i)
        ratios.push_back(out.granule_shape[i] == 0 ? 0 : floorDiv(global[i], out.granule_shape[i]));
      if (checkedProduct(ratios, "dcn ratios") != runtime.process_count) {
        ratios.assign(args.axis_dims.size(), 1);
        if (!ratios.empty()) ratios[0] = runtime.process_count;
      }
      out.dcn_shape = ratios;
    }
    placeHybrid(out, devices, args, axisTypes, /*processIsGranule=*/true);
  } else {
    out.path = EformerMeshPath::SingleProcess;
    CreateMeshOptions options;
    options.allow_split_physical_axes = args.allow_split_physical_axes;
    out.placement = createDeviceMesh(global, devices, options);
    out.mesh = buildJaxMesh(devices, out.placement.grid, args.axis_names, axisTypes);
  }

  if (out.mesh.shape() != out.requested_shape)
    out.warnings.push_back(shapeChangeWarning(out, args.dcn_mesh_dims, out.path == EformerMeshPath::MultiProcess));
  return out;
}

ParsedMeshString parseMeshString(std::string_view axisDims, const std::vector<std::string>& names) {
  // str.split(","), keeping empty pieces as Python does.
  auto split = [](std::string_view s, char sep) {
    std::vector<std::string_view> parts;
    std::size_t start = 0;
    for (std::size_t pos; (pos = s.find(sep, start)) != std::string_view::npos; start = pos + 1)
      parts.push_back(s.substr(start, pos - start));
    parts.push_back(s.substr(start));
    return parts;
  };
  auto toInt = [](std::string_view text) {
    const pytext::ParsedInt parsed = pytext::parseInt(text);
    if (parsed.out_of_range)
      throwValueError("axis size " + std::string(pytext::strip(text)) + " in axis_dims does not fit in 64 bits");
    if (!parsed.value) throwValueError(pytext::invalidIntLiteral(text));
    return *parsed.value;
  };

  ParsedMeshString out;
  if (axisDims.find(':') != std::string_view::npos) {
    for (std::string_view item : split(axisDims, ',')) {
      const auto pieces = split(item, ':');
      // Python's tuple unpacking of item.split(":") into (name, dim).
      if (pieces.size() < 2) throwValueError("not enough values to unpack (expected 2, got 1)");
      if (pieces.size() > 2) throwValueError("too many values to unpack (expected 2)");
      const std::string name(pieces[0]);
      bool known = false;
      for (const auto& n : names) known = known || n == name;
      if (!known)
        throwValueError("Axis name '" + name + "' not found in provided names: " + pytext::reprStrList(names));
      out.dims.push_back(toInt(pieces[1]));
      out.names.push_back(name);
    }
    const std::set<std::string> used(out.names.begin(), out.names.end()), wanted(names.begin(), names.end());
    if (used != wanted) throwValueError("Not all axis names were used in 'axis_dims'");
  } else {
    for (std::string_view item : split(axisDims, ',')) out.dims.push_back(toInt(item));
    out.names = names;
  }
  if (out.dims.size() != names.size()) throwValueError("Number of dimensions and names must match");
  return out;
}

EformerMesh parseMeshFromString(std::string_view axisDims, const std::vector<std::string>& names,
                                const DeviceList& devices, const SimulatedRuntime& runtime) {
  ParsedMeshString parsed = parseMeshString(axisDims, names);
  EformerMeshArgs args;
  args.axis_dims = std::move(parsed.dims);
  args.axis_names = std::move(parsed.names);
  return createEformerMesh(devices, args, runtime);
}

} // namespace shardscope
