// One entry point for "a model file the user picked": the loader follows the file name, then the
// content (a config.json is recognised by its model_type key).
#include "shardscope/errors.hpp"
#include "shardscope/model_loaders.hpp"

#include <fstream>
#include <sstream>

namespace shardscope {

Model loadModelFile(const std::filesystem::path& file) {
  const std::string name = file.filename().string();
  if (name.ends_with(".safetensors")) return loadSafetensors(file);
  if (name.ends_with(".safetensors.index.json")) return loadSafetensorsIndex(file);
  std::error_code ec;
  const auto size = std::filesystem::file_size(file, ec);
  if (ec) throwValueError(name + ": cannot read file (" + ec.message() + ")");
  if (size > kMaxSafetensorsHeader) throwValueError(name + ": file of " + std::to_string(size) + " bytes exceeds the 100 MB limit");
  std::ifstream in(file, std::ios::binary);
  if (!in) throwValueError(name + ": cannot open file");
  std::stringstream text;
  text << in.rdbuf();
  Json json;
  try {
    json = Json::parse(text.str());
  } catch (const nlohmann::json::parse_error& e) {
    throwValueError(name + ": not valid JSON (" + e.what() + ")");
  }
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
