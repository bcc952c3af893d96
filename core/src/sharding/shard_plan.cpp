// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/shard_plan.hpp"

#include "shardscope/base/errors.hpp"

#include <unordered_map>

namespace shardscope {

namespace {

// What makes two parameters plan alike: correction, layout and every diagnostic depend only on
// the requested spec, the shape and the dtype (the path appears in error messages alone), and a
// rule's spec depends only on the rule and the shape.
struct GroupKey {
  int rule = -1;                       // rule index; kGivenSpec or kScalar otherwise
  const PartitionSpec* spec = nullptr; // the given spec when rule == kGivenSpec
  const Shape* shape = nullptr;
  const DType* dtype = nullptr;
};
constexpr int kGivenSpec = -1;
constexpr int kScalar = -2; // no spec and rank 0: the rules give P() without being tried

struct GroupKeyHash {
  std::size_t operator()(const GroupKey& k) const noexcept {
    std::uint64_t h = static_cast<std::uint64_t>(k.rule + 3) * 0x9e3779b97f4a7c15ULL;
    for (const auto d : *k.shape) h = (h ^ static_cast<std::uint64_t>(d)) * 0x100000001b3ULL;
    h ^= k.dtype->name.size() * 0xff51afd7ed558ccdULL;
    if (k.spec) h ^= k.spec->size() * 0xc4ceb9fe1a85ec53ULL;
    return static_cast<std::size_t>(h ^ (h >> 29));
  }
};

struct GroupKeyEq {
  bool operator()(const GroupKey& a, const GroupKey& b) const {
    return a.rule == b.rule && *a.shape == *b.shape && (a.dtype == b.dtype || *a.dtype == *b.dtype) &&
           (a.rule != kGivenSpec || *a.spec == *b.spec);
  }
};

} // namespace

ShardGroups planShardGroups(const MeshAxes& mesh, std::span<const ShardParamRef> params,
                            const ShardPlanOptions& options) {
  const std::size_t n = params.size();
  std::vector<std::size_t> matched; // parameters the rules decide
  std::vector<std::string_view> paths;
  for (std::size_t i = 0; i < n; ++i) {
    const ShardParamRef& p = params[i];
    if (p.spec) continue;
    if (!options.rules)
      throwValueError("parameter '" + std::string(p.path) + "' has no spec and no partition rules were given");
    if (p.shape->empty()) continue;
    matched.push_back(i);
    paths.push_back(p.path);
  }

  const std::int64_t minSize = options.min_size.value_or(kMinShardingSize);
  ShardGroups out;
  out.group_of.resize(n);
  std::vector<std::size_t>& firstOf = out.first;
  std::unordered_map<GroupKey, std::uint32_t, GroupKeyHash, GroupKeyEq> index;
  auto group = [&](const std::vector<int>& ruleOf) {
    index.clear();
    out.plans.clear();
    out.counts.clear();
    firstOf.clear();
    for (std::size_t i = 0; i < n; ++i) {
      const ShardParamRef& p = params[i];
      const GroupKey key{p.spec ? kGivenSpec : p.shape->empty() ? kScalar : ruleOf[i], p.spec, p.shape, p.dtype};
      const auto [it, inserted] = index.try_emplace(key, static_cast<std::uint32_t>(out.plans.size()));
      if (inserted) {
        PlannedParam plan;
        if (p.spec) {
          plan.requested = *p.spec;
        } else {
          RuleMatch m = applyRule(*options.rules, key.rule, *p.shape, minSize, p.path);
          plan.requested = std::move(m.spec);
          plan.rule = m.rule;
          plan.diagnostics = std::move(m.diagnostics);
        }
        out.plans.push_back(std::move(plan));
        out.counts.push_back(0);
        firstOf.push_back(i);
      }
      out.group_of[i] = it->second;
      out.counts[it->second] += p.count;
    }
  };

  // The rules, in input order with the path memo. Any failure (no rule matches, a pattern blows
  // up, a shape overflows) is redone by matchPartitionRules, which visits the paths sorted as JAX
  // does and so names the same parameter in its error as a plain matchPartitionRules call would.
  std::vector<int> ruleOf(n, -1);
  bool fastFailed = false;
  try {
    const std::vector<int> found = matched.empty() ? std::vector<int>() : options.rules->firstMatches(paths);
    for (std::size_t k = 0; k < found.size() && !fastFailed; ++k) {
      if (found[k] < 0) fastFailed = true;
      ruleOf[matched[k]] = found[k];
    }
    if (!fastFailed) group(ruleOf);
  } catch (const Error&) {
    fastFailed = true;
  }
  if (fastFailed) {
    std::vector<ParamLeaf> leaves;
    leaves.reserve(matched.size());
    for (std::size_t i : matched) leaves.push_back({std::string(params[i].path), *params[i].shape, *params[i].dtype});
    MatchOptions matchOptions;
    matchOptions.min_size = options.min_size;
    const auto matches = matchPartitionRules(*options.rules, leaves, matchOptions);
    for (std::size_t k = 0; k < matches.size(); ++k) ruleOf[matched[k]] = matches[k].rule;
    group(ruleOf);
  }

  DeviceTotalsBuilder totals(mesh);
  for (std::size_t g = 0; g < out.plans.size(); ++g) {
    const ShardParamRef& p = params[firstOf[g]];
    PlannedParam& plan = out.plans[g];
    try {
      plan.spec = options.correct ? correctSpec(mesh, *p.shape, plan.requested, &plan.diagnostics) : plan.requested;
      LayoutOptions layoutOptions;
      layoutOptions.param = p.path;
      layoutOptions.allow_uneven = options.allow_uneven;
      layoutOptions.diagnostics = &plan.diagnostics;
      plan.layout = layoutArray(mesh, *p.shape, *p.dtype, plan.spec, layoutOptions);
    } catch (const Error&) {
      // Parameter by parameter, the totals of everything before this one would be added first:
      // an overflow there is the error to report.
      std::vector<std::int64_t> before(g, 0);
      for (std::size_t j = 0; j < firstOf[g]; ++j) before[out.group_of[j]] += params[j].count;
      DeviceTotalsBuilder partial(mesh);
      for (std::size_t h = 0; h < g; ++h) partial.add(out.plans[h].layout, before[h]);
      throw;
    }
  }
  for (std::size_t g = 0; g < out.plans.size(); ++g) totals.add(out.plans[g].layout, out.counts[g]);
  out.totals = totals.finish();
  return out;
}

ShardPlan planShards(const MeshAxes& mesh, std::span<const ShardParam> params, const ShardPlanOptions& options) {
  std::vector<ShardParamRef> refs;
  refs.reserve(params.size());
  for (const auto& p : params) refs.push_back({p.path, &p.shape, &p.dtype, p.spec ? &*p.spec : nullptr});
  ShardGroups groups = planShardGroups(mesh, refs, options);
  ShardPlan plan;
  plan.params.reserve(params.size());
  for (std::size_t i = 0; i < params.size(); ++i) plan.params.push_back(groups.plans[groups.group_of[i]]);
  plan.totals = std::move(groups.totals);
  return plan;
}

} // namespace shardscope
