// SPDX-License-Identifier: Apache-2.0
// Eval op for jaxpp's pipeline schedules, in the request and result forms of
// ../shared/golden/jaxpp-schedules-public.json (its `meta.ops.pipeline_schedule`).
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/base/errors.hpp"

#include <cmath>

namespace shardscope::eval {

namespace {

// Times and latencies are integers in jaxpp; print them as such when they are.
Json number(double v) {
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.0e15) return static_cast<std::int64_t>(v);
  return v;
}

Json taskJson(const PipelineTask& t, bool withLatency) {
  Json out = Json::array({std::string(taskTypeName(t.type)), t.microbatch, t.stage});
  if (withLatency) out.push_back(number(t.latency));
  return out;
}

// null | [type, mubatch_idx, stage_id(, latency)] | {"fused": [...]}
Json entryJson(const ScheduleEntry& e, bool withLatency) {
  if (e.isGap()) return nullptr;
  if (e.kind == ScheduleEntry::Kind::Single) return taskJson(e.members.front(), withLatency);
  Json members = Json::array();
  for (const auto& t : e.members) members.push_back(taskJson(t, withLatency));
  Json out;
  out["fused"] = std::move(members);
  return out;
}

Json rowsJson(const ScheduleRows& rows, bool withLatency) {
  Json out = Json::array();
  for (const auto& row : rows) {
    Json r = Json::array();
    for (const auto& e : row) r.push_back(entryJson(e, withLatency));
    out.push_back(std::move(r));
  }
  return out;
}

Json errorJson(const Error& e) {
  Json out;
  out["type"] = std::string(errorKindName(e.kind()));
  out["message"] = e.what();
  return out;
}

std::string knownSchedules() {
  std::string out;
  for (auto k : allPipelineScheduleKinds()) out += (out.empty() ? "" : ", ") + std::string(pipelineScheduleKindName(k));
  return out;
}

Json metricsJson(const PipelineMetrics& m) {
  Json busy = Json::array(), bubble = Json::array();
  for (double b : m.busy) busy.push_back(number(b));
  for (double b : m.bubble) bubble.push_back(b);
  Json out;
  out["makespan"] = number(m.makespan);
  out["busy"] = std::move(busy);
  out["bubble"] = std::move(bubble);
  out["bubble_overall"] = m.bubble_overall;
  out["peak_in_flight"] = m.peak_in_flight;
  return out;
}

} // namespace

Json opPipelineSchedule(const Json& request, EvalContext& context) {
  warnUnknownFields(request,
                    {"op", "schedule", "num_stages", "num_microbatches", "mpmd_dim", "fuse_steady_state", "metrics"},
                    "pipeline_schedule", context.warnings);
  const std::string name = stringField(request, "schedule");
  const auto kind = parsePipelineScheduleKind(name);
  if (!kind) throwValueError("field 'schedule' must be one of " + knownSchedules() + ", got '" + name + "'");

  PipelineScheduleSpec spec;
  spec.kind = *kind;
  spec.num_stages = intField(request, "num_stages");
  const std::int64_t microbatches = intField(request, "num_microbatches");
  // jaxpp's constructors would answer a TypeError for a missing or unexpected argument.
  const auto mpmdDim = optionalInt(request, "mpmd_dim");
  if (takesMpmdDim(spec.kind)) {
    if (!mpmdDim) throwValueError("field 'mpmd_dim' is required for " + name + " (an integer)");
    spec.mpmd_dim = mpmdDim;
  } else if (mpmdDim) {
    throwValueError("field 'mpmd_dim' must be null for " + name + ", which takes no mpmd_dim");
  }
  spec.fuse_steady_state = boolField(request, "fuse_steady_state", false);
  if (spec.fuse_steady_state && !takesFuseSteadyState(spec.kind))
    throwValueError("field 'fuse_steady_state' applies only to Interleaved1F1B and KimiK2, not " + name);
  // Not in the golden protocol: adds bubble fractions and peak in-flight microbatches.
  const bool withMetrics = boolField(request, "metrics", false);

  if (!isExportedByJaxpp(spec.kind))
    context.warnings.push_back(
        "InterleavedGPipe is not exported by jaxpp.api and is broken there: its backward half advances the forward "
        "counter, so every backward slot of a rank repeats B(stage, 0). The rows are reproduced as jaxpp builds them; "
        "expect its timeline to fail.");

  ScheduleRows raw = pipelineTasks(spec, microbatches);
  Json result;
  result["is_partial_bwd"] = isPartialBwd(spec.kind);
  result["stage_to_rank"] = stageToRankTable(spec);
  result["tasks"] = rowsJson(raw, false);

  ScheduleRows preprocessed;
  try {
    preprocessed = preprocessSchedule(std::move(raw), 0);
  } catch (const Error& e) {
    result["preprocessed_error"] = errorJson(e);
    return result;
  }
  result["preprocessed"] = rowsJson(preprocessed, true);

  PipelineTimeline timeline;
  try {
    timeline = simulateTimeline(spec, microbatches, preprocessed);
  } catch (const Error& e) {
    result["timeline_error"] = errorJson(e);
    return result;
  }
  Json events = Json::array();
  for (const auto& ev : timeline.events) {
    Json members = Json::array();
    for (const auto& t : timeline.members(ev)) members.push_back(taskJson(t, false));
    events.push_back(Json::array({ev.rank, number(ev.start), number(ev.end), std::move(members)}));
  }
  Json tl;
  tl["makespan"] = number(timeline.makespan);
  tl["events"] = std::move(events);
  result["timeline"] = std::move(tl);
  if (withMetrics) result["metrics"] = metricsJson(pipelineMetrics(timeline, pipelineRankCount(spec)));
  return result;
}

} // namespace shardscope::eval
