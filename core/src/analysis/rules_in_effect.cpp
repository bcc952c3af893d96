// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/rules_in_effect.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <iterator>

namespace shardscope {

PartitionSpec withoutSizeOneAxes(const PartitionSpec& spec, const MeshAxes& mesh) {
  std::vector<SpecEntry> entries;
  for (const SpecEntry& e : spec.entries()) {
    if (e.kind != SpecEntry::Kind::Axis && e.kind != SpecEntry::Kind::Tuple) {
      entries.push_back(e);
      continue;
    }
    std::vector<std::optional<std::string>> kept;
    for (const auto& m : e.members)
      if (!m || mesh.size(*m) != 1) kept.push_back(m); // an axis the mesh lacks stays, to be reported
    if (kept.size() == e.members.size())
      entries.push_back(e);
    else if (kept.empty() || (kept.size() == 1 && !kept.front()))
      entries.push_back(SpecEntry::none());
    else if (kept.size() == 1)
      entries.push_back(SpecEntry::axis(*kept.front()));
    else
      entries.push_back(SpecEntry::tuple(std::move(kept)));
  }
  return PartitionSpec(std::move(entries));
}

std::vector<PartitionRule> rulesInEffect(const RulesChoice& choice, const MeshAxes* mesh) {
  // The same bound as a rule file's: each rule is a compiled regex tried on every parameter.
  if (choice.rules.size() > kMaxRuleFileRules)
    throwValueError("rules.rules holds " + std::to_string(choice.rules.size()) + " rules, more than the limit of " +
                    std::to_string(kMaxRuleFileRules));
  std::vector<PartitionRule> rules;
  for (std::size_t i = 0; i < choice.rules.size(); ++i) {
    PartitionSpec spec = PartitionSpec::fromJson(choice.rules[i].second, "rules[" + std::to_string(i) + "] spec");
    if (choice.drop_size_one_axes && mesh) spec = withoutSizeOneAxes(spec, *mesh);
    rules.push_back({choice.rules[i].first, std::move(spec)});
  }
  if (!choice.preset.empty()) {
    auto preset = presetRules(choice.preset, {}, mesh);
    rules.insert(rules.end(), std::make_move_iterator(preset.begin()), std::make_move_iterator(preset.end()));
  }
  return rules;
}

RulesChoice rulesChoiceOf(const std::vector<PartitionRule>& rules) {
  RulesChoice choice;
  choice.preset.clear();
  for (const auto& r : rules) choice.rules.emplace_back(r.pattern, r.spec.toJson());
  return choice;
}

} // namespace shardscope
