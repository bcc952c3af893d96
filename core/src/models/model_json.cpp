// SPDX-License-Identifier: Apache-2.0
// Our JSON form of a model (docs/formats.md): a name, a list of {path, shape, dtype} and, optionally,
// the architecture numbers under "config" with the field names of ModelConfig.
#include "shardscope/base/dtype.hpp"
#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/models/model_loaders.hpp"

namespace shardscope {

namespace {

Param paramFromJson(const Json& p, std::size_t index, const std::optional<std::string>& defaultDtype) {
  const std::string at = "params[" + std::to_string(index) + "]";
  if (!p.is_object()) throwValueError(at + " must be an object with path, shape and dtype");
  Param out;
  auto path = p.find("path");
  if (path == p.end()) path = p.find("name");
  if (path == p.end() || !path->is_string() || path->get<std::string>().empty())
    throwValueError(at + ".path must be a non-empty string");
  out.path = path->get<std::string>();
  const std::string named = at + " ('" + out.path + "')";
  auto shape = p.find("shape");
  if (shape == p.end() || !shape->is_array()) throwValueError(named + ".shape must be a list of integers");
  if (shape->size() > kMaxRank) throwRankError(shape->size(), named + ".shape");
  for (std::size_t d = 0; d < shape->size(); ++d)
    out.shape.push_back(nonNegativeInt((*shape)[d], named + ".shape[" + std::to_string(d) + "]"));
  auto dtype = p.find("dtype");
  if (dtype == p.end()) {
    if (!defaultDtype) throwValueError(named + ".dtype is missing and the model has no top-level dtype");
    out.dtype = *defaultDtype;
  } else {
    if (!dtype->is_string()) throwValueError(named + ".dtype must be a string");
    auto name = canonicalDtype(dtype->get<std::string>());
    if (!name) throwValueError(named + ".dtype '" + dtype->get<std::string>() + "' is not a known dtype");
    out.dtype = *name;
  }
  return out;
}

// ModelConfig <-> JSON, field by field (the names of the struct members).
#define SHARDSCOPE_CONFIG_INT_FIELDS(X)                                                                                \
  X(num_layers)                                                                                                        \
  X(hidden) X(heads) X(kv_heads) X(head_dim) X(ffn) X(vocab) X(max_positions) X(experts) X(experts_per_token)          \
      X(moe_ffn) X(shared_experts) X(first_dense_layers) X(q_lora_rank) X(kv_lora_rank) X(qk_nope_head_dim)            \
          X(qk_rope_head_dim) X(v_head_dim) X(sliding_window) X(sliding_window_pattern)

ModelConfig configFromJson(const Json& j) {
  if (!j.is_object()) throwValueError("config must be an object");
  ModelConfig c;
  for (auto it = j.begin(); it != j.end(); ++it) {
    const std::string& key = it.key();
    const std::string what = "config." + key;
    if (key == "model_type") {
      if (!it->is_string()) throwValueError(what + " must be a string");
      c.model_type = it->get<std::string>();
      continue;
    }
    if (key == "tie_embeddings") {
      if (!it->is_boolean()) throwValueError(what + " must be true or false");
      c.tie_embeddings = it->get<bool>();
      continue;
    }
#define SHARDSCOPE_READ(field)                                                                                         \
  if (key == #field) {                                                                                                 \
    c.field = nonNegativeInt(*it, what);                                                                               \
    if (c.field > (std::int64_t{1} << 31)) throwValueError(what + " is implausibly large");                            \
    continue;                                                                                                          \
  }
    SHARDSCOPE_CONFIG_INT_FIELDS(SHARDSCOPE_READ)
#undef SHARDSCOPE_READ
    throwValueError(what + " is not a known config field");
  }
  if (c.heads > 0 && c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0 && c.heads > 0 && c.hidden % c.heads == 0) c.head_dim = c.hidden / c.heads;
  return c;
}

Json configToJson(const ModelConfig& c) {
  Json j = Json::object();
  j["model_type"] = c.model_type;
  j["tie_embeddings"] = c.tie_embeddings;
#define SHARDSCOPE_WRITE(field)                                                                                        \
  if (c.field != 0) j[#field] = c.field;
  SHARDSCOPE_CONFIG_INT_FIELDS(SHARDSCOPE_WRITE)
#undef SHARDSCOPE_WRITE
  return j;
}

} // namespace

Model modelFromJson(const Json& json) {
  Model model;
  const Json* params = nullptr;
  std::optional<std::string> defaultDtype;
  if (json.is_array()) {
    params = &json;
  } else if (json.is_object()) {
    if (auto name = json.find("name"); name != json.end()) {
      if (!name->is_string()) throwValueError("name must be a string");
      model.name = name->get<std::string>();
    }
    if (auto dtype = json.find("dtype"); dtype != json.end()) {
      if (!dtype->is_string() || !canonicalDtype(dtype->get<std::string>()))
        throwValueError("dtype must name a known dtype, got " + jsonRepr(*dtype));
      defaultDtype = canonicalDtype(dtype->get<std::string>());
    }
    auto p = json.find("params");
    if (p == json.end() || !p->is_array()) throwValueError("params must be a list of {path, shape, dtype} objects");
    params = &*p;
    if (auto config = json.find("config"); config != json.end() && !config->is_null())
      model.config = configFromJson(*config);
  } else {
    throwValueError("a model must be an object {name, params, config?} or a list of params");
  }
  model.params.reserve(params->size());
  for (std::size_t i = 0; i < params->size(); ++i) model.params.push_back(paramFromJson((*params)[i], i, defaultDtype));
  validateModel(model);
  return model;
}

Json modelToJson(const Model& model) {
  Json j = Json::object();
  j["name"] = model.name;
  Json params = Json::array();
  for (const auto& p : model.params) params.push_back(Json{{"path", p.path}, {"shape", p.shape}, {"dtype", p.dtype}});
  j["params"] = std::move(params);
  if (model.config) j["config"] = configToJson(*model.config);
  return j;
}

} // namespace shardscope
