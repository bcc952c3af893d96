// SPDX-License-Identifier: Apache-2.0
#include "layout_candidates.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>

namespace shardscope {

namespace {

void factorInto(std::int64_t n, std::size_t i, const std::vector<std::int64_t>& limits, std::vector<std::int64_t>& cur,
                std::vector<std::vector<std::int64_t>>& out) {
  if (i + 1 == cur.size()) {
    const std::int64_t limit = i < limits.size() ? limits[i] : 0;
    if (limit > 0 && n > limit) return;
    cur[i] = n;
    out.push_back(cur);
    return;
  }
  const std::int64_t limit = i < limits.size() && limits[i] > 0 ? std::min(limits[i], n) : n;
  for (std::int64_t d = 1; d <= limit; ++d) {
    if (n % d) continue;
    cur[i] = d;
    factorInto(n / d, i + 1, limits, cur, out);
  }
}

} // namespace

std::vector<std::vector<std::int64_t>> factorisations(std::int64_t n, std::size_t parts,
                                                      const std::vector<std::int64_t>& limits) {
  if (n < 1) throwValueError("cannot factor " + std::to_string(n) + " devices");
  std::vector<std::vector<std::int64_t>> out;
  if (parts == 0) {
    if (n == 1) out.emplace_back();
    return out;
  }
  std::vector<std::int64_t> cur(parts, 1);
  factorInto(n, 0, limits, cur, out);
  return out;
}

namespace search {

int canonicalRank(const std::string& name) {
  // cp: context parallelism as Megatron and torchtitan run it (the sequence split, the weights
  // whole across the group, K/V passed round it); sp: a sequence axis that also shards the weights
  // like FSDP (MaxText's context axis).
  static const char* const kOrder[] = {"dp", "fsdp", "ep", "cp", "sp", "tp"};
  for (int i = 0; i < 6; ++i)
    if (name == kOrder[i]) return i;
  return -1;
}

std::map<std::string, std::string> ownAxisNames(const Scenario& scenario) {
  std::map<std::string, std::string> out;
  if (!scenario.rules.preset.empty()) return out;
  const auto has = [&](const std::string& name) {
    return std::any_of(scenario.mesh.axes.begin(), scenario.mesh.axes.end(),
                       [&](const MeshAxis& a) { return a.name == name; });
  };
  // MaxText's mesh_axes (configs/base.yml) for each role; `context` is its context-parallel axis.
  static const std::pair<const char*, const char*> kAliases[] = {
      {"dp", "data"}, {"fsdp", "fsdp"}, {"ep", "expert"}, {"sp", "context"}, {"tp", "tensor"}};
  bool renames = false;
  for (const auto& [role, alias] : kAliases) {
    if (has(role) || !has(alias)) continue;
    out[role] = alias;
    renames = renames || std::string(role) != alias;
  }
  if (!renames) out.clear();
  return out;
}

std::string MeshChoice::text() const {
  std::string out;
  for (const auto& a : axes) out += (out.empty() ? "" : ",") + a.name + ":" + std::to_string(a.ici * a.dcn);
  return out.empty() ? "single device" : out;
}

std::string MeshChoice::family() const {
  std::vector<std::string> names;
  for (const auto& a : axes) names.push_back(a.name);
  std::sort(names.begin(), names.end(),
            [](const std::string& x, const std::string& y) { return canonicalRank(x) < canonicalRank(y); });
  std::string out;
  for (const auto& n : names) out += (out.empty() ? "" : "+") + n;
  return out.empty() ? "single device" : out;
}

std::int64_t MeshChoice::sizeOf(const std::string& name) const {
  for (const auto& a : axes)
    if (a.name == name) return a.ici * a.dcn;
  return 1;
}

std::vector<std::string> defaultSearchAxes(bool moe, std::int64_t seqLen) {
  std::vector<std::string> axes{"dp", "fsdp"};
  if (moe) axes.push_back("ep");
  if (seqLen >= 32768) {
    axes.push_back("cp");
    axes.push_back("sp");
  }
  axes.push_back("tp");
  return axes;
}

std::vector<MeshChoice> meshChoices(const std::vector<std::string>& axes, std::int64_t devicesPerSlice,
                                    std::int64_t slices, const std::map<std::string, std::int64_t>& limits,
                                    bool orders) {
  std::vector<std::int64_t> limitOf;
  for (const auto& a : axes) {
    const auto it = limits.find(a);
    limitOf.push_back(it == limits.end() ? 0 : it->second);
  }
  const auto iciParts = factorisations(devicesPerSlice, axes.size(), limitOf);
  const auto dcnParts = factorisations(slices, axes.size(), limitOf);
  std::vector<MeshChoice> out;
  for (const auto& ici : iciParts) {
    for (const auto& dcn : dcnParts) {
      MeshChoice base;
      bool withinLimits = true;
      for (std::size_t i = 0; i < axes.size(); ++i) {
        if (ici[i] * dcn[i] == 1) continue;
        if (limitOf[i] > 0 && ici[i] * dcn[i] > limitOf[i]) withinLimits = false;
        base.axes.push_back({axes[i], ici[i], dcn[i], AxisType::Explicit});
      }
      if (!withinLimits) continue;
      std::sort(base.axes.begin(), base.axes.end(),
                [](const MeshAxis& x, const MeshAxis& y) { return canonicalRank(x.name) < canonicalRank(y.name); });
      out.push_back(base);
      if (!orders || base.axes.size() < 2) continue;
      if (base.axes.size() <= 3) {
        MeshChoice perm = base;
        auto byRank = [](const MeshAxis& x, const MeshAxis& y) {
          return canonicalRank(x.name) < canonicalRank(y.name);
        };
        while (std::next_permutation(perm.axes.begin(), perm.axes.end(), byRank)) out.push_back(perm);
      } else {
        MeshChoice reversed = base;
        std::reverse(reversed.axes.begin(), reversed.axes.end());
        out.push_back(reversed);
      }
    }
  }
  return out;
}

} // namespace search
} // namespace shardscope
