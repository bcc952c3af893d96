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

namespace {

// The model's parameter roles, classified once per loaded model.
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

void notEstimated(Analysis& out, const std::string& why) {
  out.step = StepEstimate{};
  out.step.not_estimated.push_back(why);
  out.step.summary = "Step time not estimated: " + why + ".";
}

} // namespace

void estimateStepTime(const Scenario& scenario, const std::shared_ptr<const Model>& model, const ShardGroups* plan,
                      std::span<const AxisReport> axes, AnalysisCache::Memo& memo, Analysis& out) {
  if (scenario.training.workload != Workload::Training)
    return notEstimated(out, "the step time is estimated for training; serving is not modelled yet");
  if (!model || !plan) return notEstimated(out, "no model or no shard plan (see the model and rules diagnostics)");
  if (axes.size() != out.mesh.shape().size())
    return notEstimated(out, "no per-axis link figures (see the comm diagnostics)");
  try {
    const std::string deviceKind = out.mesh.devices.empty() ? std::string() : out.mesh.devices.front().device_kind;
    // Under a pipeline the step engine prices the whole model on one device's batch shard for the
    // pipeline's M micro-batches; the pipeline stage then spreads that over the ranks and the
    // schedule (pipeline_stage.cpp, pipelineStepTime). The pipeline axis never splits the batch.
    Scenario stepScenario = scenario;
    if (scenario.pipeline) {
      stepScenario.training.microbatches = resolvedPipelineMicrobatches(*scenario.pipeline, out.mesh);
      std::erase(stepScenario.training.batch_axes, scenario.pipeline->axis);
    }
    const StepOptions options = stepOptionsFromScenario(stepScenario, deviceKind);
    const auto roles = rolesOf(model, memo);
    StepInputs inputs;
    inputs.model = model.get();
    inputs.roles = roles.get();
    inputs.plan = plan;
    inputs.mesh = &out.mesh;
    inputs.axes = axes;
    out.step = estimateStep(inputs, options);
    // The pipeline axis splits the layers, which the engine does not see: its "repeats the same
    // work" note does not apply.
    if (scenario.pipeline)
      std::erase_if(out.step.notes, [&](const std::string& note) {
        return note.rfind("axis '" + scenario.pipeline->axis + "' (", 0) == 0;
      });
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Step, "", e.what());
    return notEstimated(out, e.what());
  }
  for (const auto& why : out.step.not_estimated)
    note(out, Diagnostic::Severity::Warning, DiagnosticSection::Step, "", why);
  for (const auto& text : out.step.notes) note(out, Diagnostic::Severity::Info, DiagnosticSection::Step, "", text);
  for (std::size_t i = 0; i < out.comm.size() && i < out.step.per_axis.size(); ++i) {
    const StepAxis& s = out.step.per_axis[i];
    AxisComm& c = out.comm[i];
    c.step_bytes = s.bytes;
    c.step_s = s.seconds;
    c.overlapped_s = s.overlapped;
    c.exposed_s = s.exposed;
  }
}

} // namespace shardscope::analysis
