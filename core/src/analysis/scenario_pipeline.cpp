// SPDX-License-Identifier: Apache-2.0
// The workspace's `pipeline` section (docs/workspace.md, "pipeline"): field by field, each error
// naming the field and the reason.
#include "scenario_pipeline.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <iterator>

namespace shardscope::analysis {

namespace {

constexpr const char* kKnownKeys[] = {"axis",         "schedule",         "num_stages",
                                      "microbatches", "layers_per_stage", "fuse_steady_state"};
// Far above any model's depth, low enough that a stage list cannot overflow its sum.
constexpr std::int64_t kMaxLayersPerStage = std::int64_t{1} << 20;

const Json* field(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::optional<std::int64_t> readCount(const Json& obj, const char* key, std::int64_t hi) {
  const Json* v = field(obj, key);
  if (!v) return std::nullopt;
  if (!v->is_number_integer())
    throwValueError(std::string("pipeline.") + key + " must be an integer between 1 and " + std::to_string(hi));
  const auto x = v->get<std::int64_t>();
  if (x < 1 || x > hi)
    throwValueError(std::string("pipeline.") + key + " must be between 1 and " + std::to_string(hi) + ", got " +
                    std::to_string(x));
  return x;
}

std::string scheduleNames() {
  std::string names;
  for (const auto kind : allPipelineScheduleKinds())
    if (isExportedByJaxpp(kind)) names += (names.empty() ? "" : ", ") + std::string(pipelineScheduleKindName(kind));
  return names;
}

} // namespace

PipelineConfig readPipelineSection(const Json& p) {
  if (!p.is_object()) throwValueError("pipeline must be an object (axis, schedule, num_stages, microbatches, ...)");
  for (const auto& [key, value] : p.items())
    if (std::find_if(std::begin(kKnownKeys), std::end(kKnownKeys), [&](const char* k) { return key == k; }) ==
        std::end(kKnownKeys))
      throwValueError("pipeline." + key +
                      " is not a pipeline setting (axis, schedule, num_stages, microbatches, layers_per_stage, "
                      "fuse_steady_state)");
  PipelineConfig c;
  if (const Json* axis = field(p, "axis")) {
    if (!axis->is_string() || axis->get<std::string>().empty())
      throwValueError("pipeline.axis must be the name of a mesh axis");
    c.axis = axis->get<std::string>();
  }
  if (const Json* schedule = field(p, "schedule")) {
    const auto kind = schedule->is_string() ? parsePipelineScheduleKind(schedule->get<std::string>()) : std::nullopt;
    if (!kind) throwValueError("pipeline.schedule must be one of " + scheduleNames());
    if (!isExportedByJaxpp(*kind))
      throwValueError("pipeline.schedule " + std::string(pipelineScheduleKindName(*kind)) +
                      " is not exported by jaxpp and its backward half is broken; use one of " + scheduleNames());
    c.schedule = *kind;
  }
  c.num_stages = readCount(p, "num_stages", kMaxPipelineStages);
  c.microbatches = readCount(p, "microbatches", kMaxPipelineMicrobatches);
  if (const Json* layers = field(p, "layers_per_stage")) {
    const std::string what = "pipeline.layers_per_stage must be a list of layer counts, one per stage";
    if (!layers->is_array()) throwValueError(what);
    if (static_cast<std::int64_t>(layers->size()) > kMaxPipelineStages)
      throwValueError("pipeline.layers_per_stage has " + std::to_string(layers->size()) + " entries; at most " +
                      std::to_string(kMaxPipelineStages) + " stages are supported");
    for (std::size_t i = 0; i < layers->size(); ++i) {
      const Json& n = (*layers)[i];
      if (!n.is_number_integer() || n.get<std::int64_t>() < 0 || n.get<std::int64_t>() > kMaxLayersPerStage)
        throwValueError("pipeline.layers_per_stage[" + std::to_string(i) + "] must be an integer between 0 and " +
                        std::to_string(kMaxLayersPerStage));
      c.layers_per_stage.push_back(n.get<std::int64_t>());
    }
  }
  if (const Json* fuse = field(p, "fuse_steady_state")) {
    if (!fuse->is_boolean()) throwValueError("pipeline.fuse_steady_state must be true or false");
    c.fuse_steady_state = fuse->get<bool>();
  }
  return c;
}

Json pipelineSectionToJson(const PipelineConfig& c) {
  Json j;
  j["axis"] = c.axis;
  j["schedule"] = std::string(pipelineScheduleKindName(c.schedule));
  if (c.num_stages) j["num_stages"] = *c.num_stages;
  if (c.microbatches) j["microbatches"] = *c.microbatches;
  if (!c.layers_per_stage.empty()) j["layers_per_stage"] = c.layers_per_stage;
  if (c.fuse_steady_state) j["fuse_steady_state"] = true;
  return j;
}

} // namespace shardscope::analysis
