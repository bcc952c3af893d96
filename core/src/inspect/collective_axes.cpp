// SPDX-License-Identifier: Apache-2.0
// Device groups -> mesh axes. Each group is checked to be a translate of one product set: along
// every axis k the group's coordinates, less their minimum, form the same set S_k, S_k is a sum of
// "digits" {0, w, .., (m-1)w} (sub-axes of the axis), the translate has zeros in those digits, and
// the group holds prod |S_k| distinct devices. Linear in the number of ids times the mesh rank.
#include "shardscope/inspect/collective_axes.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace shardscope {

std::string meshAxisPartName(const InspectMesh& mesh, const MeshAxisPart& part) {
  const auto& axis = mesh.axes[part.axis];
  if (part.pre_size == 1 && part.size == axis.size) return axis.name;
  return axis.name + ":(" + std::to_string(part.pre_size) + ")" + std::to_string(part.size);
}

namespace {

struct Digit {
  std::int64_t place = 1; // w: coordinate step of the digit
  std::int64_t count = 1; // its values 0..count-1
};

struct MeshGeometry {
  std::vector<std::int64_t> sizes, strides, positions;
  explicit MeshGeometry(const InspectMesh& mesh) : positions(mesh.positions()) {
    for (const auto& a : mesh.axes) sizes.push_back(a.size);
    strides.assign(sizes.size(), 1);
    for (std::size_t k = sizes.size(); k-- > 1;) strides[k - 1] = strides[k] * sizes[k];
  }
  std::int64_t coord(std::int64_t position, std::size_t k) const { return (position / strides[k]) % sizes[k]; }
};

// The digits whose sums are exactly `inSet` (a membership table of the normalized set, holding 0),
// smallest place first; nullopt when the set is no such sum of sub-axes of an axis of size n.
std::optional<std::vector<Digit>> digitsOf(const std::vector<char>& inSet, std::int64_t setSize, std::int64_t n) {
  std::vector<Digit> digits;
  std::vector<std::int64_t> generated{0};
  std::vector<char> inGenerated(std::size_t(n), 0);
  inGenerated[0] = 1;
  while (std::int64_t(generated.size()) < setSize) {
    std::int64_t w = -1;
    for (std::int64_t v = 1; v < n && w < 0; ++v)
      if (inSet[std::size_t(v)] && !inGenerated[std::size_t(v)]) w = v;
    if (w < 0) return std::nullopt;
    if (!digits.empty() && w % (digits.back().place * digits.back().count) != 0) return std::nullopt;
    std::int64_t count = 1;
    for (;; ++count) {
      bool all = true;
      for (const auto x : generated) {
        const std::int64_t y = x + count * w;
        if (y >= n || !inSet[std::size_t(y)]) {
          all = false;
          break;
        }
      }
      if (!all) break;
    }
    if (count < 2 || n % (w * count) != 0) return std::nullopt;
    const std::size_t base = generated.size();
    for (std::int64_t j = 1; j < count; ++j)
      for (std::size_t i = 0; i < base; ++i) {
        const std::int64_t y = generated[i] + j * w;
        generated.push_back(y);
        inGenerated[std::size_t(y)] = 1;
      }
    digits.push_back({w, count});
  }
  if (std::int64_t(generated.size()) != setSize) return std::nullopt;
  return digits;
}

GroupSpan noFit(std::string why) {
  GroupSpan s;
  s.why = std::move(why);
  return s;
}

GroupSpan allAxes(const InspectMesh& mesh) {
  GroupSpan s;
  s.fit = GroupSpan::Fit::Axes;
  for (std::size_t k = 0; k < mesh.axes.size(); ++k)
    if (mesh.axes[k].size > 1) s.parts.push_back({k, 1, mesh.axes[k].size});
  s.major_to_minor = s.parts;
  return s;
}

// The major-to-minor order of `parts` as group 0 lists its members: a part changes first (at a
// smaller member index) the more minor it is.
std::vector<MeshAxisPart> memberOrder(const std::vector<MeshAxisPart>& parts, const std::vector<Digit>& digitOf,
                                      const std::int64_t* members, std::int64_t n, const MeshGeometry& g) {
  std::vector<std::pair<std::int64_t, std::size_t>> firstChange;
  for (std::size_t i = 0; i < parts.size(); ++i) {
    const auto& p = parts[i];
    const auto value = [&](std::int64_t pos) { return (g.coord(pos, p.axis) / digitOf[i].place) % digitOf[i].count; };
    const std::int64_t v0 = value(g.positions[std::size_t(members[0])]);
    std::int64_t j = 1;
    while (j < n && value(g.positions[std::size_t(members[j])]) == v0) ++j;
    firstChange.push_back({j, i});
  }
  std::sort(firstChange.begin(), firstChange.end(), [](const auto& a, const auto& b) { return a.first > b.first; });
  std::vector<MeshAxisPart> out;
  for (const auto& [j, i] : firstChange) out.push_back(parts[i]);
  return out;
}

// Checks every group against group 0's per-axis sets; "" when they all match.
std::string checkGroups(const DeviceGroups& groups, const MeshGeometry& g, const std::vector<std::vector<char>>& sets,
                        const std::vector<std::vector<Digit>>& digits) {
  const std::int64_t n = groups.group_size;
  const std::size_t rank = g.sizes.size();
  std::vector<char> seen(g.positions.size(), 0);
  std::vector<std::int64_t> lo(rank);
  for (std::size_t start = 0; start < groups.ids.size(); start += std::size_t(n)) {
    const std::int64_t* m = groups.ids.data() + start;
    std::fill(lo.begin(), lo.end(), std::numeric_limits<std::int64_t>::max());
    for (std::int64_t j = 0; j < n; ++j) {
      if (m[j] < 0 || m[j] >= std::int64_t(g.positions.size()))
        return "device " + std::to_string(m[j]) + " is not one of the mesh's " + std::to_string(g.positions.size());
      if (seen[std::size_t(m[j])]) return "device " + std::to_string(m[j]) + " is in two groups";
      seen[std::size_t(m[j])] = 1;
      for (std::size_t k = 0; k < rank; ++k) lo[k] = std::min(lo[k], g.coord(g.positions[std::size_t(m[j])], k));
    }
    for (std::size_t k = 0; k < rank; ++k)
      for (const auto& d : digits[k])
        if ((lo[k] / d.place) % d.count != 0)
          return "group " + std::to_string(start / std::size_t(n)) + " straddles a sub-axis boundary";
    for (std::int64_t j = 0; j < n; ++j)
      for (std::size_t k = 0; k < rank; ++k)
        if (!sets[k][std::size_t(g.coord(g.positions[std::size_t(m[j])], k) - lo[k])])
          return "group " + std::to_string(start / std::size_t(n)) + " varies the mesh differently from group 0";
  }
  return "";
}

} // namespace

