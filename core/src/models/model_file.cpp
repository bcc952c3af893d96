// SPDX-License-Identifier: Apache-2.0
// One entry point for "a model file the user picked": the loader follows the file name, then the
// content (a config.json is recognised by its model_type key).
#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

namespace shardscope {

Model loadModelFile(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (name.ends_with(".safetensors")) return loadSafetensors(file);
  if (name.ends_with(".safetensors.index.json")) return loadSafetensorsIndex(file);
  const Json json = readJsonFile(file, name);
  if (json.is_object() && json.contains("model_type")) {
    // A config.json is usually named after its folder (the Hub repo).
    const auto parent = std::filesystem::absolute(file).parent_path().filename().string();
    return modelFromHfConfig(json, file.stem() == "config" && !parent.empty() ? parent : file.stem().string());
  }
  Model model = modelFromJson(json);
  if (model.name.empty()) model.name = file.stem().string();
  return model;
}

} // namespace shardscope
