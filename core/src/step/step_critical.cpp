// SPDX-License-Identifier: Apache-2.0
// The scaling book's checks (step-time.md §2), computed for this layout with the raw published
// figures (C = peak FLOP/s, W = what an all-gather on the axis achieves over all its physical
// axes, both directions of closed rings):
//   * a token (batch or sequence) axis hides its weight gathers and gradient reductions only when
//     each device works on more tokens than C / W per pass over the weights (per micro-batch when
//     the axis shards weights, per step when it only all-reduces gradients);
//   * a tensor axis stays compute-bound while its degree is at most F / (C / W) = n F / (C / W_1),
//     F the MLP width it splits, n its physical axes.
#include "step_internal.hpp"

#include <algorithm>

namespace shardscope::step {

std::vector<StepCritical> criticalChecks(const StepInputs& in, const StepOptions& o, const Architecture& arch,
                                         const MeshRoles& mesh, const std::vector<GroupUse>& uses,
                                         const AxisPricing& pricing) {
  std::vector<StepCritical> out;
  const double peak = o.peak_flops.value;
  for (std::size_t a = 0; a < mesh.size.size(); ++a) {
    if (mesh.size[a] <= 1) continue;
    bool shardsWeights = false, mlp = false, experts = false, attention = false;
    for (const auto& u : uses) {
      const auto& used = in.plan->plans[u.group].layout.axis_used;
      if (u.role == ParamRole::None || a >= used.size() || !used[a]) continue;
      shardsWeights = true;
      mlp = mlp || u.role == ParamRole::Mlp;
      experts = experts || u.role == ParamRole::RoutedExpert;
      attention = attention || u.role == ParamRole::Attention;
    }
    StepCritical c;
    c.axis = mesh.name[a];
    c.size = mesh.size[a];
    c.physical_axes = std::max(1, in.axes[a].physical_axes);
    c.flops_per_byte = pricing.raw_bandwidth[a] > 0 ? peak / pricing.raw_bandwidth[a] : 0.0;
    if (mesh.data[a]) {
      c.role = StepCritical::Role::Batch;
      c.tokens_per_device = mesh.tokens_local * (shardsWeights ? 1.0 : static_cast<double>(o.microbatches));
      c.ok = c.tokens_per_device >= c.flops_per_byte;
      out.push_back(std::move(c));
    } else if (!mesh.expert[a] && (mlp || experts || attention)) {
      c.role = StepCritical::Role::Tensor;
      c.ffn = mlp ? (arch.ffn > 0 ? arch.ffn : arch.moe_ffn) : experts ? arch.moe_ffn : arch.q_dim;
      c.limit = c.flops_per_byte > 0 ? c.ffn / c.flops_per_byte : static_cast<double>(c.size);
      c.ok = static_cast<double>(c.size) <= c.limit;
      out.push_back(std::move(c));
    }
  }
  return out;
}

} // namespace shardscope::step
