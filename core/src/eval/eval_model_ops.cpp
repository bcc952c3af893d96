// SPDX-License-Identifier: Apache-2.0
// Eval ops of the model loaders and the per-device memory engine (docs/formats.md). Neither has a
// reference function to mirror, so the request fields use the names of the C++ options.
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <array>
#include <limits>
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

constexpr NumberRange kAmount{0, 1e30}; // element and byte counts

// Batch, sequence and degree counts: at most 2^40 (the workspace's bound), so that sums and
// products of them stay far from int64's end (2^63 - 1 sequences once overflowed into "must not
// be negative").
std::int64_t intOr(const Json& request, const char* name, std::int64_t fallback) {
  return fields(request)[name].intOr(fallback, {std::numeric_limits<std::int64_t>::min(), std::int64_t{1} << 40});
}

template <class E, std::size_t N>
E enumField(const Json& request, const char* name, E fallback, const std::pair<const char*, E> (&table)[N]) {
  const JsonField field = fields(request)[name];
  if (!field.present()) return fallback;
  std::vector<std::string_view> names;
  for (const auto& [text, e] : table) names.emplace_back(text);
  return table[field.toChoice(names)].second;
}

template <class E, std::size_t N>
E enumField(const Json& request, const char* name, E fallback,
            const std::array<std::pair<std::string_view, E>, N>& table) {
  const JsonField field = fields(request)[name];
  if (!field.present()) return fallback;
  std::vector<std::string_view> names;
  for (const auto& [text, e] : table) names.push_back(text);
  return table[field.toChoice(names)].second;
}

constexpr std::pair<const char*, Workload> kWorkloads[] = {{"training", Workload::Training},
                                                           {"serving", Workload::Serving}};
constexpr std::pair<const char*, Optimizer> kOptimizers[] = {
    {"adamw", Optimizer::AdamW}, {"adafactor", Optimizer::Adafactor}, {"sgd-momentum", Optimizer::SgdMomentum}};

} // namespace

Json opModelParams(const Json& request, EvalContext& context) {
  refuseUnknownFields(request, {"op", "preset", "hf_config", "model", "name", "include_params"}, "model_params");
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
  refuseUnknownFields(request,
                      {"op",
                       "preset",
                       "hf_config",
                       "model",
                       "name",
                       "devices",
                       "device_count",
                       "param_dtype",
                       "workload",
                       "optimizer",
                       "recompute",
                       "master_weights_fp32",
                       "grad_bytes_per_element",
                       "micro_batch",
                       "seq_len",
                       "attention",
                       "batch_degree",
                       "seq_degree",
                       "tensor_degree",
                       "sequence_parallel",
                       "include_output_layer",
                       "framework",
                       "serve_batch",
                       "context_len",
                       "kv_dtype",
                       "device_kind",
                       "hbm_bytes"},
                      "memory_estimate");
  const Model model = requestModel(request);
  std::vector<DeviceParamShards> devices;
  const JsonField r = fields(request);
  if (request.contains("devices")) {
    const JsonField list = r["devices"];
    const Json& entries = list.toArray("a list of {param_elements, param_bytes, ...}");
    devices.reserve(entries.size());
    for (std::size_t i = 0; i < entries.size(); ++i) {
      const JsonField d = list[i];
      d.checkKeys({"param_elements", "param_bytes", "grad_elements", "optimizer_elements", "adafactor_elements"});
      DeviceParamShards shards;
      shards.param_elements = d["param_elements"].numberOr(0, kAmount);
      shards.param_bytes = d["param_bytes"].numberOr(0, kAmount);
      shards.grad_elements = d["grad_elements"].optionalNumber(kAmount);
      shards.optimizer_elements = d["optimizer_elements"].optionalNumber(kAmount);
      shards.adafactor_elements = d["adafactor_elements"].optionalNumber(kAmount);
      devices.push_back(shards);
    }
  } else {
    // Convenience: the whole model replicated on `device_count` devices, in `param_dtype`.
    const std::int64_t count = r["device_count"].intOr(1, {1, 1'000'000});
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
  o.recompute = enumField(request, "recompute", o.recompute, kRecomputeNames);
  o.attention = enumField(request, "attention", o.attention, kAttentionKernelNames);
  o.master_weights_fp32 = boolField(request, "master_weights_fp32", false);
  o.grad_bytes_per_element = r["grad_bytes_per_element"].numberOr(0, kAmount);
  o.micro_batch = intOr(request, "micro_batch", o.micro_batch);
  o.seq_len = intOr(request, "seq_len", o.seq_len);
  o.batch_degree = intOr(request, "batch_degree", 1);
  o.seq_degree = intOr(request, "seq_degree", 1);
  o.tensor_degree = intOr(request, "tensor_degree", 1);
  o.sequence_parallel = boolField(request, "sequence_parallel", false);
  o.include_output_layer = boolField(request, "include_output_layer", true);
  o.framework = enumField(request, "framework", o.framework, kFrameworkNames);
  o.serve_batch = intOr(request, "serve_batch", o.serve_batch);
  o.context_len = intOr(request, "context_len", o.context_len);
  if (request.contains("kv_dtype")) {
    const auto dtype = stringField(request, "kv_dtype");
    const auto bytes = dtypeBytes(dtype);
    if (!bytes) throwValueError("field 'kv_dtype': unknown dtype '" + dtype + "'");
    o.kv_bytes_per_element = *bytes;
  }
  o.device_kind = request.contains("device_kind") ? stringField(request, "device_kind") : std::string();
  if (auto hbm = r["hbm_bytes"].optionalNumber(kAmount)) o.hbm_bytes_override = *hbm;
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
  out["activations"] = activationBreakdownJson(e.activations);
  out["kv_cache_per_device"] = e.kv_cache_per_device;
  return out;
}

} // namespace shardscope::eval
