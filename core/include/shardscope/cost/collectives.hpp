// SPDX-License-Identifier: Apache-2.0
// Collective cost over one logical axis (hardware-memory-comm spec §3.1 classic alpha-beta ring, §3.2 TPU form), from
// the axis' ring figures (axis_report.hpp): the slowest link class it crosses, its link load and
// its per-step latency. Model-level estimates, not measurements.
#pragma once

#include "shardscope/cost/axis_report.hpp"

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

enum class Collective { AllGather, ReduceScatter, AllReduce, AllToAll };
inline constexpr std::array<std::pair<std::string_view, Collective>, 4> kCollectiveNames{{
    {"all_gather", Collective::AllGather},
    {"reduce_scatter", Collective::ReduceScatter},
    {"all_reduce", Collective::AllReduce},
    {"all_to_all", Collective::AllToAll},
}};
std::string_view collectiveName(Collective c); // the name in kCollectiveNames
inline constexpr std::array<Collective, 4> kCollectives{Collective::AllGather, Collective::ReduceScatter,
                                                        Collective::AllReduce, Collective::AllToAll};

struct CollectiveTime {
  double alpha_beta = 0; // seconds, classic ring (§3.1)
  double tpu_form = 0;   // seconds, scaling-book torus form (§3.2, §3 of step-time.md)
  double seconds = 0;    // the one price Shardscope uses: tpu_form on a TPU torus, alpha_beta elsewhere
};

// What the cost models need of an axis, separable so tests can give numbers by hand.
struct RingCostInputs {
  std::int64_t p = 1;             // ranks in the ring
  double step_latency = 0;        // alpha: seconds per ring step (the slowest neighbour route)
  double ring_latency = 0;        // alpha-beta: the p-1 steps' latency, each on its own route (0: (p-1) alpha)
  int max_hops = 1;               // hops of that route: the torus form counts latency per hop
  double ring_bandwidth = 0;      // B: per-rank bytes/s of a unidirectional ring
  double bidi_ring_bandwidth = 0; // W: bytes/s of a bidirectional ring (both directions)
  int physical_axes = 1;          // n_axes of §3.2
  int physical_extent_sum = 1;    // sum of |X_i| of §3.2
  bool ring_closed = true;        // the mesh-order ring closes on one-hop links: both directions carry data
  bool wraps = false;             // TPU: whole wrapped physical axes, a closed ring on each of them
  bool torus = false;             // TPU inside one slice: the torus form is the price
  // TPU inside one slice: the group's extent per physical dimension (0: not spanned), whether it
  // takes that dimension whole with wraparound, and the one-way bandwidth of one link.
  std::array<int, 3> extents{0, 0, 0};
  std::array<bool, 3> extent_wraps{false, false, false};
  double link_bandwidth = 0;
  // All-to-all priced pair by pair on the routes (Boardfly, AxisReport::a2a_*): a chunk (bytes / p^2)
  // crosses the busiest link at pairwise_bandwidth; pairwise_latency is the slowest route's.
  bool pairwise = false;
  double pairwise_bandwidth = 0;
  double pairwise_latency = 0;
  // An axis over slices (AxisReport::levels): the in-slice ring, then the across-slice ring.
  std::vector<RingCostInputs> levels;
};
RingCostInputs ringCostInputs(const AxisReport& report);

// `bytes` is the full (gathered / unreduced) array size, n of §3.1 and V of §3.2; for an
// all-to-all, the sum of every rank's buffer (p x what one rank holds).
//  alpha-beta: AG = RS = (p-1)a + (p-1)/p n/B;  AR = 2 AG;  A2A = (p-1)a + (p-1)/p (n/p)/B
//    (bandwidth terms are NCCL-tests' factors on a switch; the latency term is ours: p-1 steps,
//    each at its own route's latency when ring_latency is given, as NCCL's tuning model counts
//    intra-node and network steps apart; a AG/RS/AR latency term is then ring_latency for (p-1)a).
//  TPU torus form (the scaling book, sharding.md), a = step_latency / max_hops per hop:
//    whole wrapped axes: AG = RS = max(a sum|X_i|/2, V/(W n_axes))
//    other closed rings:  AG = RS = max(a p/2, V/W)
//    open rings (no wraparound, a split axis), and p = 2: AG = RS = max(a (p-1), (p-1)/p V/B),
//      or, when the group spans several physical dimensions, dimension by dimension if that is
//      cheaper: the open segments first (smallest payload), each stage gathering over its extent e
//      the payload so far (V x the extents gathered / p): a whole wrapped dimension at
//      max(a e/2, payload / (2 b)), an open segment at max(a (e-1), (e-1)/e payload / b), b one
//      link's one-way bandwidth (XLA runs a multi-dimensional collective this way)
//    AR = 2 AG;  A2A = AG/4 on a closed ring, AG/2 on an open one; over whole wrapped axes
//    max(a sum|X_i|/2, (V/p) sum|X_i| / (4 n_axes W)) (each buffer travels sum|X_i|/4 hops on
//    average over 2 n_axes link directions; AG/4 on a single ring).
// Pairwise (a Boardfly axis, in.pairwise): A2A = pairwise_latency + (V / p^2) / pairwise_bandwidth,
// every ordered pair's chunk sent at once over its shortest route (0 when no pair crosses a link).
// An axis over slices (in.levels: in-slice then across-slice) runs hierarchically, as XLA's
// multi-slice collectives do: AG = AG_dcn(V / p_ici) + AG_ici(V); RS = RS_ici(V) + RS_dcn(V / p_ici);
// AR = AR_ici(V) + AR_dcn(V / p_ici) (a reduce-scatter and an all-gather in the slice around the
// all-reduce across slices); A2A crosses as one ring.
// p == 1 or bytes == 0 costs nothing. Throws ValueError for negative or non-finite bytes.
CollectiveTime collectiveTime(Collective c, double bytes, const RingCostInputs& in);
CollectiveTime collectiveTime(Collective c, double bytes, const AxisReport& report);
// The one price (CollectiveTime::seconds), used by the step estimate, the CLI and the GUI alike.
double collectiveSeconds(Collective c, double bytes, const RingCostInputs& in);

// FSDP over one axis (ZeRO-3): every layer's parameters are all-gathered before use in the
// forward and again in the backward pass, and its gradients reduce-scattered once per step.
// Kept for the eval op `axis_report`'s `fsdp` field; the step estimate (step_time.hpp) derives
// FSDP traffic from the actual shards instead.
struct FsdpCommCost {
  double layer_all_gather_seconds = 0;             // one layer's parameters (alpha-beta)
  double layer_reduce_scatter_seconds = 0;         // one layer's gradients (alpha-beta)
  double bytes_received_per_device_all_gather = 0; // (p-1)/p of the layer's parameter bytes
  double bytes_sent_per_device_reduce_scatter = 0; // (p-1)/p of the layer's gradient bytes
  double step_bytes_per_device = 0;                // layers x (2 all-gathers + 1 reduce-scatter), bytes
  double step_seconds = 0;                         // layers x (2 all-gathers + 1 reduce-scatter)
  double step_seconds_tpu_form = 0;
  double step_seconds_priced = 0; // the same in the one price (CollectiveTime::seconds)
};
FsdpCommCost fsdpCommCost(const AxisReport& report, double layerParamBytes, double layerGradBytes, int layers);

} // namespace shardscope
