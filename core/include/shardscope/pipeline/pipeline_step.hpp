// SPDX-License-Identifier: Apache-2.0
// The training step under a jaxpp pipeline (docs/step-time.md, "Pipelines"): the step engine
// prices what one device runs (its rank's share of the layers: StepOptions::pipeline_ranks), each
// stage's forward and backward tasks take its layers' seconds (StepEstimate::layer_pass_s, split as
// jaxpp's unit costs, forward 1 and backward 2) and the last stage adds the output projection and
// the loss, jaxpp's schedule orders the tasks, and the step is the schedule's makespan, the
// optimizer update and the fill and drain hand-overs between ranks. The bubble and the hand-overs
// are segments of the step like compute, HBM and communication; the timeline holds every rank's
// tasks and hand-overs for the player.
#pragma once

#include "shardscope/base/enum_names.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/step/step_time.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

// The activation (forward) or its gradient (backward) handed from one stage to the next across
// two pipeline groups; stages on the same rank hand over in place and are not listed.
struct PipelineTransfer {
  int from_stage = 0, to_stage = 0;
  int from_rank = 0, to_rank = 0;
  double bytes = 0;   // per device, one micro-batch, one direction
  double seconds = 0; // every device of the group sending at once, on the real links
  int max_hops = 0;
  int max_link_load = 0;
  std::string slowest_link; // "ici", "dcn", "nvlink", "network", or "none" (same chip)
  bool crosses_hosts = false, crosses_slices = false;
};

// What a pipeline timeline's times are in: jaxpp's task units (every task costs 1), or seconds
// (each task priced by the step model's per-layer figures). JSON `time_unit`: "task" or "s".
enum class PipelineTimeUnit { Task, Seconds };
constexpr std::array<std::pair<std::string_view, PipelineTimeUnit>, 2> kPipelineTimeUnitNames{{
    {"task", PipelineTimeUnit::Task},
    {"s", PipelineTimeUnit::Seconds},
}};
constexpr std::string_view pipelineTimeUnitName(PipelineTimeUnit u) { return nameOf(u, kPipelineTimeUnitNames); }

// A pipeline as the step prices it: jaxpp's schedule on `ranks` MPMD groups, M micro-batches
// (the micro-batch count), the layers of each stage (empty: the stages are timed alike), and the
// hand-overs between groups priced on the links.
struct PipelineStepPlan {
  PipelineScheduleSpec spec;
  std::int64_t ranks = 1;
  std::int64_t microbatches = 1;
  std::vector<std::int64_t> layers_per_stage;
  std::vector<int> stage_to_rank;
  std::vector<PipelineTransfer> transfers;
  ScheduleRows tasks; // jaxpp's preprocessed rows (made from `spec` and M when empty)
};

// The schedule as it ran: jaxpp's preprocessed rows, the timeline and its figures.
struct PipelineScheduleRun {
  ScheduleRows tasks;
  PipelineTimeline timeline;
  PipelineTimeUnit time_unit = PipelineTimeUnit::Task;
  PipelineMetrics metrics;
};

struct PipelinedStep {
  StepEstimate step;
  PipelineScheduleRun schedule;
};

// The step under the plan's pipeline. `options.microbatches` and `options.pipeline_ranks` are set
// from the plan. Without a step estimate (a model with no architecture), the schedule runs in
// jaxpp's task units and the step says why it is not estimated. Throws as estimateStep, and jaxpp's
// errors for a schedule it refuses.
PipelinedStep estimatePipelinedStep(const StepInputs& inputs, StepOptions options, const PipelineStepPlan& plan);

// The schedule alone, in jaxpp's task units (when no step is estimated: serving, no model).
PipelineScheduleRun runPipelineScheduleInUnits(const PipelineStepPlan& plan);

// Per-stage latencies in jaxpp's units: the task type's unit cost times the stage's layers over one
// rank's even share (layers / ranks), so an even split without interleaving has jaxpp's own unit
// latencies and schedules with more stages compare at the same scale.
TaskLatencyFn pipelineUnitLatency(std::vector<std::int64_t> layers_per_stage, std::int64_t rank_count);

// The step's spans under a scheduled pipeline: every rank's tasks as the schedule runs them, each
// hand-over between ranks from its producer's end, then the fill and drain hand-overs the step
// adds (`criticalHandover`) and the optimizer update.
std::vector<StepSpan> pipelineStepSpans(const PipelineStepPlan& plan, const PipelineTimeline& timeline, double makespan,
                                        double criticalHandover, double optimizerSeconds);

} // namespace shardscope
