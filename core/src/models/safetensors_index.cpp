// SPDX-License-Identifier: Apache-2.0
// A sharded checkpoint: model.safetensors.index.json maps every tensor name to the shard file that
// holds it ({"metadata": {...}, "weight_map": {name: "model-00001-of-00004.safetensors"}}). We read
// the index, then only the header of each shard, and keep the tensors in index order.
#include "checkpoint_config.hpp"
#include "base/json_input.hpp"
#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <map>
#include <unordered_map>

namespace shardscope {

namespace {

// A shard name must be a plain file next to the index: an index is untrusted input and must not
// make us open arbitrary paths.
void checkShardName(const std::string& shard, const std::string& tensor, const std::string& source) {
  // A NUL would cut the name short when the file is opened: "a.safetensors\0x" opens a.safetensors.
  if (shard.find('\0') != std::string::npos)
    throwValueError(source + ": weight_map[" + shardscope::quoted(tensor) +
                    "] names a shard file with a NUL byte: " + shardscope::quoted(shard));
  const std::filesystem::path p(shard);
  if (shard.empty() || p.is_absolute() || p.has_parent_path() || shard == "." || shard == "..")
    throwValueError(source + ": weight_map[" + shardscope::quoted(tensor) +
                    "] must name a shard file in the same folder, got " + shardscope::quoted(shard));
}

} // namespace

Model loadSafetensorsIndex(const std::filesystem::path& indexFile) {
  const std::string source = indexFile.filename().string();
  const Json index = readJsonFile(indexFile, source);
  if (!index.is_object()) throwValueError(source + ": must be a JSON object with a weight_map");
  auto map = index.find("weight_map");
  if (map == index.end() || !map->is_object()) throwValueError(source + ": 'weight_map' is missing or not an object");
  // Read each distinct shard once.
  std::map<std::string, std::unordered_map<std::string, Param>> shards;
  for (auto it = map->begin(); it != map->end(); ++it) {
    if (!it->is_string()) throwValueError(source + ": weight_map['" + it.key() + "'] must be a shard file name");
    const auto shard = it->get<std::string>();
    checkShardName(shard, it.key(), source);
    if (shards.count(shard)) continue;
    const auto shardPath = indexFile.parent_path() / shard;
    if (!std::filesystem::exists(shardPath))
      throwValueError(source + ": shard '" + shard + "' (for tensor '" + it.key() + "') does not exist");
    auto& byName = shards[shard];
    for (auto& p : readSafetensorsHeader(shardPath).params) {
      std::string key = p.path;
      byName.emplace(std::move(key), std::move(p));
    }
  }
  Model model;
  const auto parent = std::filesystem::absolute(indexFile).parent_path();
  model.name = parent.filename().empty() ? indexFile.stem().string() : parent.filename().string();
  model.params.reserve(map->size());
  for (auto it = map->begin(); it != map->end(); ++it) {
    const auto shard = it->get<std::string>();
    auto& byName = shards[shard];
    auto found = byName.find(it.key());
    if (found == byName.end())
      throwValueError(source + ": tensor '" + it.key() + "' is mapped to shard '" + shard +
                      "' whose header does not list it");
    model.params.push_back(found->second);
  }
  validateModel(model);
  attachSiblingConfig(model, indexFile);
  return model;
}

} // namespace shardscope
