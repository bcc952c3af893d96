// SPDX-License-Identifier: Apache-2.0
// Eval ops of the model loaders and the per-device memory engine (docs/formats.md). Neither has a
// reference function to mirror, so the request fields use the names of the C++ options.
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <utility>

namespace shardscope::eval {

namespace {

// The model of a request: exactly one of "preset", "hf_config" or "model" (our JSON form).
Model requestModel(const Json& request) {
  const bool preset = request.contains("preset"), hf = request.contains("hf_config"), ours = request.contains("model");
  if (int(preset) + int(hf) + int(ours) != 1) throwValueError("give exactly one of 'preset', 'hf_config' or 'model'");
  if (preset) return loadPresetModel(stringField(request, "preset"));
  if (hf) {
    auto name = request.contains("name") ? stringField(request, "name") : std::string("model");
    return modelFromHfConfig(request["hf_config"], name);
  }
  return modelFromJson(request["model"]);
}

double numberField(const Json& object, const char* name, double fallback, const std::string& where) {
  auto it = object.find(name);
  if (it == object.end() || it->is_null()) return fallback;
  if (!it->is_number()) throwValueError("'" + where + name + "' must be a number, got " + it->type_name());
  const double v = it->get<double>();
  if (!(v >= 0) || v > 1e30) throwValueError("'" + where + name + "' must be a non-negative number, got " + it->dump());
  return v;
}

std::optional<double> optionalNumber(const Json& object, const char* name, const std::string& where) {
  if (!present(object, name)) return std::nullopt;
  return numberField(object, name, 0, where);
}

std::int64_t intOr(const Json& request, const char* name, std::int64_t fallback) {
  return present(request, name) ? intField(request, name) : fallback;
}

template <class E, std::size_t N>
E enumField(const Json& request, const char* name, E fallback, const std::pair<const char*, E> (&table)[N]) {
  if (!present(request, name)) return fallback;
  const std::string value = stringField(request, name);
  std::string known;
  for (const auto& [text, e] : table) {
    if (value == text) return e;
    known += (known.empty() ? "" : ", ") + std::string(text);
  }
  throwValueError("field '" + std::string(name) + "' must be one of " + known + ", got '" + value + "'");
}

constexpr std::pair<const char*, Workload> kWorkloads[] = {{"training", Workload::Training},
                                                           {"serving", Workload::Serving}};
constexpr std::pair<const char*, Optimizer> kOptimizers[] = {
    {"adamw", Optimizer::AdamW}, {"adafactor", Optimizer::Adafactor}, {"sgd-momentum", Optimizer::SgdMomentum}};
constexpr std::pair<const char*, Recompute> kRecompute[] = {
    {"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}};

} // namespace

Json opModelParams(const Json& request, EvalContext& context) {
  const Model model = requestModel(request);
  for (const auto& note : model.notes) context.warnings.push_back(note);
  Json out = Json::object();
  out["name"] = model.name;
  out["param_count"] = model.parameterCount();
  out["param_bytes"] = model.parameterBytes();
  out["config"] = model.config ? modelToJson(Model{"", {}, model.config, {}})["config"] : Json(nullptr);
  if (boolField(request, "include_params", true)) out["params"] = modelToJson(model)["params"];
  return out;
}

Json opMemoryEstimate(const Json& request, EvalContext& context) {
  const Model model = requestModel(request);
  std::vector<DeviceParamShards> devices;
  if (request.contains("devices")) {
    const Json& list = request["devices"];
    if (!list.is_array()) throwValueError("field 'devices' must be a list of {param_elements, param_bytes, ...}");
    devices.reserve(list.size());
    for (std::size_t i = 0; i < list.size(); ++i) {
      const std::string at = "devices[" + std::to_string(i) + "].";
      if (!list[i].is_object()) throwValueError("'" + at.substr(0, at.size() - 1) + "' must be an object");
      DeviceParamShards d;
      d.param_elements = numberField(list[i], "param_elements", 0, at);
      d.param_bytes = numberField(list[i], "param_bytes", 0, at);
      d.grad_elements = optionalNumber(list[i], "grad_elements", at);
      d.optimizer_elements = optionalNumber(list[i], "optimizer_elements", at);
      d.adafactor_elements = optionalNumber(list[i], "adafactor_elements", at);
      devices.push_back(d);
    }
  } else {
    // Convenience: the whole model replicated on `device_count` devices, in `param_dtype`.
    const std::int64_t count = intOr(request, "device_count", 1);
    if (count < 1 || count > 1'000'000)
      throwValueError("field 'device_count' must be between 1 and 1000000, got " + std::to_string(count));
    std::optional<double> bpe;
    if (request.contains("param_dtype")) {
      const auto dtype = stringField(request, "param_dtype");
      bpe = dtypeBytes(dtype);
      if (!bpe) throwValueError("field 'param_dtype': unknown dtype '" + dtype + "'");
    }
    devices.assign(static_cast<std::size_t>(count), wholeModelShards(model, bpe));
  }
  MemoryOptions o;
  o.workload = enumField(request, "workload", o.workload, kWorkloads);
  o.optimizer = enumField(request, "optimizer", o.optimizer, kOptimizers);
  o.recompute = enumField(request, "recompute", o.recompute, kRecompute);
  o.master_weights_fp32 = boolField(request, "master_weights_fp32", false);
  o.grad_bytes_per_element = numberField(request, "grad_bytes_per_element", 0, "");
  o.micro_batch = intOr(request, "micro_batch", o.micro_batch);
  o.seq_len = intOr(request, "seq_len", o.seq_len);
  o.batch_degree = intOr(request, "batch_degree", 1);
  o.seq_degree = intOr(request, "seq_degree", 1);
  o.tensor_degree = intOr(request, "tensor_degree", 1);
  o.sequence_parallel = boolField(request, "sequence_parallel", false);
  o.include_output_layer = boolField(request, "include_output_layer", true);
  o.serve_batch = intOr(request, "serve_batch", o.serve_batch);
  o.context_len = intOr(request, "context_len", o.context_len);
  if (request.contains("kv_dtype")) {
    const auto dtype = stringField(request, "kv_dtype");
    const auto bytes = dtypeBytes(dtype);
    if (!bytes) throwValueError("field 'kv_dtype': unknown dtype '" + dtype + "'");
    o.kv_bytes_per_element = *bytes;
  }
  o.device_kind = request.contains("device_kind") ? stringField(request, "device_kind") : std::string();
  if (auto hbm = optionalNumber(request, "hbm_bytes", "")) o.hbm_bytes_override = *hbm;
  const MemoryEstimate e = estimateMemory(devices, model, o);
  for (const auto& note : e.notes) context.warnings.push_back(note);

  Json perDevice = Json::array();
  for (const auto& d : e.per_device)
    perDevice.push_back({{"params", d.params},
                         {"grads", d.grads},
                         {"master_weights", d.master_weights},
                         {"optimizer", d.optimizer},
                         {"activations", d.activations},
                         {"kv_cache", d.kv_cache},
                         {"total", d.total()}});
  Json out = Json::object();
  out["per_device"] = std::move(perDevice);
  out["max_bytes"] = e.max_bytes;
  out["mean_bytes"] = e.mean_bytes;
  out["argmax"] = e.argmax;
  out["hbm_bytes"] = e.hbm_bytes;
  out["out_of_memory"] = e.out_of_memory;
  out["activations"] = {{"per_layer", e.activations.per_layer},
                        {"layers", e.activations.layers},
                        {"output_layer", e.activations.output_layer},
                        {"total", e.activations.total()}};
  out["kv_cache_per_device"] = e.kv_cache_per_device;
  return out;
}

} // namespace shardscope::eval
