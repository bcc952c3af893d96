// SPDX-License-Identifier: Apache-2.0
// The smallest edits that make a layout fit (memory_fixes.hpp).
#include "shardscope/search/memory_fixes.hpp"

#include "analysis/analysis_stages.hpp"
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/base/parallel_for.hpp"
#include "shardscope/base/units.hpp"

#include <algorithm>
#include <exception>
#include <functional>
#include <optional>

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

// Whether an edited layout may fit, from the stages up to the memory estimate: the step stage costs
// as much again and runs only for the edits that fit. Without a verdict here (a pipeline, whose
// memory is the pipeline stage's; a layout the stages refuse) the whole analysis decides.
bool mayFit(const Scenario& s, AnalysisCache& cache) {
  if (s.pipeline) return true;
  Analysis a;
  try {
    analysis::buildMesh(s, a);
    const auto model = analysis::loadModel(s.model, cache.memo(), a);
    if (!model) return true;
    const auto plan = analysis::shardModel(s, model, cache.memo(), a);
    if (!plan) return true;
    analysis::estimateDeviceMemory(s, *model, *plan, nullptr, a);
  } catch (const Error&) {
    return true;
  }
  return !a.memory.out_of_memory;
}

} // namespace

std::vector<MemoryFix> memoryFixes(const Scenario& scenario, std::size_t top, const std::atomic<bool>* cancel,
                                   int threads) {
  AnalysisCache cache;
  const Analysis before = analyze(scenario, cache, cancel);
  if (!before.memory.out_of_memory) return {};
  const auto singles = singleEdits(scenario);
  // One edited layout through the analysis; nullopt when it does not fit.
  auto evaluate = [&](const std::vector<std::size_t>& combo, AnalysisCache& own) -> std::optional<MemoryFix> {
    MemoryFix fix;
    fix.scenario = scenario;
    for (std::size_t i : combo) {
      singles[i].apply(fix.scenario);
      fix.edit += (fix.edit.empty() ? "" : "; ") + singles[i].what;
    }
    if (!mayFit(fix.scenario, own)) return std::nullopt;
    const Analysis after = analyze(fix.scenario, own, cancel);
    if (after.memory.out_of_memory || after.memory.hbm_bytes <= 0) return std::nullopt;
    fix.max_bytes = after.memory.max_bytes;
    fix.hbm_bytes = after.memory.hbm_bytes;
    fix.saved_bytes = before.memory.max_bytes - after.memory.max_bytes;
    if (after.step.estimated) fix.step_time_s = after.step.time_s;
    if (after.step.estimated && before.step.estimated) fix.step_time_change_s = after.step.time_s - before.step.time_s;
    return fix;
  };
  // The edits on the worker threads, each worker with its own cache; kept in the order tried.
  std::vector<MemoryFix> fits;
  auto evaluateAll = [&](const std::vector<std::vector<std::size_t>>& combos) {
    std::vector<std::optional<MemoryFix>> found(combos.size());
    std::vector<AnalysisCache> caches(static_cast<std::size_t>(workerCount(combos.size(), threads)));
    parallelFor(combos.size(), threads, cancel, [&](std::size_t k, int worker) {
      try {
        found[k] = evaluate(combos[k], caches[static_cast<std::size_t>(worker)]);
      } catch (const std::exception&) {
        // an edit the analysis refuses fixes nothing
      }
    });
    for (auto& f : found)
      if (f) fits.push_back(std::move(*f));
  };
  std::vector<std::vector<std::size_t>> tries;
  for (std::size_t i = 0; i < singles.size(); ++i) tries.push_back({i});
  evaluateAll(tries);
  // No single edit fits: pairs of edits of different kinds (a split and a remat, a remat and ZeRO...).
  if (fits.empty()) {
    tries.clear();
    for (std::size_t i = 0; i < singles.size(); ++i)
      for (std::size_t j = i + 1; j < singles.size(); ++j)
        if (singles[i].what.substr(0, 4) != singles[j].what.substr(0, 4)) tries.push_back({i, j});
    evaluateAll(tries);
  }
  if (cancel && cancel->load()) return {};
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
