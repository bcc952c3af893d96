// SPDX-License-Identifier: Apache-2.0
// analyze(): composes the engines in the order the data flows: devices -> mesh -> (model, rules,
// shards) -> communication -> (pipeline plan) -> step time (and the pipeline's schedule) -> memory
// (per pipeline rank over the schedule). Each stage reads only the previous stages' results and
// writes its own section once.
#include "shardscope/analysis/analysis.hpp"

#include "analysis_memo.hpp"
#include "analysis_stages.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include <chrono>

namespace shardscope {

AnalysisCache::AnalysisCache() : memo_(std::make_unique<Memo>()) {}
AnalysisCache::~AnalysisCache() = default;

Analysis analyze(const Scenario& scenario) {
  AnalysisCache fresh;
  return analyze(scenario, fresh);
}

Analysis analyzeMesh(const Scenario& scenario) {
  Analysis out;
  analysis::buildMesh(scenario, out);
  out.links = cachedLinkGraph(scenario.topology, linkParamsOf(scenario));
  return out;
}

Analysis analyze(const Scenario& scenario, AnalysisCache& cache, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  Analysis out;
  analysis::buildMesh(scenario, out);
  bool stopped = false;
  auto cancelled = [&] {
    if (!stopped && cancel && cancel->load(std::memory_order_relaxed)) {
      out.diagnostics.push_back(
          {Diagnostic::Severity::Warning, DiagnosticSection::Analysis, "", "cancelled by a newer edit"});
      stopped = true;
    }
    return stopped;
  };
  std::shared_ptr<const Model> model;
  std::optional<ShardGroups> plan;
  if (!cancelled()) {
    model = analysis::loadModel(scenario.model, cache.memo(), out);
    if (model && !cancelled()) plan = analysis::shardModel(scenario, model, cache.memo(), out);
  }
  std::vector<AxisReport> reports;
  if (!cancelled()) reports = analysis::reportCommunication(scenario, out);
  // A pipeline is planned before the step, which schedules it; it joins the analysis once the
  // memory stage has given each rank its memory. Without a pipeline section none of it runs.
  std::optional<analysis::PipelinePlanned> pipeline;
  if (scenario.pipeline && !cancelled())
    pipeline = analysis::planPipeline(scenario, model.get(), plan ? &*plan : nullptr, out);
  // Without a pipeline the memory needs nothing of the step: it runs first, so the step's verdict
  // knows whether the layout fits (and never advises an edit that raises memory when it does not).
  // A pipeline's memory needs the schedule the step runs: it comes after.
  const bool memoryFirst = !pipeline;
  if (memoryFirst && model && plan && !cancelled())
    analysis::estimateDeviceMemory(scenario, *model, *plan, nullptr, out);
  if (!cancelled()) {
    const auto schedule = analysis::estimateStepTime(scenario, model, plan ? &*plan : nullptr, reports,
                                                     pipeline ? &*pipeline : nullptr, cache.memo(), out);
    if (pipeline && schedule) analysis::attachSchedule(*pipeline, *schedule);
  }
  if (!memoryFirst && model && plan && !cancelled())
    analysis::estimateDeviceMemory(scenario, *model, *plan, &*pipeline, out);
  if (pipeline) out.pipeline = std::move(pipeline->section);
  out.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace shardscope
