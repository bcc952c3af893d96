// SPDX-License-Identifier: Apache-2.0
// Pipeline schedules as NVIDIA jaxpp builds them (src/jaxpp/schedules.py), its preprocessing of a
// schedule before execution, and its greedy list scheduler (jaxpp.core.reorder_nodes_with_schedule)
// that turns the per-rank task orders into a timeline. Behaviour, outputs and error texts follow
// jaxpp; the request/result forms are those of ../shared/golden/jaxpp-schedules-public.json.
//
// Three steps, each usable alone:
//   pipelineTasks      raw per-rank rows exactly as `Schedule.tasks(M)` returns them (slot grids
//                      keep their gaps, ordered lists have none);
//   preprocessSchedule gaps stripped, each stage-0 BWD_I + BWD_W pair merged into one BWD_I;
//   simulateTimeline   the list scheduler over the linear-pipeline dependency graph.
// Times are doubles so measured per-stage latencies (seconds) can replace jaxpp's unit costs.
#pragma once

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

// jaxpp.types.TaskType; the values are jaxpp's.
enum class TaskType : std::uint8_t { Fwd = 1, Bwd = 2, BwdI = 3, BwdW = 4 };

// jaxpp's member names.
inline constexpr std::array<std::pair<std::string_view, TaskType>, 4> kTaskTypeNames{{
    {"FWD", TaskType::Fwd},
    {"BWD", TaskType::Bwd},
    {"BWD_I", TaskType::BwdI},
    {"BWD_W", TaskType::BwdW},
}};
std::string_view taskTypeName(TaskType type);
std::optional<TaskType> parseTaskType(std::string_view name);
// jaxpp's TaskType.default_latency: FWD 1, BWD 2, BWD_I 1, BWD_W 1.
double defaultTaskLatency(TaskType type);

struct PipelineTask {
  TaskType type = TaskType::Fwd;
  int microbatch = 0;
  int stage = 0;
  double latency = 1.0;
  // Set by preprocessSchedule on a stage-0 BWD_I that absorbed the BWD_W right after it, so a
  // latency model can charge both halves.
  bool merged_bwd_w = false;
};

// jaxpp compares tasks without their latency.
bool sameTask(const PipelineTask& a, const PipelineTask& b);

// One position of a rank's row: a gap (jaxpp's None in slot grids), one task, or a fused group
// whose members run back to back as one unit (jaxpp's FusedTask).
struct ScheduleEntry {
  enum class Kind : std::uint8_t { Gap, Single, Fused };
  Kind kind = Kind::Gap;
  std::vector<PipelineTask> members; // empty for a gap, one for Single, any number for Fused

  static ScheduleEntry gap() { return {}; }
  static ScheduleEntry single(const PipelineTask& task) { return {Kind::Single, {task}}; }
  static ScheduleEntry fused(std::vector<PipelineTask> tasks) { return {Kind::Fused, std::move(tasks)}; }
  bool isGap() const { return kind == Kind::Gap; }
  // The sum of the members' latencies (FusedTask.latency).
  double latency() const;
};

// One row per pipeline rank (jaxpp's mpmd index).
using ScheduleRows = std::vector<std::vector<ScheduleEntry>>;

enum class PipelineScheduleKind {
  GPipe,
  Std1F1B,
  Eager1F1B,
  ZeroBubble,
  Interleaved1F1B,
  KimiK2,
  DualPipeV,
  InterleavedGPipe
};

// The jaxpp class name ("GPipe", "Std1F1B", ...) and back.
std::string_view pipelineScheduleKindName(PipelineScheduleKind kind);
std::optional<PipelineScheduleKind> parsePipelineScheduleKind(std::string_view name);
const std::vector<PipelineScheduleKind>& allPipelineScheduleKinds();

// Interleaved1F1B, KimiK2, DualPipeV and InterleavedGPipe take an mpmd_dim (number of ranks).
bool takesMpmdDim(PipelineScheduleKind kind);
// Interleaved1F1B and KimiK2 take fuse_steady_state.
bool takesFuseSteadyState(PipelineScheduleKind kind);
// ZeroBubble and DualPipeV split the backward into BWD_I and BWD_W (jaxpp's is_partial_bwd).
bool isPartialBwd(PipelineScheduleKind kind);
// False for InterleavedGPipe: jaxpp does not export it and its backward half is broken (it
// repeats B(stage, 0)); it is reproduced as jaxpp computes it.
bool isExportedByJaxpp(PipelineScheduleKind kind);

// Bounds of the engine (not jaxpp's): above them a ValueError names the field.
inline constexpr std::int64_t kMaxPipelineStages = 1024;
inline constexpr std::int64_t kMaxPipelineMicrobatches = 65536;
// Raw schedule positions (gaps included) and dependency-graph nodes, each.
inline constexpr std::int64_t kMaxPipelineTasks = std::int64_t{1} << 19;

// What jaxpp's schedule constructor receives.
struct PipelineScheduleSpec {
  PipelineScheduleKind kind = PipelineScheduleKind::Std1F1B;
  std::int64_t num_stages = 1;
  std::optional<std::int64_t> mpmd_dim; // required by takesMpmdDim kinds, ignored by the others
  bool fuse_steady_state = false;       // Interleaved1F1B and KimiK2 only
};

