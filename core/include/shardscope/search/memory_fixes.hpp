// SPDX-License-Identifier: Apache-2.0
// When a layout does not fit: the smallest edits to it that do (issue 32). Each edit keeps the mesh
// and the global batch: the batch split into smaller micro-batches with more accumulation steps, a
// heavier remat policy, the optimizer state (ZeRO-1, -2) or the parameters (ZeRO-3) sharded over the
// batch axes; pairs of them when no single edit fits. Each is run through the real analysis and the
// ones that fit are ranked by the step time they cost, then by the memory they save.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <atomic>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

struct MemoryFix {
  std::string edit;                         // "micro_batch 32 -> 16 with 2 accumulation steps; remat full"
  Scenario scenario;                        // the edited workspace
  double max_bytes = 0;                     // the fullest device after the edit
  double hbm_bytes = 0;                     // a device's HBM
  double saved_bytes = 0;                   // the fullest device: before minus after
  std::optional<double> step_time_s;        // after the edit; nullopt when not estimated
  std::optional<double> step_time_change_s; // after minus before, when both were estimated
};

// The edits that make `scenario` fit, best first (at most `top`); empty when it already fits, or
// when no edit of one or two of these kinds does. The edits run on up to `threads` worker threads;
// the answer does not depend on how many. Throws what analyze() throws for a workspace that does
// not load.
std::vector<MemoryFix> memoryFixes(const Scenario& scenario, std::size_t top = 8,
                                   const std::atomic<bool>* cancel = nullptr, int threads = 1);

} // namespace shardscope
