// SPDX-License-Identifier: Apache-2.0
// The collectives of one training step, derived from the layouts (step-time.md §2), per mesh axis:
//   * weights sharded over token axes (FSDP / ZeRO-3): all-gathered before the forward and again
//     before the backward of every micro-batch, gradients reduce-scattered;
//   * weights replicated over token axes: gradients all-reduced once per step (ZeRO-1/2 over the
//     batch axes: reduce-scatter, then all-gather the updated shards);
//   * blocks whose weights a non-token axis splits (tensor parallel): one all-reduce of the block's
//     [tokens, hidden] activations forward and one backward, or an all-gather / reduce-scatter
//     pair each way under Megatron sequence parallelism and in MaxText (whose activations are
//     sharded over the tensor axis); a parallel block (attention beside the MLP) reduces once;
//   * routed experts spread over an axis that shards nothing else (expert parallel): all-to-all
//     dispatch and combine forward and backward per MoE layer (an all-reduce of the combined output
//     when that axis does not split the tokens);
//   * sequence axes (context parallelism): keys and values all-gathered forward and their
//     gradients reduce-scattered backward, per attention layer.
// Collectives are fused per layer and pass, as XLA and Megatron bucket them.
#include "step_internal.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope::step {

void BucketSet::addOne(int axis, Collective kind, const std::string& purpose, Phase phase, double bytes, double calls,
                       bool separate) {
  for (auto& b : buckets_)
    if (b.axis == axis && b.kind == kind && b.phase == phase && b.purpose == purpose) {
      b.payload += bytes;
      b.calls = separate ? b.calls + calls : std::max(b.calls, calls);
      return;
    }
  Bucket b;
  b.axis = axis;
  b.kind = kind;
  b.purpose = purpose;
  b.phase = phase;
  b.payload = bytes;
  b.calls = calls;
  buckets_.push_back(std::move(b));
}

void BucketSet::add(const std::vector<int>& axes, Collective kind, const std::string& purpose, Phase phase,
                    double bytes, double calls, bool separate) {
  std::vector<int> used;
  double ways = 1;
  for (int a : axes)
    if (mesh_.size[static_cast<std::size_t>(a)] > 1) {
      used.push_back(a);
      ways *= static_cast<double>(mesh_.size[static_cast<std::size_t>(a)]);
    }
  if (used.empty() || !(bytes > 0)) return;
  // Hierarchically, slowest axis first for gathers: each stage's payload is the shard times the
  // sizes of the axes gathered so far (a reduce-scatter runs the same stages in reverse, an
  // all-reduce is both). An all-to-all exchanges the same buffer over each axis in turn.
  double payload = bytes / ways;
  for (int a : slowestFirst(used, pricing_)) {
    const double p = static_cast<double>(mesh_.size[static_cast<std::size_t>(a)]);
    if (kind == Collective::AllToAll)
      addOne(a, kind, purpose, phase, bytes / ways * p, calls, separate);
    else
      addOne(a, kind, purpose, phase, payload *= p, calls, separate);
  }
}

namespace {

std::vector<int> select(const MeshRoles& mesh, auto&& keep) {
  std::vector<int> out;
  for (std::size_t a = 0; a < mesh.size.size(); ++a)
    if (mesh.size[a] > 1 && keep(a)) out.push_back(static_cast<int>(a));
  return out;
}

} // namespace

