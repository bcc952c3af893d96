// SPDX-License-Identifier: Apache-2.0
// The inspected program beside the workspace it is placed on (inspectOnScenario): each argument
// matched to the workspace parameter it is by name (the longest parameter path whose identifiers
// end the argument's: JAX's "state.params['decoder']['mlp']['wi_0']['kernel']" is MaxText's
// "params/decoder/mlp/wi_0/kernel", and an optimizer moment is its parameter's), a flag where the
// compiled argument is replicated over an axis the workspace shards that parameter on, and the
// program's step estimated from its own FLOPs and priced collectives beside the workspace model's,
// in total and per mesh axis (docs/inspect.md, "Against the workspace").
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/inspect/inspect_result.hpp"

namespace shardscope {

// Fills result.estimate, each argument's workspace_param and workspace_spec, and the
// replicated_where_workspace_shards flags. `analysis` is analyze(scenario) (the whole analysis:
// parameters and step). Nothing for an OOM report.
void compareWithWorkspace(InspectResult& result, const Scenario& scenario, const Analysis& analysis);

} // namespace shardscope
