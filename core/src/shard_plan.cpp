#include "shardscope/shard_plan.hpp"

#include "shardscope/errors.hpp"

namespace shardscope {

ShardPlan planShards(const MeshAxes& mesh, std::span<const ShardParam> params, const ShardPlanOptions& options) {
  ShardPlan plan;
  plan.params.resize(params.size());

  // Parameters without their own spec go through the rules, all in one batch.
  std::vector<ParamLeaf> toMatch;
  std::vector<std::size_t> matchIndex;
  for (std::size_t i = 0; i < params.size(); ++i) {
    if (params[i].spec) {
      plan.params[i].requested = *params[i].spec;
      continue;
    }
    if (!options.rules)
      throwValueError("parameter '" + params[i].path + "' has no spec and no partition rules were given");
    toMatch.push_back({params[i].path, params[i].shape, params[i].dtype});
    matchIndex.push_back(i);
  }
  if (!toMatch.empty()) {
    MatchOptions matchOptions;
    matchOptions.min_size = options.min_size;
    auto matches = matchPartitionRules(*options.rules, toMatch, matchOptions);
    for (std::size_t k = 0; k < matches.size(); ++k) {
      PlannedParam& p = plan.params[matchIndex[k]];
      p.requested = std::move(matches[k].spec);
      p.rule = matches[k].rule;
      p.diagnostics = std::move(matches[k].diagnostics);
    }
  }

  DeviceTotalsBuilder totals(mesh);
  for (std::size_t i = 0; i < params.size(); ++i) {
    PlannedParam& p = plan.params[i];
    p.spec = options.correct ? correctSpec(mesh, params[i].shape, p.requested, &p.diagnostics) : p.requested;
    LayoutOptions layoutOptions;
    layoutOptions.param = params[i].path;
    layoutOptions.allow_uneven = options.allow_uneven;
    layoutOptions.diagnostics = &p.diagnostics;
    p.layout = layoutArray(mesh, params[i].shape, params[i].dtype, p.spec, layoutOptions);
    totals.add(p.layout);
  }
  plan.totals = totals.finish();
  return plan;
}

} // namespace shardscope
