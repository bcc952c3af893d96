// SPDX-License-Identifier: Apache-2.0
// The short text form of a logical mesh used on command lines: "fsdp:-1,tp:4" (name:size pairs,
// at most one size -1 meaning "whatever the device count leaves").
#pragma once

#include "shardscope/mesh/mesh_axes.hpp"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Throws ValueError naming the bad part: empty/duplicate names, sizes that are not positive
// integers (or -1), more than one -1, a product that does not divide / equal `deviceCount`.
MeshAxes parseMeshAxes(std::string_view text, std::int64_t deviceCount);

} // namespace shardscope
