// SPDX-License-Identifier: Apache-2.0
// Internal: reading the architecture of a checkpoint from the config.json next to it.
#pragma once

#include "shardscope/models/model_loaders.hpp"

#include <filesystem>

namespace shardscope {

// loadSafetensors without the config lookup: the tensors of one file (a shard of an index).
Model readSafetensorsHeader(const std::filesystem::path& file);

// Sets model.config from <folder of checkpointFile>/config.json when it exists and parses; a config
// that exists but cannot be used becomes a note on the model, never an error (the tensors are fine).
void attachSiblingConfig(Model& model, const std::filesystem::path& checkpointFile);

} // namespace shardscope
