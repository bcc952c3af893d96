// SPDX-License-Identifier: Apache-2.0
// Where models come from: our JSON form, safetensors headers (one file or a sharded checkpoint's
// index), a Hugging Face config.json (tensors synthesized from the architecture), and the built-in
// presets. Every loader validates what it read and throws ValueError naming the field and reason;
// none reads tensor data or allocates from a size it has not bounded.
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/models/model.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// --- our JSON form (docs/formats.md)
// {"name": "...", "params": [{"path": "...", "shape": [..], "dtype": "bfloat16", "logical_axes"?: [..]}, ...],
//  "config": {...HF config.json keys...}?}. A bare list of param objects is accepted too.
Model modelFromJson(const Json& json);
Json modelToJson(const Model& model);
// A parameter's logical axis names as JSON: a list with null for a dimension without a name.
Json logicalAxesJson(const std::vector<std::string>& axes);

// --- safetensors
// The largest header we accept. The format itself caps it at 100 MB (safetensors' MAX_HEADER_SIZE).
inline constexpr std::uint64_t kMaxSafetensorsHeader = 100'000'000;
// Parses a header's JSON text (the bytes after the 8-byte length); `source` names it in messages.
std::vector<Param> paramsFromSafetensorsHeader(std::string_view headerJson, const std::string& source);
// Reads only the header of a .safetensors file. A config.json beside a checkpoint (the Hub layout)
// supplies the architecture; when it cannot be used, Model::notes says why.
Model loadSafetensors(const std::filesystem::path& file);
// A sharded checkpoint: model.safetensors.index.json's weight_map plus each shard's header. Tensors
// keep the index order; a tensor the index names but its shard lacks is an error.
Model loadSafetensorsIndex(const std::filesystem::path& indexFile);

// --- Hugging Face config.json
// The architecture numbers of a config (model_type decides the family); throws ValueError naming
// the key that is missing or wrong, NotImplementedError for a model_type we cannot synthesize.
ModelConfig modelConfigFromHf(const Json& config);
// Every tensor of the checkpoint that config describes, with HF names and shapes, in the dtype of
// `torch_dtype` (float32 when absent). Families: llama, llama4/llama4_text (the language model),
// mistral, mixtral, qwen2, qwen3, qwen3_moe, qwen3_next, gemma, gemma2, gemma3/gemma3_text, gpt2,
// gpt_oss, olmo3, deepseek_v2, deepseek_v3, kimi_k2.
Model modelFromHfConfig(const Json& config, const std::string& name);
// The model_types modelFromHfConfig understands.
const std::vector<std::string>& supportedHfModelTypes();

// --- any file: chooses the loader from the name and content (*.safetensors,
// *.safetensors.index.json, a config.json with "model_type", else our JSON form).
Model loadModelFile(const std::filesystem::path& file);

// --- built-in presets (resources/models/<name>.json, HF config.json files)
std::vector<std::string> presetModelNames();
// Throws ValueError listing the known names when `name` is not one.
Model loadPresetModel(const std::string& name);
// The folder the presets are read from: resourceDir() / "models" (resources.hpp).
std::filesystem::path presetModelDirectory();

} // namespace shardscope