GroupSpan spanOfGroups(const DeviceGroups& groups, const InspectMesh& mesh) {
  if (mesh.axes.empty()) return noFit("the mesh has no axes");
  if (groups.all_devices) return allAxes(mesh);
  const std::int64_t devices = mesh.deviceCount();
  if (groups.uneven) {
    bool equal = true;
    for (const auto s : groups.sizes) equal = equal && s == groups.group_size;
    if (!equal) return noFit("the groups have different sizes");
  }
  const std::int64_t n = groups.group_size;
  if (n < 1) return noFit("the groups are empty");
  if (std::int64_t(groups.ids.size()) != devices)
    return noFit("the groups hold " + std::to_string(groups.ids.size()) + " devices, the mesh " +
                 std::to_string(devices));
  const MeshGeometry g(mesh);
  const std::size_t rank = mesh.axes.size();
  // Group 0's set along every axis.
  std::vector<std::vector<char>> sets(rank);
  std::vector<std::vector<Digit>> digits(rank);
  std::int64_t product = 1;
  for (std::size_t k = 0; k < rank; ++k) {
    sets[k].assign(std::size_t(g.sizes[k]), 0);
    std::int64_t lo = g.sizes[k];
    for (std::int64_t j = 0; j < n; ++j) {
      const auto id = groups.ids[std::size_t(j)];
      if (id < 0 || id >= devices) return noFit("device " + std::to_string(id) + " is not in the mesh");
      lo = std::min(lo, g.coord(g.positions[std::size_t(id)], k));
    }
    std::int64_t count = 0;
    for (std::int64_t j = 0; j < n; ++j) {
      char& slot = sets[k][std::size_t(g.coord(g.positions[std::size_t(groups.ids[std::size_t(j)])], k) - lo)];
      count += slot == 0;
      slot = 1;
    }
    product *= count;
    const auto d = digitsOf(sets[k], count, g.sizes[k]);
    if (!d) return noFit("the groups take part of axis '" + mesh.axes[k].name + "' that is no sub-axis");
    digits[k] = *d;
  }
  if (product != n) return noFit("group 0 is not a product of mesh axes");
  if (auto why = checkGroups(groups, g, sets, digits); !why.empty()) return noFit(why);
  GroupSpan span;
  std::vector<Digit> digitOf;
  for (std::size_t k = 0; k < rank; ++k)
    for (std::size_t i = digits[k].size(); i-- > 0;) { // largest place (most major) first
      const Digit& d = digits[k][i];
      span.parts.push_back({k, g.sizes[k] / (d.place * d.count), d.count});
      digitOf.push_back(d);
    }
  span.fit = GroupSpan::Fit::Axes;
  for (const auto& p : span.parts)
    if (p.pre_size != 1 || p.size != g.sizes[p.axis]) span.fit = GroupSpan::Fit::SubAxes;
  span.major_to_minor = memberOrder(span.parts, digitOf, groups.ids.data(), n, g);
  return span;
}

