// SPDX-License-Identifier: Apache-2.0
// analyze(): composes the engines in the order the data flows: devices -> mesh -> (model, rules,
// shards) -> memory -> communication. Each stage reads only the previous stages' results.
#include "shardscope/analysis/analysis.hpp"

#include "analysis_memo.hpp"
#include "analysis_stages.hpp"
#include "shardscope/base/errors.hpp"

#include <chrono>

namespace shardscope {

AnalysisCache::AnalysisCache() : memo_(std::make_unique<Memo>()) {}
AnalysisCache::~AnalysisCache() = default;

Analysis analyze(const Scenario& scenario) {
  AnalysisCache fresh;
  return analyze(scenario, fresh);
}

Analysis analyze(const Scenario& scenario, AnalysisCache& cache, const std::atomic<bool>* cancel) {
  const auto start = std::chrono::steady_clock::now();
  Analysis out;
  analysis::buildMesh(scenario, out);
  auto cancelled = [&] {
    if (cancel && cancel->load(std::memory_order_relaxed)) {
      out.diagnostics.push_back({Diagnostic::Severity::Warning, "analysis", "", "cancelled by a newer edit"});
      return true;
    }
    return false;
  };
  // The payload the per-axis collective times are quoted for: one layer's parameters, what an
  // FSDP all-gather moves per layer (the whole model when the layer count is unknown).
  double payloadBytes = 1 << 30;
  std::shared_ptr<const Model> model;
  std::optional<ShardGroups> plan;
  if (!cancelled()) {
    if (model = analysis::loadModel(scenario.model, cache.memo(), out); model && !cancelled()) {
      if (plan = analysis::shardModel(scenario, model, cache.memo(), out); plan && !cancelled()) {
        analysis::estimateDeviceMemory(scenario, *model, *plan, out);
        payloadBytes = static_cast<double>(plan->totals.total_bytes);
        if (model->config && model->config->num_layers > 0)
          payloadBytes /= static_cast<double>(model->config->num_layers);
      }
    }
  }
  if (!cancelled()) analysis::reportCommunication(scenario, payloadBytes, out);
  // Without a pipeline section nothing below runs and the analysis is as before.
  if (scenario.pipeline && !cancelled()) analysis::analyzePipeline(scenario, model.get(), plan ? &*plan : nullptr, out);
  out.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace shardscope