void deriveCollectives(const StepInputs& in, const StepOptions& o, const Architecture& arch, const MeshRoles& mesh,
                       const std::vector<GroupUse>& uses, const Work& work, BucketSet& out) {
  const double m = static_cast<double>(o.microbatches);
  const double layers = static_cast<double>(std::max<std::int64_t>(1, arch.layers));
  const bool zero = o.zero_stage >= 1;
  // Gradients are reduced in their own dtype (fp32 under Megatron-LM for a bf16 model).
  const double gradScale = o.grad_bytes > 0 ? o.grad_bytes / o.param_bytes : 1.0;

  // Weights: gathers and gradient reductions, per group of alike parameters.
  std::vector<std::vector<int>> blockAxes(6); // per role: non-token axes splitting its weights
  for (const auto& u : uses) {
    const auto& layout = in.plan->plans[u.group].layout;
    const auto used = [&](std::size_t a) { return a < layout.axis_used.size() && layout.axis_used[a]; };
    const double shardBytes = static_cast<double>(layout.shard_bytes) * static_cast<double>(u.count);
    if (shardBytes <= 0) continue;
    const auto fsdp = select(mesh, [&](std::size_t a) { return used(a) && mesh.data[a] && !mesh.expert[a]; });
    const auto zeroAxes = select(mesh, [&](std::size_t a) { return zero && !used(a) && mesh.zero[a]; });
    const auto reduced =
        select(mesh, [&](std::size_t a) { return !used(a) && mesh.data[a] && !(zero && mesh.zero[a]); });
    if (!fsdp.empty()) {
      double gathered = shardBytes;
      for (int a : fsdp) gathered *= static_cast<double>(mesh.size[static_cast<std::size_t>(a)]);
      out.add(fsdp, Collective::AllGather, "fsdp_weights", Phase::FwdEach, m * gathered, m * layers);
      out.add(fsdp, Collective::AllGather, "fsdp_weights", Phase::BwdEach, m * gathered, m * layers);
      out.add(fsdp, Collective::ReduceScatter, "fsdp_grads", Phase::BwdEach, m * gathered * gradScale, m * layers);
    }
    const double gradBytes = shardBytes * gradScale;
    out.add(reduced, Collective::AllReduce, "dp_grads", Phase::BwdLast, gradBytes, layers);
    if (o.zero_stage >= 2)
      out.add(zeroAxes, Collective::ReduceScatter, "zero_grads", Phase::BwdEach, m * gradBytes, m * layers);
    else
      out.add(zeroAxes, Collective::ReduceScatter, "zero_grads", Phase::BwdLast, gradBytes, layers);
    out.add(zeroAxes, Collective::AllGather, "zero_weights", Phase::FwdFirst, shardBytes, layers);
    if (u.role != ParamRole::None)
      for (int a : select(mesh, [&](std::size_t a) { return used(a) && !mesh.data[a] && !mesh.expert[a]; })) {
        auto& list = blockAxes[static_cast<std::size_t>(u.role)];
        if (std::find(list.begin(), list.end(), a) == list.end()) list.push_back(a);
      }
  }

  // Activations of tensor-parallel blocks: [tokens, hidden] per collective.
  const double activation = mesh.tokens_local * arch.hidden * o.activation_bytes;
  const Phase fwdPhase = o.overlap_tensor_comm ? Phase::FwdEach : Phase::Critical;
  const Phase bwdPhase = o.overlap_tensor_comm ? Phase::BwdEach : Phase::Critical;
  const bool gatherScatter = o.sequence_parallel || o.framework == Framework::MaxText;
  const auto tensorPair = [&](const std::vector<int>& axes, double blocks) {
    if (axes.empty() || blocks <= 0) return;
    const double calls = m * blocks;
    if (gatherScatter) {
      for (Phase phase : {fwdPhase, bwdPhase}) {
        out.add(axes, Collective::AllGather, "tp_activations", phase, calls * activation, calls, true);
        out.add(axes, Collective::ReduceScatter, "tp_activations", phase, calls * activation, calls, true);
      }
    } else {
      out.add(axes, Collective::AllReduce, "tp_activations", fwdPhase, calls * activation, calls, true);
      out.add(axes, Collective::AllReduce, "tp_activations", bwdPhase, calls * activation, calls, true);
    }
  };
  const auto& roles = *in.roles;
  const double moeLayers = static_cast<double>(roles.moe_layers);
  const double denseMlpLayers = std::max(0.0, layers - moeLayers) + (arch.shared_experts ? moeLayers : 0.0);
  auto attentionAxes = blockAxes[static_cast<std::size_t>(ParamRole::Attention)];
  const auto& mlpAxes = blockAxes[static_cast<std::size_t>(ParamRole::Mlp)];
  if (arch.parallel_block && moeLayers == 0) {
    // One reduction per layer for both blocks, over every axis either splits.
    for (int a : mlpAxes)
      if (std::find(attentionAxes.begin(), attentionAxes.end(), a) == attentionAxes.end()) attentionAxes.push_back(a);
    tensorPair(attentionAxes, layers);
  } else {
    tensorPair(attentionAxes, layers);
    tensorPair(mlpAxes, denseMlpLayers);
  }
  tensorPair(blockAxes[static_cast<std::size_t>(ParamRole::RoutedExpert)], moeLayers);
  // Vocabulary-parallel output layer and embedding: one collective of [tokens, hidden] per pass
  // that needs it (the logits stay split; the loss reduces only per-token statistics).
  auto vocabAxes = blockAxes[static_cast<std::size_t>(ParamRole::Output)];
  if (roles.tied_output)
    for (int a : blockAxes[static_cast<std::size_t>(ParamRole::Embedding)])
      if (std::find(vocabAxes.begin(), vocabAxes.end(), a) == vocabAxes.end()) vocabAxes.push_back(a);
  if (!vocabAxes.empty()) {
    if (gatherScatter) out.add(vocabAxes, Collective::AllGather, "tp_activations", fwdPhase, m * activation, m, true);
    out.add(vocabAxes, gatherScatter ? Collective::ReduceScatter : Collective::AllReduce, "tp_activations", bwdPhase,
            m * activation, m, true);
  }
  const auto& embedAxes = blockAxes[static_cast<std::size_t>(ParamRole::Embedding)];
  if (!embedAxes.empty())
    out.add(embedAxes, gatherScatter ? Collective::ReduceScatter : Collective::AllReduce, "tp_activations", fwdPhase,
            m * activation, m, true);

  // Expert parallelism: every token's hidden state goes to k experts and comes back.
  if (moeLayers > 0) {
    const auto dispatch = select(mesh, [&](std::size_t a) { return mesh.expert[a] && mesh.data[a]; });
    const auto combine = select(mesh, [&](std::size_t a) { return mesh.expert[a] && !mesh.data[a]; });
    if (!dispatch.empty()) {
      double ways = 1;
      for (int a : dispatch) ways *= static_cast<double>(mesh.size[static_cast<std::size_t>(a)]);
      const double buffer = activation * std::max(1.0, arch.experts_per_token);
      const double calls = 4 * m * moeLayers; // dispatch and combine, forward and backward
      out.add(dispatch, Collective::AllToAll, "ep_tokens", Phase::Critical, calls * buffer * ways, calls, true);
    }
    if (!combine.empty()) {
      const double calls = 2 * m * moeLayers;
      out.add(combine, Collective::AllReduce, "ep_combine", Phase::Critical, calls * activation, calls, true);
    }
  }

  // Context parallelism: keys and values of the local tokens, gathered over the sequence axes.
  const auto seqAxes = select(mesh, [&](std::size_t a) { return mesh.seq[a]; });
  if (!seqAxes.empty()) {
    double ways = 1;
    for (int a : seqAxes) ways *= static_cast<double>(mesh.size[static_cast<std::size_t>(a)]);
    const double perToken =
        arch.mla ? arch.kv_dim
                 : 2 * std::ceil(static_cast<double>(arch.kv_heads) / work.attention_split) * arch.head_dim;
    const double gathered = mesh.tokens_local * perToken * o.activation_bytes * ways;
    const double calls = m * layers;
    if (o.context_attention == ContextAttention::Ring) {
      // Each chip passes its chunk on ways - 1 times: the bytes of an all-gather of the whole, on
      // the same ring, priced so. The backward passes K and V round again with their gradients
      // (twice the bytes); a policy that re-runs the attention core passes K and V once more.
      const double backward = work.rerun_attention ? 3.0 : 2.0;
      out.add(seqAxes, Collective::AllGather, "cp_kv_ring", Phase::FwdEach, calls * gathered, calls, true);
      out.add(seqAxes, Collective::AllGather, "cp_kv_ring", Phase::BwdEach, backward * calls * gathered, calls, true);
    } else {
      out.add(seqAxes, Collective::AllGather, "cp_kv", Phase::Critical, calls * gathered, calls, true);
      out.add(seqAxes, Collective::ReduceScatter, "cp_kv", Phase::Critical, calls * gathered, calls, true);
    }
  }
}

} // namespace shardscope::step
