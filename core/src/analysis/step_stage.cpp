// SPDX-License-Identifier: Apache-2.0
// The step-time stage: the step engine (step/step_time.hpp) on the analysis' shards, mesh and axis
// reports, with the workspace's training and performance fields as its options; then the per-axis
// step seconds into the comm section. Problems become an "step" diagnostic and a step that says
// what it could not estimate: the rest of the analysis stands.
#include "analysis_memo.hpp"
#include "analysis_stages.hpp"

#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/base/errors.hpp"

namespace shardscope::analysis {

std::shared_ptr<const ParamRoles> rolesOf(const std::shared_ptr<const Model>& model, AnalysisCache::Memo& memo) {
  auto& cache = memo.roles;
  {
    std::lock_guard lock(cache.mutex);
    if (cache.roles && cache.model.lock() == model) return cache.roles;
  }
  auto roles = std::make_shared<const ParamRoles>(classifyParams(*model));
  std::lock_guard lock(cache.mutex);
  cache.model = model;
  cache.roles = roles;
  return roles;
}

namespace {

void notEstimated(Analysis& out, const std::string& why) {
  out.step = StepEstimate{};
  out.step.not_estimated.push_back(why);
  out.step.summary = "Step time not estimated: " + why + ".";
}

} // namespace

std::optional<PipelineScheduleRun> estimateStepTime(const Scenario& scenario, const std::shared_ptr<const Model>& model,
                                                    const ShardGroups* plan, std::span<const AxisReport> axes,
                                                    const PipelinePlanned* pipeline, AnalysisCache::Memo& memo,
                                                    Analysis& out) {
  std::optional<PipelineScheduleRun> schedule;
  // Without a step estimate a pipeline's schedule still runs, in jaxpp's task units.
  const auto withoutStep = [&](const std::string& why) {
    notEstimated(out, why);
    if (pipeline && pipeline->schedulable) try {
        schedule = runPipelineScheduleInUnits(pipeline->step);
      } catch (const Error& e) {
        note(out, Diagnostic::Severity::Error, DiagnosticSection::Pipeline, "", e.what());
      }
    return schedule;
  };
  if (scenario.training.workload != Workload::Training)
    return withoutStep("the step time is estimated for training; serving is not modelled yet");
  if (!model || !plan) return withoutStep("no model or no shard plan (see the model and rules diagnostics)");
  if (axes.size() != out.mesh.shape().size()) return withoutStep("no per-axis link figures (see the comm diagnostics)");
  try {
    const std::string deviceKind = out.mesh.devices.empty() ? std::string() : out.mesh.devices.front().device_kind;
    // Under a pipeline the pipeline axis splits the layers, never the batch.
    Scenario stepScenario = scenario;
    if (scenario.pipeline) std::erase(stepScenario.training.batch_axes, scenario.pipeline->axis);
    StepOptions options = stepOptionsFromScenario(stepScenario, deviceKind);
    // The memory stage ran first (no pipeline): a layout over its HBM gets advice that lowers memory.
    if (out.memory.out_of_memory && out.memory.hbm_bytes > 0)
      options.memory_excess_bytes = out.memory.max_bytes - out.memory.hbm_bytes;
    const auto roles = rolesOf(model, memo);
    StepInputs inputs;
    inputs.model = model.get();
    inputs.roles = roles.get();
    inputs.plan = plan;
    inputs.mesh = &out.mesh;
    inputs.axes = axes;
    if (pipeline && pipeline->schedulable) {
      PipelinedStep pipelined = estimatePipelinedStep(inputs, options, pipeline->step);
      out.step = std::move(pipelined.step);
      schedule = std::move(pipelined.schedule);
    } else {
      out.step = estimateStep(inputs, options);
    }
    // The pipeline axis splits the layers, which the engine does not see: its "repeats the same
    // work" note does not apply, nor is it an idle axis to add to the batch axes.
    if (scenario.pipeline) {
      std::erase_if(out.step.notes, [&](const std::string& note) {
        return note.rfind("axis '" + scenario.pipeline->axis + "' (", 0) == 0;
      });
      std::erase(out.step.idle_axes, scenario.pipeline->axis);
    }
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, scenario.pipeline ? DiagnosticSection::Pipeline : DiagnosticSection::Step,
         "", e.what());
    notEstimated(out, e.what());
    return std::nullopt;
  }
  for (const auto& why : out.step.not_estimated)
    note(out, Diagnostic::Severity::Warning, DiagnosticSection::Step, "", why);
  for (const auto& text : out.step.notes) note(out, Diagnostic::Severity::Info, DiagnosticSection::Step, "", text);
  return schedule;
}

} // namespace shardscope::analysis
