// SPDX-License-Identifier: Apache-2.0
// Where the built-in presets (resources/: models, rule sets, scenarios) are found at run time.
#pragma once

#include <filesystem>
#include <string>

namespace shardscope {

// The first that exists of: $SHARDSCOPE_RESOURCES; <dir of the running executable>/../share/
// shardscope/resources (an installed copy); the source tree's resources/ (a development build).
// Throws IOError naming the places it looked when none exists.
std::filesystem::path resourceDir();

// resourceDir() / relative, e.g. resourcePath("models/gpt2.json").
std::filesystem::path resourcePath(const std::string& relative);

} // namespace shardscope
