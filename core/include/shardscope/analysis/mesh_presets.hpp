// SPDX-License-Identifier: Apache-2.0
// Logical-mesh presets: named axis layouts that fit any chip count (one axis takes the rest with
// -1) and put the slices on a data-like axis over DCN. The app's Logical mesh dock offers them;
// every command takes one as `--mesh NAME` (meshAxesFromText).
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct MeshPresetInfo {
  std::string_view name;        // "fsdp-tp"
  std::string_view description; // one line for a tooltip or `help`
};

// Every preset, in the order a picker lists them.
const std::vector<MeshPresetInfo>& meshPresets();
bool isMeshPreset(std::string_view name);

// The axes of a preset on `slices` slices. Throws ValueError listing the presets for an unknown name.
std::vector<MeshAxis> meshPresetAxes(std::string_view name, int slices);

} // namespace shardscope
