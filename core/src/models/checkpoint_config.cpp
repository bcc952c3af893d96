// SPDX-License-Identifier: Apache-2.0
// A Hub checkpoint folder holds config.json beside its safetensors files. The tensors come from the
// headers; the architecture numbers (layers, heads, ...) that activations and the KV cache need come
// from that config, when it is there and describes a family we know.
#include "checkpoint_config.hpp"

#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"

namespace shardscope {

void attachSiblingConfig(Model& model, const std::filesystem::path& checkpointFile) {
  const auto configFile = checkpointFile.parent_path() / "config.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(configFile, ec)) return;
  try {
    model.config = modelConfigFromHf(readJsonFile(configFile, "config.json"));
  } catch (const Error& e) {
    model.notes.push_back(std::string("config.json beside the checkpoint was not used: ") + e.what());
  }
}

} // namespace shardscope
