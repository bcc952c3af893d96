// SPDX-License-Identifier: Apache-2.0
// The smallest edits that make a layout fit (memory_fixes.hpp).
#include "shardscope/search/memory_fixes.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/base/units.hpp"

#include <algorithm>
#include <functional>

namespace shardscope {

namespace {

struct Edit {
  std::string what;
  std::function<void(Scenario&)> apply;
};

// Single edits that lower memory and keep the mesh and the global batch.
std::vector<Edit> singleEdits(const Scenario& s) {
  std::vector<Edit> edits;
  const auto& t = s.training;
  // A pipeline schedules its own micro-batches: the split is the pipeline's, not accumulation.
  if (!s.pipeline)
    for (std::int64_t k : {2, 4, 8, 16})
      if (t.micro_batch % k == 0 && t.micro_batch / k >= 1)
        edits.push_back({"micro_batch " + std::to_string(t.micro_batch) + " -> " + std::to_string(t.micro_batch / k) +
                             " with " + std::to_string(t.microbatches * k) + " accumulation steps",
                         [k](Scenario& x) {
                           x.training.micro_batch /= k;
                           x.training.microbatches *= k;
                         }});
  for (Recompute r : {Recompute::Selective, Recompute::Full})
    if (t.recompute != r && t.recompute != Recompute::Full)
      edits.push_back({"remat " + std::string(recomputeName(r)), [r](Scenario& x) { x.training.recompute = r; }});
  for (int z : {1, 3})
    if (t.zero_stage < z)
      edits.push_back({"ZeRO-" + std::to_string(z), [z](Scenario& x) { x.training.zero_stage = z; }});
  return edits;
}

} // namespace

std::vector<MemoryFix> memoryFixes(const Scenario& scenario, std::size_t top, const std::atomic<bool>* cancel) {
  AnalysisCache cache;
  const Analysis before = analyze(scenario, cache, cancel);
  if (!before.memory.out_of_memory) return {};
  const auto singles = singleEdits(scenario);
  std::vector<std::vector<std::size_t>> tries;
  for (std::size_t i = 0; i < singles.size(); ++i) tries.push_back({i});
  std::vector<MemoryFix> fits;
  auto evaluate = [&](const std::vector<std::size_t>& combo) {
    MemoryFix fix;
    fix.scenario = scenario;
    for (std::size_t i : combo) {
      singles[i].apply(fix.scenario);
      fix.edit += (fix.edit.empty() ? "" : "; ") + singles[i].what;
    }
    const Analysis after = analyze(fix.scenario, cache, cancel);
    if (after.memory.out_of_memory || after.memory.hbm_bytes <= 0) return;
    fix.max_bytes = after.memory.max_bytes;
    fix.hbm_bytes = after.memory.hbm_bytes;
    fix.saved_bytes = before.memory.max_bytes - after.memory.max_bytes;
    if (after.step.estimated) fix.step_time_s = after.step.time_s;
    if (after.step.estimated && before.step.estimated) fix.step_time_change_s = after.step.time_s - before.step.time_s;
    fits.push_back(std::move(fix));
  };
  for (const auto& combo : tries) {
    if (cancel && cancel->load()) return {};
    evaluate(combo);
  }
  // No single edit fits: pairs of edits of different kinds (a split and a remat, a remat and ZeRO...).
  if (fits.empty())
    for (std::size_t i = 0; i < singles.size(); ++i)
      for (std::size_t j = i + 1; j < singles.size(); ++j) {
        if (singles[i].what.substr(0, 4) == singles[j].what.substr(0, 4)) continue; // same kind
        if (cancel && cancel->load()) return {};
        evaluate({i, j});
      }
  // Cheapest in step time first (an unestimated step last), then the most memory saved.
  std::stable_sort(fits.begin(), fits.end(), [](const MemoryFix& a, const MemoryFix& b) {
    const double ta = a.step_time_change_s.value_or(1e300), tb = b.step_time_change_s.value_or(1e300);
    if (ta != tb) return ta < tb;
    return a.saved_bytes > b.saved_bytes;
  });
  if (fits.size() > top) fits.resize(top);
  return fits;
}

} // namespace shardscope
