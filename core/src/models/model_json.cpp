// SPDX-License-Identifier: Apache-2.0
// Our JSON form of a model (docs/formats.md): a name, a list of {path, shape, dtype} and, optionally,
// the architecture numbers under "config" with the field names of ModelConfig.
#include "shardscope/base/dtype.hpp"
#include "base/json_input.hpp"
#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/nd_array.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <algorithm>
#include <limits>

namespace shardscope {

namespace {

bool isParamKey(const std::string& key) {
  return key == "path" || key == "name" || key == "shape" || key == "dtype" || key == "logical_axes";
}

// A non-negative integer as nlohmann parses it (unsigned), or a signed one >= 0.
bool nonNegative(const Json& v) {
  return v.is_number_unsigned()
             ? v.get<std::uint64_t>() <= static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())
             : v.is_number_integer() && v.get<std::int64_t>() >= 0;
}

// params[index]. A well-formed entry (the common case, up to hundreds of thousands per file) is
// read directly; anything else goes through the field reader, which builds the path and the
// message only then.
Param paramFromJson(const JsonField& params, std::size_t index, const std::optional<std::string>& defaultDtype) {
  const Json& j = params.json()[index];
  if (!j.is_object()) params[index].toObject("an object with path, shape and dtype");
  for (auto it = j.begin(); it != j.end(); ++it)
    if (!isParamKey(it.key())) params[index].checkKeys({"path", "name", "shape", "dtype", "logical_axes"});
  Param out;
  // "name" is accepted for "path" (what safetensors calls a tensor's key).
  const char* pathKey = j.contains("path") || !j.contains("name") ? "path" : "name";
  const Json* path = j.contains(pathKey) ? &j[pathKey] : nullptr;
  if (path && path->is_string() && !path->get_ref<const std::string&>().empty())
    out.path = path->get<std::string>();
  else
    out.path = params[index][pathKey].toNonEmptyString();
  const auto named = [&] { return params[index].annotated(shardscope::quoted(out.path)); };

  const auto shape = j.find("shape");
  if (shape != j.end() && shape->is_array() && shape->size() > kMaxRank)
    throwRankError(shape->size(), named()["shape"].subject());
  if (shape != j.end() && shape->is_array() && std::all_of(shape->begin(), shape->end(), nonNegative)) {
    out.shape.reserve(shape->size());
    for (const auto& d : *shape) out.shape.push_back(d.get<std::int64_t>());
  } else {
    out.shape = named()["shape"].toInts(kNonNegativeInt);
  }

  const auto dtype = j.find("dtype");
  if (dtype != j.end() && !dtype->is_null()) {
    std::optional<std::string> name;
    if (dtype->is_string()) name = canonicalDtype(dtype->get_ref<const std::string&>());
    if (!name) {
      const JsonField field = named()["dtype"];
      field.fail(shardscope::quoted(field.toString()) + " is not a known dtype");
    }
    out.dtype = *name;
  } else {
    if (!defaultDtype) named()["dtype"].fail("is missing and the model has no top-level dtype");
    out.dtype = *defaultDtype;
  }
  // Logical axis names: one per dimension, null for a dimension without one.
  if (const auto axes = j.find("logical_axes"); axes != j.end()) {
    const JsonField field = named()["logical_axes"];
    if (!axes->is_array() || axes->size() != out.shape.size())
      field.fail("must be a list of " + std::to_string(out.shape.size()) + " names (null for none), one per dimension");
    for (const Json& a : *axes) {
      if (!a.is_null() && !a.is_string()) field.fail("must hold names or null, not " + jsonRepr(a));
      out.logical_axes.push_back(a.is_string() ? a.get<std::string>() : std::string());
    }
  }
  return out;
}

// ModelConfig <-> JSON, field by field (the names of the struct members).
// Kept as written: clang-format reflows this list differently on every run.
// clang-format off
#define SHARDSCOPE_CONFIG_INT_FIELDS(X)                                                                   \
  X(num_layers) X(hidden) X(heads) X(kv_heads) X(head_dim) X(ffn) X(vocab) X(max_positions)             \
  X(experts) X(experts_per_token) X(moe_ffn) X(shared_experts) X(first_dense_layers) X(q_lora_rank)     \
  X(kv_lora_rank) X(qk_nope_head_dim) X(qk_rope_head_dim) X(v_head_dim) X(sliding_window)               \
  X(sliding_window_pattern) X(linear_attention_layers)
// clang-format on

// Sizes that must be positive when given (0 would mean "no heads" rather than "not known": leave
// the field out instead); every other count may be 0.
bool mustBePositive(std::string_view field) {
  for (const char* name : {"num_layers", "hidden", "heads", "kv_heads", "head_dim", "ffn", "vocab"})
    if (field == name) return true;
  return false;
}

ModelConfig configFromJson(const JsonField& j) {
  std::vector<std::string_view> known = {"model_type", "tie_embeddings", "gated_mlp", "parallel_block"};
#define SHARDSCOPE_NAME(field) known.push_back(#field);
  SHARDSCOPE_CONFIG_INT_FIELDS(SHARDSCOPE_NAME)
#undef SHARDSCOPE_NAME
  j.checkKeys(known);
  ModelConfig c;
  c.model_type = j["model_type"].stringOr("");
  c.tie_embeddings = j["tie_embeddings"].boolOr(false);
  c.gated_mlp = j["gated_mlp"].boolOr(true);
  c.parallel_block = j["parallel_block"].boolOr(false);
  constexpr std::int64_t kLimit = std::int64_t{1} << 31; // products of a few sizes stay exact in int64
#define SHARDSCOPE_READ(field) c.field = j[#field].intOr(0, {mustBePositive(#field) ? 1 : 0, kLimit});
  SHARDSCOPE_CONFIG_INT_FIELDS(SHARDSCOPE_READ)
#undef SHARDSCOPE_READ
  if (c.experts_per_token > c.experts)
    j["experts_per_token"].fail("(" + std::to_string(c.experts_per_token) + ") is larger than experts (" +
                                std::to_string(c.experts) + ")");
  if (c.linear_attention_layers > c.num_layers)
    j["linear_attention_layers"].fail("(" + std::to_string(c.linear_attention_layers) + ") is more than num_layers (" +
                                      std::to_string(c.num_layers) + ")");
  if (c.heads > 0 && c.kv_heads == 0) c.kv_heads = c.heads;
  if (c.head_dim == 0 && c.heads > 0 && c.hidden % c.heads == 0) c.head_dim = c.hidden / c.heads;
  return c;
}

Json configToJson(const ModelConfig& c) {
  Json j = Json::object();
  j["model_type"] = c.model_type;
  j["tie_embeddings"] = c.tie_embeddings;
  if (!c.gated_mlp) j["gated_mlp"] = false;
  if (c.parallel_block) j["parallel_block"] = true;
#define SHARDSCOPE_WRITE(field)                                                                                        \
  if (c.field != 0) j[#field] = c.field;
  SHARDSCOPE_CONFIG_INT_FIELDS(SHARDSCOPE_WRITE)
#undef SHARDSCOPE_WRITE
  return j;
}

} // namespace

Json logicalAxesJson(const std::vector<std::string>& axes) {
  Json out = Json::array();
  for (const auto& a : axes) out.push_back(a.empty() ? Json(nullptr) : Json(a));
  return out;
}

Model modelFromJson(const Json& json) {
  const JsonField root = fileFields(json, "", "the model");
  Model model;
  JsonField params = root.renamed("params"); // a bare list is the params list
  std::optional<std::string> defaultDtype;
  if (json.is_object()) {
    root.checkKeys({"name", "dtype", "params", "config"});
    model.name = root["name"].stringOr("");
    if (const JsonField dtype = root["dtype"]; dtype.present()) {
      const std::string text = dtype.toString();
      defaultDtype = canonicalDtype(text);
      if (!defaultDtype) dtype.fail(shardscope::quoted(text) + " is not a known dtype");
    }
    params = root["params"];
    params.toArray("a list of {path, shape, dtype} objects");
    if (const JsonField config = root["config"]; config.present()) model.config = configFromJson(config);
  } else if (!json.is_array()) {
    root.fail("must be an object {name, params, config?} or a list of params, got " + jsonRepr(json));
  }
  const std::size_t count = params.json().size();
  model.params.reserve(count);
  for (std::size_t i = 0; i < count; ++i) model.params.push_back(paramFromJson(params, i, defaultDtype));
  validateModel(model);
  return model;
}

Json modelToJson(const Model& model) {
  Json j = Json::object();
  j["name"] = model.name;
  Json params = Json::array();
  for (const auto& p : model.params) {
    Json param{{"path", p.path}, {"shape", p.shape}, {"dtype", p.dtype}};
    if (!p.logical_axes.empty()) param["logical_axes"] = logicalAxesJson(p.logical_axes);
    params.push_back(std::move(param));
  }
  j["params"] = std::move(params);
  if (model.config) j["config"] = configToJson(*model.config);
  return j;
}

} // namespace shardscope
