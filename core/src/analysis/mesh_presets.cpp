// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/mesh_presets.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>

namespace shardscope {

namespace {

struct MeshPreset {
  MeshPresetInfo info;
  // The axes for `s` slices (s >= 1): a data-like axis takes the slices over DCN.
  std::vector<MeshAxis> (*axes)(std::int64_t s);
};

const std::vector<MeshPreset>& table() {
  static const std::vector<MeshPreset> presets{
      {{"dp", "Pure data parallelism: one axis over every chip."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"dp", -1, s}};
       }},
      {{"fsdp", "Fully sharded data parallelism: parameters sharded over every chip."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"fsdp", -1, s}};
       }},
      {{"fsdp-tp", "FSDP over the rest, tensor parallelism over 4 chips."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"fsdp", -1, s}, {"tp", 4, 1}};
       }},
      {{"dp-fsdp-tp", "dp 2, fsdp over the rest, tp 4 (the default workspace's layout)."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"dp", 2, s}, {"fsdp", -1, 1}, {"tp", 4, 1}};
       }},
      {{"maxtext", "MaxText's data, fsdp, tensor axes (ici_fsdp_parallelism -1); data spans the slices."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"data", 1, s}, {"fsdp", -1, 1}, {"tensor", 1, 1}};
       }},
      {{"ep-tp", "Expert parallelism over the rest, tensor parallelism over 4 chips."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"dp", 1, s}, {"ep", -1, 1}, {"tp", 4, 1}};
       }},
      {{"sp-tp", "Sequence parallelism over the rest, tensor parallelism over 4 chips."},
       [](std::int64_t s) {
         return std::vector<MeshAxis>{{"dp", 1, s}, {"sp", -1, 1}, {"tp", 4, 1}};
       }},
      {{"pp-fsdp-tp", "Pipeline stages across the slices (2 stages on one slice), fsdp over the rest, tp 4."},
       [](std::int64_t s) {
         return s > 1 ? std::vector<MeshAxis>{{"pp", 1, s}, {"fsdp", -1, 1}, {"tp", 4, 1}}
                      : std::vector<MeshAxis>{{"pp", 2, 1}, {"fsdp", -1, 1}, {"tp", 4, 1}};
       }},
  };
  return presets;
}

} // namespace

const std::vector<MeshPresetInfo>& meshPresets() {
  static const std::vector<MeshPresetInfo> infos = [] {
    std::vector<MeshPresetInfo> out;
    for (const auto& p : table()) out.push_back(p.info);
    return out;
  }();
  return infos;
}

bool isMeshPreset(std::string_view name) {
  const auto& t = table();
  return std::any_of(t.begin(), t.end(), [&](const MeshPreset& p) { return p.info.name == name; });
}

std::vector<MeshAxis> meshPresetAxes(std::string_view name, int slices) {
  for (const auto& p : table())
    if (p.info.name == name) return p.axes(std::max(1, slices));
  std::string names;
  for (const auto& p : table()) names += (names.empty() ? "" : ", ") + std::string(p.info.name);
  throwValueError("unknown mesh preset '" + std::string(name) + "' (presets: " + names + ")");
}

} // namespace shardscope
