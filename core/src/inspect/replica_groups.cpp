// SPDX-License-Identifier: Apache-2.0
// Device group lists: HLO's explicit and iota replica groups, source-target pairs, and StableHLO's
// dense<...> group tensors.
#include "shardscope/inspect/replica_groups.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/inspect/inspect_mesh.hpp"

#include <algorithm>

namespace shardscope {

std::int64_t DeviceGroups::groupCount() const {
  if (all_devices) return 1;
  if (uneven) return static_cast<std::int64_t>(sizes.size());
  return group_size > 0 ? static_cast<std::int64_t>(ids.size()) / group_size : 0;
}

DeviceGroups iotaDeviceGroups(std::int64_t groups, std::int64_t size, const Shape& dims, const std::vector<int>& perm) {
  if (dims.empty() || dims.size() > kMaxRank) throwValueError("iota groups: 1 to 64 reshape dimensions");
  if (perm.size() != dims.size()) throwValueError("iota groups: the transpose does not match the reshape dimensions");
  std::vector<bool> seen(dims.size(), false);
  for (const int p : perm) {
    if (p < 0 || std::size_t(p) >= dims.size() || seen[std::size_t(p)])
      throwValueError("iota groups: the transpose is not a permutation of the reshape dimensions");
    seen[std::size_t(p)] = true;
  }
  std::int64_t total = 1;
  for (const auto d : dims) {
    if (d < 1 || d > kMaxInspectDevices || total * d > kMaxInspectDevices)
      throwValueError("iota groups: more than " + std::to_string(kMaxInspectDevices) + " devices");
    total *= d;
  }
  if (groups < 1 || size < 1 || groups > kMaxInspectDevices || size > kMaxInspectDevices || groups * size != total)
    throwValueError("iota groups: [" + std::to_string(groups) + "," + std::to_string(size) + "] does not hold the " +
                    std::to_string(total) + " devices of the reshape");
  // Walk the transposed array row-major with an odometer; value = sum of index * original stride.
  const std::size_t n = dims.size();
  Shape stride(n, 1);
  for (std::size_t i = n - 1; i-- > 0;) stride[i] = stride[i + 1] * dims[i + 1];
  Shape tdims(n), tstride(n), index(n, 0);
  for (std::size_t i = 0; i < n; ++i) {
    tdims[i] = dims[std::size_t(perm[i])];
    tstride[i] = stride[std::size_t(perm[i])];
  }
  DeviceGroups out;
  out.group_size = size;
  out.ids.resize(std::size_t(total));
  std::int64_t value = 0;
  for (std::int64_t k = 0; k < total; ++k) {
    out.ids[std::size_t(k)] = value;
    for (std::size_t i = n; i-- > 0;) {
      value += tstride[i];
      if (++index[i] < tdims[i]) break;
      value -= tstride[i] * tdims[i];
      index[i] = 0;
    }
  }
  return out;
}

namespace inspect_detail {

namespace {

// '{' id (',' id)* '}' appended to ids; returns the count (may be 0: "{}").
std::int64_t readIdList(TextCursor& c, std::vector<std::int64_t>& ids) {
  c.expect("{", "'{' opening a group");
  std::int64_t n = 0;
  if (c.accept("}")) return 0;
  do {
    if (static_cast<std::int64_t>(ids.size()) >= kMaxInspectDevices)
      c.fail("at most " + std::to_string(kMaxInspectDevices) + " device ids");
    ids.push_back(c.integer(kMaxInspectDevices, "a device id"));
    ++n;
  } while (c.accept(","));
  c.expect("}", "',' or '}' in a group");
  return n;
}

// '[' INT (',' INT)* ']'
Shape readDims(TextCursor& c, const char* what) {
  c.expect("[", std::string("'[' opening the ") + what);
  Shape dims;
  do {
    if (dims.size() >= kMaxRank) c.fail(std::string("at most 64 ") + what);
    dims.push_back(c.integer(kMaxInspectDevices + 1, std::string("a size in the ") + what));
  } while (c.accept(","));
  c.expect("]", std::string("',' or ']' in the ") + what);
  return dims;
}

DeviceGroups readIotaGroups(TextCursor& c) {
  const std::size_t at = c.pos();
  const Shape shape = readDims(c, "group shape");
  if (shape.size() != 2) c.failAt(at, "iota replica groups have a [groups,size] shape");
  c.expect("<=", "'<=' after the group shape");
  const Shape dims = readDims(c, "iota reshape dimensions");
  std::vector<int> perm;
  if (c.accept("T")) {
    c.expect("(", "'(' opening the transpose");
    do perm.push_back(int(c.integer(std::int64_t(kMaxRank), "a dimension of the transpose")));
    while (perm.size() <= kMaxRank && c.accept(","));
    c.expect(")", "',' or ')' in the transpose");
  } else {
    for (std::size_t i = 0; i < dims.size(); ++i) perm.push_back(int(i));
  }
  try {
    return iotaDeviceGroups(shape[0], shape[1], dims, perm);
  } catch (const Error& e) {
    c.failAt(at, e.what());
  }
}

} // namespace

DeviceGroups readReplicaGroups(TextCursor& c) {
  if (c.next() == '[') return readIotaGroups(c);
  DeviceGroups g;
  c.expect("{", "'{' or '[' opening the replica groups");
  if (c.accept("}")) {
    g.all_devices = true;
    return g;
  }
  do {
    const std::size_t at = c.pos();
    const std::int64_t n = readIdList(c, g.ids);
    if (n == 0) c.failAt(at, "an empty group");
    g.sizes.push_back(n);
    if (g.sizes.size() == 1) g.group_size = n;
    if (n != g.group_size) g.uneven = true;
  } while (c.accept(","));
  c.expect("}", "',' or '}' closing the replica groups");
  if (!g.uneven) g.sizes.clear();
  return g;
}

std::vector<SourceTargetPair> readSourceTargetPairs(TextCursor& c) {
  std::vector<SourceTargetPair> pairs;
  c.expect("{", "'{' opening the source-target pairs");
  if (c.accept("}")) return pairs;
  std::vector<std::int64_t> ids;
  do {
    const std::size_t at = c.pos();
    ids.clear();
    if (readIdList(c, ids) != 2) c.failAt(at, "a pair {source,target}");
    if (pairs.size() >= std::size_t(kMaxInspectDevices)) c.fail("fewer pairs");
    pairs.push_back({ids[0], ids[1]});
  } while (c.accept(","));
  c.expect("}", "',' or '}' closing the source-target pairs");
  return pairs;
}

DeviceGroups readDenseGroups(TextCursor& c) {
  // dense<[[0, 1], [2, 3]]> or dense<5> (a splat) or dense<>, then ": tensor<GxSxi64>".
  c.expect("dense", "dense<...>");
  c.expect("<", "'<' after dense");
  DeviceGroups g;
  std::int64_t splat = -1;
  std::size_t rows = 0;
  const std::size_t at = c.pos();
  if (c.accept("[")) {
    if (!c.accept("]")) {
      do {
        c.expect("[", "'[' opening a group");
        std::int64_t n = 0;
        if (!c.accept("]")) {
          do {
            if (static_cast<std::int64_t>(g.ids.size()) >= kMaxInspectDevices) c.fail("fewer device ids");
            g.ids.push_back(c.signedInteger(kMaxInspectDevices, "a device id"));
            ++n;
          } while (c.accept(","));
          c.expect("]", "',' or ']' in a group");
        }
        if (++rows == 1) g.group_size = n;
        if (n != g.group_size) c.failAt(at, "groups of different sizes in a dense tensor");
      } while (c.accept(","));
      c.expect("]", "',' or ']' closing the groups");
    }
  } else if (c.next() != '>') {
    splat = c.signedInteger(kMaxInspectDevices, "a device id");
  }
  c.expect(">", "'>' closing dense<...>");
  if (c.accept(":")) {
    c.expect("tensor", "the groups' tensor type");
    const std::size_t typeAt = c.pos();
    const std::string_view inside = c.skipBalanced(true);
    const MlirTensorType t = parseMlirTensorType(inside.substr(1, inside.size() - 2));
    if (splat >= 0 && t.dims.size() == 2 && t.dims[0] >= 0 && t.dims[1] >= 0) {
      if (t.dims[0] * t.dims[1] > kMaxInspectDevices) c.failAt(typeAt, "more device ids than supported");
      g.group_size = t.dims[1];
      g.ids.assign(std::size_t(t.dims[0] * t.dims[1]), splat);
    }
  }
  // StableHLO pads groups of different sizes with -1: drop the padding, keep each group's size.
  if (std::find_if(g.ids.begin(), g.ids.end(), [](std::int64_t id) { return id < 0; }) != g.ids.end()) {
    std::vector<std::int64_t> ids;
    for (std::size_t r = 0; g.group_size > 0 && r < g.ids.size() / std::size_t(g.group_size); ++r) {
      std::int64_t n = 0;
      for (std::size_t k = 0; k < std::size_t(g.group_size); ++k) {
        const auto id = g.ids[r * std::size_t(g.group_size) + k];
        if (id >= 0) ids.push_back(id), ++n;
      }
      if (n > 0) g.sizes.push_back(n);
    }
    g.ids = std::move(ids);
    g.group_size = g.sizes.empty() ? 0 : g.sizes.front();
    g.uneven = true;
  }
  if (g.ids.empty() || g.group_size == 0) {
    g = DeviceGroups{};
    g.all_devices = true;
  }
  return g;
}

} // namespace inspect_detail

DeviceGroups parseReplicaGroups(std::string_view text) {
  inspect_detail::TextCursor c(text, "replica groups");
  DeviceGroups g = inspect_detail::readReplicaGroups(c);
  c.skipSpace();
  if (!c.atEnd()) c.fail("the end of the replica groups");
  return g;
}

std::vector<SourceTargetPair> parseSourceTargetPairs(std::string_view text) {
  inspect_detail::TextCursor c(text, "source-target pairs");
  auto pairs = inspect_detail::readSourceTargetPairs(c);
  c.skipSpace();
  if (!c.atEnd()) c.fail("the end of the pairs");
  return pairs;
}

} // namespace shardscope
