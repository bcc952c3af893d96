// SPDX-License-Identifier: Apache-2.0
// The flags that change the scenario, shared by the commands that analyse one (`shard`, `step`):
// a workspace file (or the built-in scenario) with --topology, --mesh, --model, --rules, --zero,
// --no-split over it. One reading, so the commands agree on what each flag means and says.
#pragma once

#include "cli_options.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <span>
#include <vector>

namespace shardscope::cli {

// The scenario flags; a command appends its own to these.
std::vector<Flag> scenarioFlags();

// The workspace named by the positional argument (or the default scenario) with the scenario flags
// applied. Throws UsageError for a flag that cannot mean anything (--topology without --mesh, a
// --rules that is neither a preset nor a file, a --zero other than 0/1/2) and Error for input that
// does not load.
Scenario scenarioFromArgs(const ParsedArgs& opts);

// One analysis diagnostic as every command prints it: "warning [rules] layers.0.w: message" (the
// severity, "note" for an info, the section and the subject).
std::string diagnosticLine(const Diagnostic& d);

} // namespace shardscope::cli
