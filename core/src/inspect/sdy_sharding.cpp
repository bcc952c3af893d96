// SPDX-License-Identifier: Apache-2.0
// Shardy mesh and sharding attributes (grammar: openxla/shardy parsers.cc, summarised in
// docs/inspect.md) and what a sharding means for one array on its mesh.
#include "shardscope/inspect/sdy_sharding.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/inspect/collective_axes.hpp"

#include <algorithm>

namespace shardscope {

std::string SdyAxisRef::text() const {
  if (!isSubAxis()) return name;
  return name + ":(" + std::to_string(pre_size) + ")" + std::to_string(size);
}

namespace inspect_detail {

namespace {

std::string readQuotedName(TextCursor& c, std::string_view what) {
  const std::string_view q = c.quoted(what);
  if (q.size() > 256) c.fail("a name of at most 256 characters");
  return unescapeString(q);
}

SdyAxisRef readAxisRef(TextCursor& c) {
  SdyAxisRef ref;
  ref.name = readQuotedName(c, "an axis name in quotes");
  if (c.accept(":")) {
    c.expect("(", "'(' opening a sub-axis pre-size");
    ref.pre_size = c.integer(kMaxInspectDevices + 1, "a sub-axis pre-size");
    c.expect(")", "')' closing a sub-axis pre-size");
    ref.size = c.integer(kMaxInspectDevices + 1, "a sub-axis size");
    if (ref.pre_size < 1 || ref.size < 1) c.fail("sub-axis sizes of at least 1");
  }
  return ref;
}

// "@name" or "mesh<...>".
void readMeshRef(TextCursor& c, SdySharding& s) {
  if (c.accept("@")) {
    s.mesh_name = std::string(c.name());
    if (s.mesh_name.empty()) c.fail("a mesh name after '@'");
  } else if (c.acceptWord("mesh") || c.accept("#sdy.mesh")) {
    s.inline_mesh = readSdyMeshBody(c);
  } else {
    c.fail("'@mesh' or an inline mesh<...>");
  }
}

SdyDimSharding readDim(TextCursor& c) {
  SdyDimSharding d;
  d.axes = readSdyAxisList(c, true, &d.open);
  // A priority is glued to the closing brace: {"a"}p0.
  if (c.peek() == 'p' && isDigit(c.peek(1))) {
    c.advance();
    const std::size_t at = c.pos();
    d.priority = c.integer(std::int64_t{1} << 31, "a priority");
    if (c.text()[at] == '0' && c.pos() - at > 1) c.failAt(at, "a priority without leading zeros");
  }
  return d;
}

} // namespace

std::vector<SdyAxisRef> readSdyAxisList(TextCursor& c, bool allowOpen, bool* open) {
  std::vector<SdyAxisRef> refs;
  c.expect("{", "'{' opening a list of axes");
  if (c.accept("}")) return refs;
  do {
    if (allowOpen && c.accept("?")) {
      *open = true;
      break; // '?' is the last item
    }
    if (refs.size() >= 64) c.fail("at most 64 axes in one list");
    refs.push_back(readAxisRef(c));
  } while (c.accept(","));
  c.expect("}", "',' or '}' in a list of axes");
  return refs;
}

InspectMesh readSdyMeshBody(TextCursor& c) {
  const std::size_t at = c.pos();
  InspectMesh mesh;
  c.expect("<", "'<' opening a mesh");
  c.expect("[", "'[' opening the mesh axes");
  if (!c.accept("]")) {
    do {
      if (mesh.axes.size() >= 64) c.fail("at most 64 mesh axes");
      InspectAxis a;
      a.name = readQuotedName(c, "an axis name in quotes");
      c.expect("=", "'=' after the axis name");
      a.size = c.integer(kMaxInspectDevices + 1, "an axis size");
      mesh.axes.push_back(std::move(a));
    } while (c.accept(","));
    c.expect("]", "',' or ']' in the mesh axes");
  }
  if (c.accept(",")) {
    c.expect("device_ids", "device_ids=[...]");
    c.expect("=", "'=' after device_ids");
    c.expect("[", "'[' opening the device ids");
    do {
      if (static_cast<std::int64_t>(mesh.device_ids.size()) >= kMaxInspectDevices) c.fail("fewer device ids");
      mesh.device_ids.push_back(c.integer(kMaxInspectDevices, "a device id"));
    } while (c.accept(","));
    c.expect("]", "',' or ']' in the device ids");
  }
  c.expect(">", "'>' closing the mesh");
  try {
    validateInspectMesh(mesh, "mesh");
  } catch (const Error& e) {
    c.failAt(at, e.what());
  }
  // Shardy drops iota device ids: keep the canonical form.
  bool iota = !mesh.axes.empty();
  for (std::size_t i = 0; iota && i < mesh.device_ids.size(); ++i) iota = mesh.device_ids[i] == std::int64_t(i);
  if (iota) mesh.device_ids.clear();
  return mesh;
}

void readSdyMeshDict(TextCursor& c, std::vector<InspectMesh>& meshes) {
  c.expect("{", "'{' opening the meshes");
  if (c.accept("}")) return;
  do {
    const std::string name(c.name());
    if (name.empty()) c.fail("a mesh name");
    c.expect("=", "'=' after the mesh name");
    c.expect("#sdy.mesh", "#sdy.mesh<...>");
    InspectMesh mesh = readSdyMeshBody(c);
    mesh.name = name;
    if (meshes.size() < 256) meshes.push_back(std::move(mesh));
  } while (c.accept(","));
  c.expect("}", "',' or '}' closing the meshes");
}

SdySharding readSdyShardingBody(TextCursor& c) {
  SdySharding s;
  c.expect("<", "'<' opening a sharding");
  readMeshRef(c, s);
  c.expect(",", "',' after the mesh");
  c.expect("[", "'[' opening the dimension shardings");
  if (!c.accept("]")) {
    do {
      if (s.dims.size() >= kMaxRank) c.fail("at most 64 dimension shardings");
      s.dims.push_back(readDim(c));
    } while (c.accept(","));
    c.expect("]", "',' or ']' in the dimension shardings");
  }
  bool seenReplicated = false, seenUnreduced = false;
  while (c.accept(",")) {
    const std::size_t at = c.pos();
    bool unusedOpen = false;
    if (c.acceptWord("replicated")) {
      if (seenReplicated) c.failAt(at, "replicated= given twice");
      seenReplicated = true;
      c.expect("=", "'=' after replicated");
      s.replicated = readSdyAxisList(c, false, &unusedOpen);
    } else if (c.acceptWord("unreduced")) {
      if (seenUnreduced) c.failAt(at, "unreduced= given twice");
      seenUnreduced = true;
      c.expect("=", "'=' after unreduced");
      s.unreduced_kind = c.acceptWord("max") ? "max" : c.acceptWord("min") ? "min" : "sum";
      c.acceptWord("sum");
      s.unreduced = readSdyAxisList(c, false, &unusedOpen);
    } else {
      c.fail("replicated= or unreduced=");
    }
  }
  c.expect(">", "'>' closing the sharding");
  return s;
}

} // namespace inspect_detail

namespace {

template <class Read>
auto parseWhole(std::string_view text, const char* what, Read read) {
  inspect_detail::TextCursor c(text, what);
  auto value = read(c);
  c.skipSpace();
  if (!c.atEnd()) c.fail("the end of the attribute");
  return value;
}

} // namespace

SdySharding parseSdySharding(std::string_view text) {
  return parseWhole(text, "Shardy sharding", [](inspect_detail::TextCursor& c) {
    c.accept("#sdy.sharding");
    return inspect_detail::readSdyShardingBody(c);
  });
}

std::vector<SdySharding> parseSdyShardingPerValue(std::string_view text) {
  return parseWhole(text, "Shardy sharding", [](inspect_detail::TextCursor& c) {
    c.accept("#sdy.sharding_per_value");
    c.expect("<", "'<' opening the shardings");
    c.expect("[", "'[' opening the shardings");
    std::vector<SdySharding> out;
    if (!c.accept("]")) {
      do {
        if (out.size() >= 4096) c.fail("at most 4096 shardings");
        out.push_back(inspect_detail::readSdyShardingBody(c));
      } while (c.accept(","));
      c.expect("]", "',' or ']' in the shardings");
    }
    c.expect(">", "'>' closing the shardings");
    return out;
  });
}

InspectMesh parseSdyMesh(std::string_view text) {
  return parseWhole(text, "Shardy mesh", [](inspect_detail::TextCursor& c) {
    c.accept("#sdy.mesh");
    return inspect_detail::readSdyMeshBody(c);
  });
}

namespace {

// The part of `mesh` a reference names; throws for an unknown axis or a sub-axis that does not
// divide its axis.
MeshAxisPart partOf(const SdyAxisRef& ref, const InspectMesh& mesh) {
  const int k = mesh.axisIndex(ref.name);
  if (k < 0) throwValueError("the sharding names axis '" + ref.name + "', which mesh " + mesh.describe() + " lacks");
  const std::int64_t n = mesh.axes[std::size_t(k)].size;
  if (!ref.isSubAxis()) return {std::size_t(k), 1, n};
  if (ref.pre_size * ref.size > n || n % (ref.pre_size * ref.size) != 0)
    throwValueError("sub-axis " + ref.text() + " does not divide axis '" + ref.name + "' of size " + std::to_string(n));
  return {std::size_t(k), ref.pre_size, ref.size};
}

} // namespace

SdyPlacement sdyPlacement(const SdySharding& sharding, const InspectMesh& mesh, const Shape& shape) {
  SdyPlacement p;
  p.local_shape = shape;
  p.spec.assign(shape.size(), {});
  if (mesh.isEmpty() || mesh.isMaximal()) return p;
  if (sharding.dims.size() != shape.size())
    throwValueError("the sharding has " + std::to_string(sharding.dims.size()) + " dimension shardings for a rank-" +
                    std::to_string(shape.size()) + " array");
  std::vector<MeshAxisPart> used;
  for (std::size_t d = 0; d < shape.size(); ++d) {
    std::int64_t ways = 1;
    for (const auto& ref : sharding.dims[d].axes) {
      used.push_back(partOf(ref, mesh));
      ways *= used.back().size; // parts never overlap (checked below): the product stays below 2^24
      if (ways > kMaxInspectDevices) throwValueError("the sharding uses an axis twice");
      p.spec[d].push_back(ref.text());
    }
    if (shape[d] >= 0) p.local_shape[d] = shape[d] / ways + (shape[d] % ways != 0 ? 1 : 0);
  }
  for (const auto& ref : sharding.unreduced) {
    used.push_back(partOf(ref, mesh));
    p.unreduced_axes.push_back(ref.text());
  }
  // Explicitly replicated axes must exist and not overlap; they are listed with the implicit ones.
  std::vector<MeshAxisPart> replicated;
  for (const auto& ref : sharding.replicated) replicated.push_back(partOf(ref, mesh));
  meshPartsLeft(mesh, replicated);
  p.replicated_axes = meshPartsLeft(mesh, used);
  return p;
}

} // namespace shardscope
