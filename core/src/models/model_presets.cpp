// SPDX-License-Identifier: Apache-2.0
// Built-in models: Hugging Face config.json files under <resourceDir()>/models (the source tree while
// developing, <prefix>/share/shardscope/resources once installed).
#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/base/resources.hpp"

#include <algorithm>

namespace shardscope {

std::filesystem::path presetModelDirectory() { return resourceDir() / "models"; }

std::vector<std::string> presetModelNames() {
  std::vector<std::string> names;
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(presetModelDirectory(), ec)) {
    const auto& p = entry.path();
    if (p.extension() == ".json" && p.stem() != "index") names.push_back(p.stem().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Model loadPresetModel(const std::string& name) {
  const auto names = presetModelNames();
  // Only listed names are opened, so a name cannot reach outside the folder.
  if (std::find(names.begin(), names.end(), name) == names.end()) {
    std::string known;
    for (const auto& n : names) known += (known.empty() ? "" : ", ") + n;
    throwValueError("unknown model preset '" + name + "' (known: " + known + ")");
  }
  const auto file = presetModelDirectory() / (name + ".json");
  const Json json = readJsonFile(file, "model preset '" + name + "'");
  return modelFromHfConfig(json, name);
}

} // namespace shardscope
