// SPDX-License-Identifier: Apache-2.0
// The workspace's `pipeline` section (docs/workspace.md, "pipeline"): field by field, each error
// naming the field and the reason.
#include "scenario_pipeline.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope::analysis {

namespace {

// Far above any model's depth, low enough that a stage list cannot overflow its sum.
constexpr std::int64_t kMaxLayersPerStage = std::int64_t{1} << 20;

std::vector<std::string_view> scheduleNames() {
  std::vector<std::string_view> names;
  for (const auto kind : allPipelineScheduleKinds())
    if (isExportedByJaxpp(kind)) names.push_back(pipelineScheduleKindName(kind));
  return names;
}

} // namespace

PipelineConfig readPipelineSection(const JsonField& p) {
  p.toObject("an object (axis, schedule, num_stages, microbatches, ...)");
  p.checkKeys({"axis", "schedule", "num_stages", "microbatches", "layers_per_stage", "fuse_steady_state"});
  PipelineConfig c;
  if (const JsonField axis = p["axis"]; axis.present()) c.axis = axis.toNonEmptyString();
  if (const JsonField schedule = p["schedule"]; schedule.present()) {
    // The schedules jaxpp does not export (their backward half is broken) are named apart.
    if (schedule.json().is_string())
      if (const auto kind = parsePipelineScheduleKind(schedule.json().get<std::string>());
          kind && !isExportedByJaxpp(*kind))
        schedule.fail("is " + std::string(pipelineScheduleKindName(*kind)) +
                      ", which jaxpp does not export (its backward half is broken)");
    const auto names = scheduleNames();
    c.schedule = *parsePipelineScheduleKind(std::string(names[schedule.toChoice(names)]));
  }
  c.num_stages = p["num_stages"].optionalInt({1, kMaxPipelineStages});
  c.microbatches = p["microbatches"].optionalInt({1, kMaxPipelineMicrobatches});
  if (const JsonField layers = p["layers_per_stage"]; layers.present()) {
    const Json& list = layers.toArray("a list of layer counts, one per stage");
    if (static_cast<std::int64_t>(list.size()) > kMaxPipelineStages)
      layers.fail("has " + std::to_string(list.size()) + " entries; at most " + std::to_string(kMaxPipelineStages) +
                  " stages are supported");
    c.layers_per_stage = layers.toInts({0, kMaxLayersPerStage});
  }
  c.fuse_steady_state = p["fuse_steady_state"].boolOr(false);
  if (c.fuse_steady_state && !takesFuseSteadyState(c.schedule))
    p["fuse_steady_state"].fail("applies only to Interleaved1F1B and KimiK2, not " +
                                std::string(pipelineScheduleKindName(c.schedule)));
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
