// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "analysis_memo.hpp"
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"

#include <mutex>

namespace shardscope::analysis {

namespace {

std::vector<std::string> patternsOf(const RuleSet& rules) {
  std::vector<std::string> out;
  out.reserve(rules.size());
  for (const auto& r : rules.rules()) out.push_back(r.pattern);
  return out;
}

// The plan of every parameter, through the cached grouping when it applies.
// Which parameters plan alike depends only on the model, the rule patterns (through the rule
// each path matches) and the dtype: not on the mesh sizes or the rules' specs. The GUI reanalyzes
// on every drag frame with those unchanged, so the grouping of the last successful plan is kept
// and the next plan only lays out one representative per group instead of matching 46k paths.
ShardGroups planModel(const MeshAxes& axes, const std::shared_ptr<const Model>& model, const RuleSet& rules,
                      const DType& dtype, const ShardPlanOptions& options, AnalysisCache::Memo::Grouping& cache) {
  std::vector<std::string> patterns = patternsOf(rules);
  {
    std::unique_lock lock(cache.mutex);
    if (cache.model.lock() == model && cache.patterns == patterns && cache.dtype == dtype.name) {
      std::vector<std::uint32_t> groupOf = cache.group_of;
      std::vector<std::size_t> first = cache.first;
      std::vector<std::int64_t> counts = cache.counts;
      lock.unlock();
      std::vector<ShardParamRef> reps;
      reps.reserve(first.size());
      for (std::size_t g = 0; g < first.size(); ++g) {
        const auto& p = model->params[first[g]];
        reps.push_back({p.path, &p.shape, &dtype, nullptr, counts[g]});
      }
      ShardGroups plan = planShardGroups(axes, reps, options);
      // Representatives are pairwise different, so each is its own group, in the same order.
      if (plan.plans.size() == first.size()) {
        plan.group_of = std::move(groupOf);
        plan.first = std::move(first);
        return plan;
      }
    }
  }
  std::vector<ShardParamRef> params;
  params.reserve(model->params.size());
  for (const auto& p : model->params) params.push_back({p.path, &p.shape, &dtype, nullptr});
  ShardGroups plan = planShardGroups(axes, params, options);
  std::lock_guard lock(cache.mutex);
  cache.model = model;
  cache.patterns = std::move(patterns);
  cache.dtype = dtype.name;
  cache.group_of = plan.group_of;
  cache.first = plan.first;
  cache.counts = plan.counts;
  return plan;
}

} // namespace

std::optional<ShardGroups> shardModel(const Scenario& scenario, const std::shared_ptr<const Model>& modelPtr,
                                      AnalysisCache::Memo& memo, Analysis& out) {
  try {
    const MeshAxes axes = MeshAxes::fromMesh(out.mesh);
    const RuleSet rules(rulesInEffect(scenario.rules, &axes));
    // Parameters live in memory in the training (or serving) dtype, whatever the file stores.
    const DType dtype = parseDType(scenario.training.param_dtype);
    ShardPlanOptions options;
    options.rules = &rules;
    options.min_size = 0; // every matched tensor is sharded; eformer's 16384 default hides small ones
    ShardGroups plan = planModel(axes, modelPtr, rules, dtype, options, memo.grouping);

    // The repeated layers and experts share a group: its spec and notes are stored once, and
    // the table refers to the model's own paths and shapes rather than copying 46k of them.
    std::vector<ParamSharding> groups;
    groups.reserve(plan.plans.size());
    for (const auto& planned : plan.plans) {
      auto& g = groups.emplace_back();
      g.spec = planned.spec;
      g.shard_shape = planned.layout.shard_shape;
      g.bytes_per_device = static_cast<double>(planned.layout.shard_bytes);
      g.uneven = planned.layout.uneven;
      for (const auto& d : planned.diagnostics) g.diagnostics.push_back(d.message);
    }
    out.params = ParamTable(modelPtr, dtype.name, std::move(groups), plan.group_of);
    return plan;
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Rules, scenario.rules.preset, e.what());
    return std::nullopt;
  }
}

} // namespace shardscope::analysis
