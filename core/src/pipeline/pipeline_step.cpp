// SPDX-License-Identifier: Apache-2.0
// The step under a jaxpp pipeline (pipeline_step.hpp): the engine's per-device share of the step,
// each stage's tasks priced from its layers, the schedule, and the step composed from them.
#include "shardscope/pipeline/pipeline_step.hpp"

#include "shardscope/base/units.hpp"
#include "shardscope/step/step_playback.hpp"

#include <algorithm>
#include <map>

namespace shardscope {

TaskLatencyFn pipelineUnitLatency(std::vector<std::int64_t> layers_per_stage, std::int64_t rank_count) {
  std::int64_t total = 0;
  for (auto l : layers_per_stage) total += l;
  // One rank's even share of the layers is one unit; without layers every stage weighs the same.
  const double share = total > 0 && rank_count > 0 ? static_cast<double>(total) / static_cast<double>(rank_count) : 0;
  const double stages = static_cast<double>(std::max<std::size_t>(layers_per_stage.size(), 1));
  return [layers = std::move(layers_per_stage), share, stages, rank_count](TaskType type, int stage) {
    const double unit = defaultTaskLatency(type);
    if (share <= 0) return unit * static_cast<double>(rank_count) / stages;
    if (stage < 0 || static_cast<std::size_t>(stage) >= layers.size()) return unit;
    return unit * static_cast<double>(layers[static_cast<std::size_t>(stage)]) / share;
  };
}

std::vector<StepSpan> pipelineStepSpans(const PipelineStepPlan& plan, const PipelineTimeline& timeline, double makespan,
                                        double criticalHandover, double optimizerSeconds) {
  std::vector<StepSpan> spans;
  // The transfers are listed forward (stage s to s + 1); a gradient goes back over the same links.
  std::map<std::pair<int, int>, const PipelineTransfer*> transfers;
  for (const auto& t : plan.transfers) transfers[{t.from_stage, t.to_stage}] = &t;
  for (const auto& event : timeline.events) {
    const auto members = timeline.members(event);
    if (members.empty()) continue;
    const PipelineTask& first = members.front();
    StepSpan task;
    task.part = StepPart::Compute;
    task.rank = event.rank;
    task.stage = first.stage;
    task.microbatch = first.microbatch;
    task.forward = first.type == TaskType::Fwd;
    task.start = event.start;
    task.end = event.end;
    spans.push_back(task);
    for (const auto& member : members) {
      const bool forward = member.type == TaskType::Fwd;
      if (!forward && member.type != TaskType::Bwd && member.type != TaskType::BwdI) continue; // BWD_W sends nothing
      const int from = forward ? member.stage : member.stage - 1;
      const auto it = transfers.find({from, from + 1});
      if (it == transfers.end()) continue; // the next stage is on the same rank, or there is none
      const PipelineTransfer& t = *it->second;
      StepSpan handover;
      handover.part = StepPart::Handover;
      handover.rank = forward ? t.from_rank : t.to_rank;
      handover.to_rank = forward ? t.to_rank : t.from_rank;
      handover.stage = member.stage;
      handover.microbatch = member.microbatch;
      handover.forward = forward;
      handover.start = event.end;
      handover.end = event.end + t.seconds;
      spans.push_back(handover);
    }
  }
  double t = makespan;
  if (criticalHandover > 0) {
    StepSpan fillAndDrain;
    fillAndDrain.part = StepPart::Handover;
    fillAndDrain.forward = false;
    fillAndDrain.start = t;
    fillAndDrain.end = t + criticalHandover;
    spans.push_back(fillAndDrain);
    t = fillAndDrain.end;
  }
  finishTimeline(spans, t, optimizerSeconds, std::max<std::int64_t>(0, plan.microbatches - 1));
  return spans;
}

namespace {

// Task latencies in seconds: a stage's layers times one layer's forward (1/3 of its pass) or
// backward (2/3; BWD_I and BWD_W half of that each, jaxpp's unit costs), the last stage also the
// output projection and the loss.
TaskLatencyFn secondsLatency(const PipelineStepPlan& plan, const std::vector<std::int64_t>& timing, std::int64_t layers,
                             const StepEstimate& e) {
  // One unit: a forward of one rank's even share of the model's layers.
  const double unit = e.layer_pass_s * static_cast<double>(layers) / (3.0 * static_cast<double>(plan.ranks));
  const int last = static_cast<int>(plan.spec.num_stages) - 1;
  return [units = pipelineUnitLatency(timing, plan.ranks), unit, last, headF = e.head_fwd_s,
          headB = e.head_bwd_s](TaskType type, int stage) {
    double head = 0;
    if (stage == last) head = type == TaskType::Fwd ? headF : type == TaskType::Bwd ? headB : headB / 2;
    return unit * units(type, stage) + head;
  };
}

// The step composed from the schedule: its makespan, the optimizer update after it and the fill
// and drain hand-overs (the steady state overlaps the others with tasks; the fill and the drain
// cross every rank boundary once each way on the critical path: a lower bound for the interleaved
// schedules and the V, which cross more often). What the devices do not spend computing, on HBM or
// exposed communication is the bubble.
void composeStep(const PipelineStepPlan& plan, const PipelineScheduleRun& run, StepEstimate& e) {
  double handover = 0;
  for (const auto& t : plan.transfers) handover += 2 * t.seconds;
  const double makespan = run.metrics.makespan;
  const double time = makespan + e.optimizer_s + handover;
  const double bubble = std::max(0.0, time - handover - e.compute_s - e.hbm_s - e.exposed_comm_s);
  e.segments.push_back({StepPart::Bubble, "", bubble});
  if (handover > 0) e.segments.push_back({StepPart::Handover, "", handover});
  e.time_s = time;
  e.timeline = pipelineStepSpans(plan, run.timeline, makespan, handover, e.optimizer_s);
  e.tokens_per_s = e.tokens_per_step / time;
  e.mfu = e.model_flops / (time * static_cast<double>(e.devices) * e.peak_flops.value);
  e.bound_by = largestSegment(e.segments);

  // The engine's sentence priced the layout inside a stage; the pipeline's says what bounds it.
  const std::string inside = e.bound_phrase;
  std::string verdict = "the " + std::string(pipelineScheduleKindName(plan.spec.kind)) + " pipeline (" +
                        std::to_string(plan.spec.num_stages) + " stages on " + std::to_string(plan.ranks) + " ranks, " +
                        std::to_string(plan.microbatches) + " micro-batches) idles " +
                        formatPercent(run.metrics.bubble_overall) + " of its " + formatSeconds(makespan) +
                        " schedule in bubbles";
  if (run.metrics.bubble_overall > 0.1)
    verdict += ": more micro-batches per step or an interleaved or zero-bubble schedule would shrink them";
  if (!inside.empty()) verdict += "; inside each stage the work is bound by " + inside;
  setSummary(e, verdict + ".");
  e.notes.push_back("the step is the pipeline schedule's makespan (" + formatSeconds(makespan) + ", " +
                    formatSeconds(bubble) +
                    " of it idle on average) plus the optimizer update and the activation hand-overs of the fill "
                    "and the drain (" +
                    formatSeconds(handover) + "); a device runs 1/" + std::to_string(plan.ranks) +
                    " of the layers, so its compute, HBM traffic, optimizer update and collectives are that share "
                    "of the whole model's; a stage's tasks take its layers' seconds, forward and backward 1:2 as "
                    "jaxpp's unit costs");
}

} // namespace

namespace {

PipelineScheduleRun runSchedule(const PipelineStepPlan& plan, const TaskLatencyFn& latency, PipelineTimeUnit unit) {
  PipelineScheduleRun run;
  run.time_unit = unit;
  run.tasks = plan.tasks.empty() ? preprocessSchedule(pipelineTasks(plan.spec, plan.microbatches), 0) : plan.tasks;
  run.timeline = simulateTimeline(plan.spec, plan.microbatches, run.tasks, latency);
  run.metrics = pipelineMetrics(run.timeline, static_cast<int>(plan.ranks));
  return run;
}

std::vector<std::int64_t> stageTiming(const PipelineStepPlan& plan) {
  // A wrong or unknown layer list is timed as an even split.
  return !plan.layers_per_stage.empty() ? plan.layers_per_stage
                                        : std::vector<std::int64_t>(static_cast<std::size_t>(plan.spec.num_stages), 1);
}

} // namespace

PipelineScheduleRun runPipelineScheduleInUnits(const PipelineStepPlan& plan) {
  return runSchedule(plan, pipelineUnitLatency(stageTiming(plan), plan.ranks), PipelineTimeUnit::Task);
}

PipelinedStep estimatePipelinedStep(const StepInputs& inputs, StepOptions options, const PipelineStepPlan& plan) {
  options.microbatches = plan.microbatches;
  options.pipeline_ranks = std::max<std::int64_t>(1, plan.ranks);
  PipelinedStep out;
  out.step = estimateStep(inputs, options);
  StepEstimate& e = out.step;
  const std::vector<std::int64_t> timing = stageTiming(plan);
  const bool seconds = e.estimated && e.layer_pass_s > 0 && inputs.roles && inputs.roles->layers > 0;
  out.schedule =
      seconds ? runSchedule(plan, secondsLatency(plan, timing, inputs.roles->layers, e), PipelineTimeUnit::Seconds)
              : runSchedule(plan, pipelineUnitLatency(timing, plan.ranks), PipelineTimeUnit::Task);
  const PipelineScheduleRun& run = out.schedule;
  if (seconds) composeStep(plan, run, e);
  return out;
}

} // namespace shardscope
