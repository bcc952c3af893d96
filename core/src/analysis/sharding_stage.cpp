#include "analysis_stages.hpp"

#include "shardscope/dtype.hpp"
#include "shardscope/errors.hpp"
#include "shardscope/logical_axes.hpp"
#include "shardscope/mesh_axes.hpp"

namespace shardscope::analysis {

namespace {

std::vector<PartitionRule> scenarioRules(const RulesChoice& choice, const MeshAxes& mesh) {
  if (!choice.rules.empty()) {
    std::vector<PartitionRule> rules;
    for (std::size_t i = 0; i < choice.rules.size(); ++i)
      rules.push_back({choice.rules[i].first, PartitionSpec::fromJson(choice.rules[i].second, "rules[" + std::to_string(i) + "] spec")});
    return rules;
  }
  return presetRules(choice.preset, {}, &mesh);
}

} // namespace

std::optional<ShardPlan> shardModel(const Scenario& scenario, const Model& model, Analysis& out) {
  try {
    const MeshAxes axes = MeshAxes::fromMesh(out.mesh);
    const RuleSet rules(scenarioRules(scenario.rules, axes));
    // Parameters live in memory in the training (or serving) dtype, whatever the file stores.
    const DType dtype = parseDType(scenario.training.param_dtype);
    std::vector<ShardParam> params;
    params.reserve(model.params.size());
    for (const auto& p : model.params) params.push_back({p.path, p.shape, dtype, std::nullopt});

    ShardPlanOptions options;
    options.rules = &rules;
    options.min_size = 0; // every matched tensor is sharded; eformer's 16384 default hides small ones
    ShardPlan plan = planShards(axes, params, options);

    out.params.clear();
    out.params.reserve(plan.params.size());
    for (std::size_t i = 0; i < plan.params.size(); ++i) {
      const auto& planned = plan.params[i];
      ParamRow row;
      row.path = params[i].path;
      row.shape = params[i].shape;
      row.dtype = dtype.name;
      row.spec = planned.spec.toString();
      row.shard_shape = planned.layout.shard_shape;
      row.bytes_per_device = static_cast<double>(planned.layout.shard_bytes);
      row.uneven = planned.layout.uneven;
      for (const auto& d : planned.diagnostics) row.diagnostics.push_back(d.message);
      out.params.push_back(std::move(row));
    }
    return plan;
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, "rules", scenario.rules.preset, e.what());
    return std::nullopt;
  }
}

} // namespace shardscope::analysis
