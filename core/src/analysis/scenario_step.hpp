// SPDX-License-Identifier: Apache-2.0
// Internal: the workspace fields of the step-time estimate (training.microbatches,
// training.sequence_parallel and the `performance` section), read and written apart from the rest
// of scenario.cpp so the two evolve independently.
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json_fields.hpp"

namespace shardscope {

// Reads the step fields of a workspace object into `scenario` (the rest already read). Throws
// ValueError naming the field: "performance.flops_fraction must be in (0, 1], got 1.5".
void readStepFields(const JsonField& workspace, Scenario& scenario);
// Writes them (performance only when some value is set).
void writeStepFields(const Scenario& scenario, Json& workspace);

} // namespace shardscope