std::optional<std::vector<std::string>> spannedAxes(const GroupSpan& span, const InspectMesh& mesh) {
  if (span.fit != GroupSpan::Fit::Axes) return std::nullopt;
  std::vector<std::string> out;
  for (const auto& p : span.parts) out.push_back(mesh.axes[p.axis].name);
  return out;
}

std::string spanNote(const GroupSpan& span, const InspectMesh& mesh) {
  if (span.fit == GroupSpan::Fit::Axes) return "";
  if (span.fit == GroupSpan::Fit::NoFit) return "the device groups fit no order of the mesh: " + span.why;
  std::string parts;
  for (const auto& p : span.parts) parts += (parts.empty() ? "" : ", ") + meshAxisPartName(mesh, p);
  return "the device groups span part of an axis: " + parts;
}

std::optional<std::vector<std::size_t>> fittingAxisOrder(const DeviceGroups& groups, const InspectMesh& mesh) {
  const std::size_t rank = mesh.axes.size();
  if (rank < 2 || rank > 6 || !mesh.device_ids.empty() || mesh.deviceCount() > (std::int64_t{1} << 16))
    return std::nullopt;
  std::vector<std::size_t> order(rank);
  std::iota(order.begin(), order.end(), std::size_t{0});
  while (std::next_permutation(order.begin(), order.end())) {
    InspectMesh permuted;
    for (const auto k : order) permuted.axes.push_back(mesh.axes[k]);
    if (spanOfGroups(groups, permuted).fit == GroupSpan::Fit::Axes) return order;
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> permuteAxes(const std::vector<SourceTargetPair>& pairs,
                                                    const InspectMesh& mesh) {
  const std::int64_t devices = mesh.deviceCount();
  if (mesh.axes.empty()) return std::nullopt;
  const MeshGeometry g(mesh);
  std::vector<char> moved(mesh.axes.size(), 0);
  for (const auto& p : pairs) {
    if (p.source < 0 || p.source >= devices || p.target < 0 || p.target >= devices) return std::nullopt;
    const auto s = g.positions[std::size_t(p.source)], t = g.positions[std::size_t(p.target)];
    for (std::size_t k = 0; k < mesh.axes.size(); ++k) moved[k] |= g.coord(s, k) != g.coord(t, k);
  }
  std::vector<std::string> out;
  for (std::size_t k = 0; k < mesh.axes.size(); ++k)
    if (moved[k]) out.push_back(mesh.axes[k].name);
  return out;
}

} // namespace shardscope
