// Built-in models: Hugging Face config.json files under resources/models/, found in the source tree
// while developing and under <prefix>/share/shardscope/models once installed.
#include "json_input.hpp"
#include "shardscope/errors.hpp"
#include "shardscope/model_loaders.hpp"

#include <algorithm>
#include <cstdlib>

namespace shardscope {

namespace {

std::filesystem::path executableDir() {
  std::error_code ec;
  auto exe = std::filesystem::read_symlink("/proc/self/exe", ec);
  return ec ? std::filesystem::path() : exe.parent_path();
}

} // namespace

std::filesystem::path presetModelDirectory() {
  if (const char* env = std::getenv("SHARDSCOPE_RESOURCES"); env && *env) return std::filesystem::path(env) / "models";
  std::error_code ec;
  if (auto dir = executableDir(); !dir.empty()) {
    auto installed = dir.parent_path() / "share" / "shardscope" / "models";
    if (std::filesystem::is_directory(installed, ec)) return installed;
  }
  return std::filesystem::path(SHARDSCOPE_SOURCE_RESOURCES) / "models";
}

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
