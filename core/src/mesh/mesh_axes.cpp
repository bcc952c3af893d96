// SPDX-License-Identifier: Apache-2.0
#include "shardscope/mesh/mesh_axes.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/py_value.hpp"

namespace shardscope {

namespace {
// Far beyond any real machine, small enough that per-device tables stay allocatable.
constexpr std::int64_t kMaxDevices = std::int64_t{1} << 32;
// More axes than any mesh uses (the workspace allows 64 too); also keeps the pairwise name check
// below cheap when a request lists a million size-1 axes.
constexpr std::size_t kMaxAxes = 64;
} // namespace

MeshAxes::MeshAxes(std::vector<std::string> axisNames, std::vector<std::int64_t> axisSizes)
    : names(std::move(axisNames)), sizes(std::move(axisSizes)) {
  if (names.size() != sizes.size())
    throwValueError("mesh axes: " + std::to_string(names.size()) + " names but " + std::to_string(sizes.size()) +
                    " sizes");
  if (names.size() > kMaxAxes)
    throwValueError("mesh axes: " + std::to_string(names.size()) + " axes; at most " + std::to_string(kMaxAxes) +
                    " are supported");
  std::int64_t total = 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    for (std::size_t j = 0; j < i; ++j)
      if (names[j] == names[i]) throwValueError("mesh axes: axis name " + pythonStrRepr(names[i]) + " appears twice");
    if (sizes[i] < 1)
      throwValueError("mesh axes: axis " + pythonStrRepr(names[i]) + " has size " + std::to_string(sizes[i]) +
                      "; sizes must be at least 1");
    if (sizes[i] > kMaxDevices / total) // total * size would pass 2^32 (checked without overflowing)
      throwValueError("mesh axes: the mesh has more than 2^32 devices");
    total *= sizes[i];
  }
}

MeshAxes MeshAxes::fromMesh(const Mesh& mesh) {
  return MeshAxes(mesh.axis_names, std::vector<std::int64_t>(mesh.shape().begin(), mesh.shape().end()));
}

MeshAxes MeshAxes::fromJson(const Json& value, std::string_view what) {
  const std::string w(what);
  if (!value.is_array())
    throwValueError("field '" + w + "' must be a list of [name, size] pairs, got " + value.type_name());
  std::vector<std::string> n;
  std::vector<std::int64_t> s;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Json& p = value[i];
    if (!p.is_array() || p.size() != 2 || !p[0].is_string() || !p[1].is_number_integer())
      throwValueError("field '" + w + "[" + std::to_string(i) + "]' must be a [name, size] pair, got " + dumpJson(p));
    n.push_back(p[0].get<std::string>());
    s.push_back(p[1].get<std::int64_t>());
  }
  return MeshAxes(std::move(n), std::move(s));
}

int MeshAxes::index(std::string_view name) const {
  for (std::size_t i = 0; i < names.size(); ++i)
    if (names[i] == name) return static_cast<int>(i);
  return -1;
}

std::int64_t MeshAxes::size(std::string_view name) const {
  const int i = index(name);
  return i < 0 ? 0 : sizes[static_cast<std::size_t>(i)];
}

std::int64_t MeshAxes::deviceCount() const {
  std::int64_t n = 1;
  for (auto s : sizes) n *= s;
  return n;
}

std::vector<std::int64_t> MeshAxes::strides() const {
  std::vector<std::int64_t> st(sizes.size(), 1);
  for (std::size_t i = sizes.size(); i-- > 1;) st[i - 1] = st[i] * sizes[i];
  return st;
}

std::string MeshAxes::describe() const {
  std::string out = "{";
  for (std::size_t i = 0; i < names.size(); ++i)
    out += (i ? ", " : "") + pythonStrRepr(names[i]) + ": " + std::to_string(sizes[i]);
  return out + "}";
}

} // namespace shardscope
