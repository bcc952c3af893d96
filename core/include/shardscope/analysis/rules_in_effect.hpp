// SPDX-License-Identifier: Apache-2.0
// Between a scenario's rule choice (its own [regex, spec] pairs plus a preset) and the ordered
// rule list the sharding engine applies: used by the analysis, rule-file import and export.
#pragma once

#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <vector>

namespace shardscope {

// The scenario's own rules first (an edited spec becomes an exact-path rule there), then the
// preset's for `mesh` (null: for no particular mesh), so an override changes one parameter and the
// preset covers the rest. Throws ValueError naming a bad spec ("rules[2] spec: ...") or preset.
std::vector<PartitionRule> rulesInEffect(const RulesChoice& choice, const MeshAxes* mesh);

// `spec` without the mesh axes of size 1 (MaxText's remove_size_one_mesh_axis; RulesChoice's
// drop_size_one_axes). Axes the mesh lacks are kept, for the sharding engine to report.
PartitionSpec withoutSizeOneAxes(const PartitionSpec& spec, const MeshAxes& mesh);

// A rule list as a scenario's rule choice with the preset off: what a rule file means.
RulesChoice rulesChoiceOf(const std::vector<PartitionRule>& rules);

} // namespace shardscope