// The checks of jaxpp's constructors (ValueError texts as Python prints them). A missing mpmd_dim
// is a ValueError (a TypeError in Python). The engine's bounds are checked by pipelineTasks and
// simulateTimeline, after jaxpp's own checks.
void validatePipelineSchedule(const PipelineScheduleSpec& spec);
// Rows of the schedule: mpmd_dim for the kinds that take it, num_stages otherwise.
int pipelineRankCount(const PipelineScheduleSpec& spec);
// jaxpp's get_mpmd_idx: identity, round robin (stage % D), or the V of DualPipeV (rank r holds
// stages r and 2D-1-r).
int stageToRank(const PipelineScheduleSpec& spec, int stage);
std::vector<int> stageToRankTable(const PipelineScheduleSpec& spec);

// `Cls(...).tasks(num_microbatches)`: validation (constructor, then the microbatch checks of
// tasks(): ZeroBubble's AssertionError, Interleaved's and DualPipeV's ValueErrors), then the
// engine's bounds, then the rows. Every task carries defaultTaskLatency.
ScheduleRows pipelineTasks(const PipelineScheduleSpec& spec, std::int64_t num_microbatches);
ScheduleRows pipelineTasks(PipelineScheduleKind kind, std::int64_t num_stages, std::int64_t num_microbatches,
                           std::optional<std::int64_t> mpmd_dim = std::nullopt, bool fuse_steady_state = false);

// jaxpp's preprocess_schedule_tasks(rows, first_stage_id, unpack_fused_tasks=False): gaps
// stripped; a BWD_I of `first_stage` must be followed directly by a BWD_W of that stage (inside
// fused groups too) and the pair becomes one BWD_I with the summed latency (NotImplementedError
// otherwise). A fused group left with one task becomes that task. The rvalue form works in place.
ScheduleRows preprocessSchedule(const ScheduleRows& raw, int first_stage = 0);
ScheduleRows preprocessSchedule(ScheduleRows&& raw, int first_stage = 0);

// Latency of one task of a stage; a merged stage-0 BWD_I is charged latency(BWD_I) + latency(BWD_W).
using TaskLatencyFn = std::function<double(TaskType type, int stage)>;

// One scheduled unit (a task or a fused group). Its members live in PipelineTimeline::tasks.
struct TimelineEvent {
  int rank = 0; // stageToRank of the first member's stage, as jaxpp reports it
  double start = 0;
  double end = 0;
  std::uint32_t first_task = 0; // members: tasks[first_task, first_task + task_count)
  std::uint32_t task_count = 0;
};

struct PipelineTimeline {
  std::vector<TimelineEvent> events; // sorted stably by (start, end)
  std::vector<PipelineTask> tasks;   // the members of all events, in scheduling order
  double makespan = 0;               // the largest end, 0 without events

  std::span<const PipelineTask> members(const TimelineEvent& event) const {
    return std::span<const PipelineTask>(tasks).subspan(event.first_task, event.task_count);
  }
};

// jaxpp's reorder_nodes_with_schedule over the graph of a linear pipeline, per microbatch m:
// FWD(s,m) <- FWD(s-1,m); BWD|BWD_I(s,m) <- FWD(s,m), BWD|BWD_I(s+1,m); BWD_W(s,m) <- BWD_I(s,m);
// a partial-backward schedule has no BWD_W node for stage 0. Greedy: every rank whose next unit is
// ready proposes start = max(rank time, members' ready times); the smallest start wins, ties go to
// the lower rank. A node's ready time is the running end at the member that completed its last
// dependency (jaxpp's FIXME: not the end of the whole fused group), and members of one fused
// group satisfy each other. Errors are jaxpp's: AssertionError on a deadlock or leftover tasks,
// KeyError on an unknown or repeated task. Without `latency` each task's own latency is used.
PipelineTimeline simulateTimeline(const PipelineScheduleSpec& spec, std::int64_t num_microbatches,
                                  const ScheduleRows& preprocessed, const TaskLatencyFn& latency = {});

// The tasks `task` waits for in the linear-pipeline graph simulateTimeline runs (same microbatch):
// FWD(s) <- FWD(s-1); BWD|BWD_I(s) <- FWD(s), BWD|BWD_I(s+1); BWD_W(s) <- BWD_I(s). `partial_bwd`
// is isPartialBwd of the schedule (its backward type is BWD_I, else BWD). Latencies are left at 0.
std::vector<PipelineTask> taskDependencies(const PipelineTask& task, std::int64_t num_stages, bool partial_bwd);

struct PipelineMetrics {
  double makespan = 0;
  std::vector<double> busy;   // per rank: summed duration of its events
  std::vector<double> bubble; // per rank: 1 - busy / makespan (0 when the makespan is 0)
  double bubble_overall = 0;  // the mean of the per-rank fractions
  // Per rank: the most (stage, microbatch) pairs held at once, a pair being held from the end of
  // its FWD to the end of its last backward piece (BWD, or BWD_W / merged stage-0 BWD_I).
  std::vector<int> peak_in_flight;
};

PipelineMetrics pipelineMetrics(const PipelineTimeline& timeline, int rank_count);

// Python reprs used in jaxpp's messages: Task(stage_id=0, mubatch_idx=1, fwd_or_bwd=TaskType.FWD,
// latency=1), a fused group as a tuple, and str(task) such as fwd_0__1.
std::string pythonTaskRepr(const PipelineTask& task);
std::string pythonEntryRepr(const ScheduleEntry& entry);
std::string jaxppTaskName(const PipelineTask& task);

} // namespace shardscope
