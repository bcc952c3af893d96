// A Hub checkpoint folder holds config.json beside its safetensors files. The tensors come from the
// headers; the architecture numbers (layers, heads, ...) that activations and the KV cache need come
// from that config, when it is there and describes a family we know.
#include "checkpoint_config.hpp"

#include "shardscope/errors.hpp"

#include <fstream>

namespace shardscope {

void attachSiblingConfig(Model& model, const std::filesystem::path& checkpointFile) {
  const auto configFile = checkpointFile.parent_path() / "config.json";
  std::error_code ec;
  if (!std::filesystem::is_regular_file(configFile, ec)) return;
  const auto size = std::filesystem::file_size(configFile, ec);
  if (ec || size > kMaxSafetensorsHeader) {
    model.notes.push_back("config.json beside the checkpoint is unreadable or too large; no architecture config");
    return;
  }
  try {
    std::ifstream in(configFile, std::ios::binary);
    model.config = modelConfigFromHf(Json::parse(in));
  } catch (const nlohmann::json::parse_error& e) {
    model.notes.push_back(std::string("config.json beside the checkpoint is not valid JSON (") + e.what() + "); no architecture config");
  } catch (const Error& e) {
    model.notes.push_back(std::string("config.json beside the checkpoint was not used: ") + e.what());
  }
}

} // namespace shardscope
