// SPDX-License-Identifier: Apache-2.0
// The vocabulary of a job the cost engines take in their own option structs: what runs (training or
// serving), which optimizer keeps state, and how much of the forward is recomputed. The workspace
// (analysis/scenario.hpp) stores these; the engines never see the workspace itself.
#pragma once

#include <string_view>

namespace shardscope {

enum class Workload { Training, Serving };
enum class Optimizer { AdamW, Adafactor, SgdMomentum };
enum class Recompute { None, Selective, Full };

// The policy as the workspace, the CLI and JSON answers spell it: "none", "selective", "full".
constexpr std::string_view recomputeName(Recompute r) {
  switch (r) {
  case Recompute::None:
    return "none";
  case Recompute::Full:
    return "full";
  case Recompute::Selective:
    break;
  }
  return "selective";
}

} // namespace shardscope
