// SPDX-License-Identifier: Apache-2.0
// Reading and writing the step-time fields of a workspace (docs/workspace.md): gradient
// accumulation, Megatron sequence parallelism, and the calibration in `performance`.
#include "scenario_step.hpp"

#include "shardscope/base/json_fields.hpp"
#include "shardscope/step/step_time.hpp"

namespace shardscope {

void readStepFields(const JsonField& ws, Scenario& s) {
  if (const JsonField t = ws["training"]; t.present()) {
    s.training.microbatches = t["microbatches"].intOr(s.training.microbatches, {1, std::int64_t{1} << 40});
    s.training.sequence_parallel = t["sequence_parallel"].boolOr(s.training.sequence_parallel);
  }
  const JsonField p = ws["performance"];
  if (!p.present()) return;
  p.checkKeys({"flops_fraction", "link_fraction", "hbm_fraction", "attention_fraction", "hop_latency",
               "overlap_tensor_comm", "context_attention"});
  // The physical ranges of step/step_time.hpp (kFractionRange, kHopLatencyRange).
  const NumberRange fraction{kFractionRange.min, kFractionRange.max, false, false};
  const NumberRange latency{kHopLatencyRange.min, kHopLatencyRange.max, false, false};
  PerformanceOptions& o = s.performance;
  o.flops_fraction = p["flops_fraction"].optionalNumber(fraction);
  o.link_fraction = p["link_fraction"].optionalNumber(fraction);
  o.hbm_fraction = p["hbm_fraction"].optionalNumber(fraction);
  o.attention_fraction = p["attention_fraction"].optionalNumber(fraction);
  o.hop_latency = p["hop_latency"].optionalNumber(latency);
  if (p["overlap_tensor_comm"].present()) o.overlap_tensor_comm = p["overlap_tensor_comm"].boolOr(false);
  if (const JsonField c = p["context_attention"]; c.present()) {
    std::vector<std::string_view> names;
    for (const auto& [name, value] : kContextAttentionNames) names.push_back(name);
    o.context_attention = kContextAttentionNames[c.toChoice(names)].second;
  }
}

void writeStepFields(const Scenario& s, Json& j) {
  j["training"]["microbatches"] = s.training.microbatches;
  j["training"]["sequence_parallel"] = s.training.sequence_parallel;
  const PerformanceOptions& o = s.performance;
  Json p = Json::object();
  if (o.flops_fraction) p["flops_fraction"] = *o.flops_fraction;
  if (o.link_fraction) p["link_fraction"] = *o.link_fraction;
  if (o.hbm_fraction) p["hbm_fraction"] = *o.hbm_fraction;
  if (o.attention_fraction) p["attention_fraction"] = *o.attention_fraction;
  if (o.hop_latency) p["hop_latency"] = *o.hop_latency;
  if (o.overlap_tensor_comm) p["overlap_tensor_comm"] = *o.overlap_tensor_comm;
  if (o.context_attention) p["context_attention"] = std::string(contextAttentionName(*o.context_attention));
  if (!p.empty()) j["performance"] = p;
}

} // namespace shardscope
