// Internal: the stages of analyze(), one file each.
#pragma once

#include "shardscope/analysis.hpp"

namespace shardscope::analysis {

// Devices from the topology, the logical mesh exactly as JAX would assign it, and a sentence per
// axis saying which physical axes it took. Throws the reference's Error when no mesh exists.
void buildMesh(const Scenario& scenario, Analysis& out);

} // namespace shardscope::analysis
