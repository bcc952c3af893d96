// SPDX-License-Identifier: Apache-2.0
// Reading and writing the step-time fields of a workspace (docs/workspace.md): gradient
// accumulation, Megatron sequence parallelism, and the calibration in `performance`.
#include "scenario_step.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <sstream>
#include <string_view>

namespace shardscope {

namespace {

const Json* field(const Json& object, const char* key) {
  if (!object.is_object()) return nullptr;
  auto it = object.find(key);
  return it == object.end() || it->is_null() ? nullptr : &*it;
}

// A value in (0, 1]: fractions, and the per-hop latency in seconds.
std::optional<double> unitInterval(const Json& object, const char* key, const char* unit) {
  const Json* v = field(object, key);
  if (!v) return std::nullopt;
  const double x = v->is_number() ? v->get<double>() : std::nan("");
  if (!(x > 0) || !(x <= 1)) {
    std::ostringstream text;
    text << "performance." << key << " must be a number in (0, 1]" << unit << ", got " << dumpJson(*v);
    throwValueError(text.str());
  }
  return x;
}

} // namespace

void readStepFields(const Json& j, Scenario& s) {
  if (const Json* t = field(j, "training")) {
    if (const Json* m = field(*t, "microbatches")) {
      constexpr std::int64_t kMax = std::int64_t{1} << 40;
      if (!m->is_number_integer() || m->get<std::int64_t>() < 1 || m->get<std::int64_t>() > kMax)
        throwValueError("training.microbatches must be an integer between 1 and " + std::to_string(kMax));
      s.training.microbatches = m->get<std::int64_t>();
    }
    if (const Json* sp = field(*t, "sequence_parallel")) {
      if (!sp->is_boolean()) throwValueError("training.sequence_parallel must be true or false");
      s.training.sequence_parallel = sp->get<bool>();
    }
  }
  const Json* p = field(j, "performance");
  if (!p) return;
  if (!p->is_object()) throwValueError("scenario.performance must be an object");
  static constexpr std::array<std::string_view, 5> kKnown{"flops_fraction", "link_fraction", "hbm_fraction",
                                                          "hop_latency", "overlap_tensor_comm"};
  for (const auto& [key, value] : p->items())
    if (std::find(kKnown.begin(), kKnown.end(), key) == kKnown.end())
      throwValueError("performance." + key +
                      " is not a performance setting (flops_fraction, link_fraction, hbm_fraction, hop_latency, "
                      "overlap_tensor_comm)");
  PerformanceOptions& o = s.performance;
  o.flops_fraction = unitInterval(*p, "flops_fraction", "");
  o.link_fraction = unitInterval(*p, "link_fraction", "");
  o.hbm_fraction = unitInterval(*p, "hbm_fraction", "");
  o.hop_latency = unitInterval(*p, "hop_latency", " seconds");
  if (const Json* overlap = field(*p, "overlap_tensor_comm")) {
    if (!overlap->is_boolean()) throwValueError("performance.overlap_tensor_comm must be true or false");
    o.overlap_tensor_comm = overlap->get<bool>();
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
  if (o.hop_latency) p["hop_latency"] = *o.hop_latency;
  if (o.overlap_tensor_comm) p["overlap_tensor_comm"] = true;
  if (!p.empty()) j["performance"] = p;
}

} // namespace shardscope
