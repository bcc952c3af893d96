// SPDX-License-Identifier: Apache-2.0
// A StableHLO module's arguments and results, resolved once the whole text is read: the name
// (jax.arg_info / jax.result_info, else loc("x") directly or through a #loc alias), the tensor type,
// and the sharding (Shardy's #sdy.sharding, its round-trip string in mhlo.frontend_attributes, or a
// GSPMD mhlo.sharding string) placed on its mesh.
#include "inspect/stablehlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"
#include "shardscope/sharding/hlo_sharding.hpp"

#include <algorithm>

namespace shardscope::inspect_detail {

namespace {

std::optional<std::int64_t> bytesOf(const Shape& dims, const InspectElementType& type) {
  std::int64_t n = 1;
  for (const auto d : dims) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n) || n > (std::int64_t{1} << 62)) return std::nullopt;
  }
  return inspectBytes(type, n);
}

} // namespace

void StableHloReader::finish() {
  out_.meshes = meshes_;
  const InspectMesh* fileMesh = nullptr;
  for (const auto& m : meshes_)
    if (!m.axes.empty() && !fileMesh) fileMesh = &m;
  if (!fileMesh && options_.mesh) out_.meshes.push_back(*options_.mesh);
  const bool hasMain = std::find(functions_.begin(), functions_.end(), "main") != functions_.end();
  for (const auto& v : values_) {
    const bool wanted =
        hasMain ? v.function == "main"
                : std::find(publicFunctions_.begin(), publicFunctions_.end(), v.function) != publicFunctions_.end();
    if (!wanted) continue;
    (v.result ? out_.results : out_.arguments).push_back(resolveValue(v));
  }
  if (partitions_ > 0)
    out_.num_devices = partitions_ * std::max<std::int64_t>(1, replicas_);
  else if (fileMesh)
    out_.num_devices = fileMesh->deviceCount();
  else if (options_.mesh)
    out_.num_devices = options_.mesh->deviceCount();
  else
    out_.num_devices = gspmdDevices_;
  for (std::size_t i = 0; i < constraints_.size(); ++i) {
    InspectArgument c = resolveValue(constraints_[i]);
    c.op = std::string(constraintOps_[i]);
    out_.constraints.push_back(std::move(c));
  }
  out_.skipped_ops = skipped_.list();
  for (const auto& r : resolvers_) addDeviceOrderFlag(out_, *r.groups, r.mesh.get());
}

InspectArgument StableHloReader::resolveValue(const RawValue& v) {
  InspectArgument arg;
  arg.index = v.index;
  arg.function = v.function;
  arg.memory_kind = v.memory_kind;
  arg.name = v.name;
  if (arg.name.empty() && !v.loc_alias.empty())
    if (const auto it = locNames_.find(v.loc_alias); it != locNames_.end()) arg.name = it->second;
  if (arg.name.empty()) arg.name = v.result ? "result" + std::to_string(v.index) : std::string(v.ssa);
  if (!v.type.starts_with("tensor<")) {
    arg.note = "not a tensor (" + std::string(v.type.substr(0, 40)) + ")";
    return arg;
  }
  MlirTensorType t;
  try {
    t = parseMlirTensorType(v.type.substr(7, v.type.size() - 8));
  } catch (const Error& e) {
    c_.failAt(v.type_pos, e.what());
  }
  arg.shape = t.dims;
  arg.dtype = t.type.dtype;
  arg.bytes = bytesOf(t.dims, t.type);
  arg.bytes_per_device = arg.bytes;
  if (!v.sdy.empty() || !v.sdy_unescaped.empty())
    placeSdy(arg, v, t.dims, t.type);
  else if (!v.gspmd.empty())
    placeGspmd(arg, v, t.dims, t.type);
  else
    arg.note = "no sharding (open: the partitioner chooses)";
  return arg;
}

void StableHloReader::placeSdy(InspectArgument& arg, const RawValue& v, const Shape& shape,
                               const InspectElementType& type) {
  SdySharding s;
  if (!v.sdy.empty()) {
    arg.sharding = std::string(v.sdy);
    TextCursor t(c_.text(), c_.source());
    t.seek(std::size_t(v.sdy.data() - c_.text().data()));
    t.accept("#sdy.sharding");
    s = readSdyShardingBody(t);
  } else {
    arg.sharding = v.sdy_unescaped;
    TextCursor t(v.sdy_unescaped, c_.source(), c_.text(), v.sdy_unescaped_pos);
    t.accept("#sdy.sharding");
    s = readSdyShardingBody(t);
  }
  const InspectMesh* mesh = s.inline_mesh ? &*s.inline_mesh : meshNamed(s.mesh_name);
  if (!mesh) {
    arg.note = "the sharding names mesh '@" + s.mesh_name + "', which the module does not define";
    return;
  }
  try {
    const SdyPlacement p = sdyPlacement(s, *mesh, shape);
    arg.spec = p.spec;
    arg.replicated_axes = p.replicated_axes;
    arg.unreduced_axes = p.unreduced_axes;
    arg.bytes_per_device = bytesOf(p.local_shape, type);
    if (mesh->isMaximal()) arg.note = "the whole array on device " + std::to_string(mesh->device_ids.front());
  } catch (const Error& e) {
    arg.note = e.what(); // a sharding that does not fit its mesh or the array
  }
}

void StableHloReader::placeGspmd(InspectArgument& arg, const RawValue& v, const Shape& shape,
                                 const InspectElementType& type) {
  if (v.gspmd.size() < 2 || v.gspmd.front() != '"') {
    arg.note = "mhlo.sharding is not a string";
    return;
  }
  arg.sharding = unescapeString(v.gspmd.substr(1, v.gspmd.size() - 2));
  HloSharding s;
  try {
    s = parseHloSharding(arg.sharding);
  } catch (const Error& e) {
    arg.note = e.what(); // {unknown}, named shardings: kept as written
    return;
  }
  if (s.kind == HloSharding::Kind::Tiled && s.dataRank() == shape.size()) {
    gspmdDevices_ = std::max(gspmdDevices_, s.tileCount());
    Shape local = shape;
    for (std::size_t d = 0; d < shape.size(); ++d)
      if (shape[d] >= 0) local[d] = shape[d] / s.tile_dims[d] + (shape[d] % s.tile_dims[d] != 0 ? 1 : 0);
    arg.bytes_per_device = bytesOf(local, type);
  }
  const InspectMesh* mesh = currentMesh();
  if (!mesh) return;
  HloShardingSpec spec = hloShardingSpec(s, shape.size(), *mesh);
  arg.spec = std::move(spec.spec);
  arg.replicated_axes = std::move(spec.replicated_axes);
  arg.note = std::move(spec.note);
}

} // namespace shardscope::inspect_detail
