// analyze(): composes the engines in the order the data flows: devices -> mesh -> (model, rules,
// shards) -> memory -> communication. Each stage reads only the previous stages' results.
#include "shardscope/analysis.hpp"

#include "analysis_stages.hpp"
#include "shardscope/errors.hpp"

#include <chrono>

namespace shardscope {

Analysis analyze(const Scenario& scenario, const std::atomic<bool>* cancel) {
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
  if (!cancelled()) {
    // Later stages (model, sharding, memory, comm) attach here as their engines land.
  }
  out.compute_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return out;
}

} // namespace shardscope
