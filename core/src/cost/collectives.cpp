// SPDX-License-Identifier: Apache-2.0
// The two cost models of the hardware-memory-comm spec §3, applied to an axis report.
#include "shardscope/cost/collectives.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <limits>

namespace shardscope {

std::string_view collectiveName(Collective c) { return nameOf(c, kCollectiveNames); }

RingCostInputs ringCostInputs(const AxisReport& report) {
  RingCostInputs in;
  in.p = report.size;
  in.step_latency = report.step_latency;
  in.ring_latency = report.ring_latency;
  in.max_hops = std::max(1, report.max_hops);
  in.ring_bandwidth = report.ring_bandwidth;
  in.bidi_ring_bandwidth = report.bidi_ring_bandwidth;
  in.physical_axes = std::max(1, report.physical_axes);
  in.physical_extent_sum = std::max<int>(1, report.physical_extent_sum);
  in.ring_closed = report.ring_closed;
  in.wraps = report.wraps;
  in.torus = report.torus;
  in.extents = report.extents;
  in.extent_wraps = report.extent_wraps;
  in.link_bandwidth = report.link_bandwidth;
  in.pairwise = report.a2a_pairwise;
  in.pairwise_bandwidth = report.a2a_bandwidth;
  in.pairwise_latency = report.a2a_latency;
  for (const auto& level : report.levels) in.levels.push_back(ringCostInputs(level));
  return in;
}

namespace {

// All-gather over a group spanning several physical dimensions, one dimension after the other:
// the open segments first, with the smallest payload, then the whole wrapped dimensions. Infinite
// when it does not apply (fewer than two dimensions, no link figure).
double stagedAllGather(double bytes, const RingCostInputs& in, double hop) {
  int spanned = 0;
  for (int e : in.extents) spanned += e > 1 ? 1 : 0;
  if (spanned < 2 || !(in.link_bandwidth > 0)) return std::numeric_limits<double>::infinity();
  std::array<int, 3> order{0, 1, 2};
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) { return !in.extent_wraps[a] && in.extent_wraps[b]; });
  const double p = static_cast<double>(in.p);
  double gathered = 1, total = 0;
  for (int d : order) {
    const double e = static_cast<double>(in.extents[static_cast<std::size_t>(d)]);
    if (e <= 1) continue;
    gathered *= e;
    const double payload = bytes * gathered / p;
    if (in.extent_wraps[static_cast<std::size_t>(d)])
      total += std::max(hop * e / 2.0, payload / (2.0 * in.link_bandwidth));
    else
      total += std::max(hop * (e - 1), (e - 1) / e * payload / in.link_bandwidth);
  }
  return total;
}

// All-gather time on the torus (scaling book): a closed ring sends half the shards each way, an
// open one (no wraparound, or a segment of a split axis) passes every shard along one direction.
double torusAllGather(double bytes, const RingCostInputs& in) {
  const double p = static_cast<double>(in.p);
  const double hop = in.step_latency / std::max(1, in.max_hops); // T_min of the book
  // Two devices exchange halves over one link, one direction each: the open form is exact (the
  // closed forms drop the book's (p-1)/p, which is 1/2 here).
  if (in.p == 2) return std::max(hop, in.ring_bandwidth > 0 ? bytes / 2 / in.ring_bandwidth : 0.0);
  if (in.wraps) {
    const double bw = in.bidi_ring_bandwidth > 0 ? bytes / (in.bidi_ring_bandwidth * in.physical_axes) : 0.0;
    return std::max(hop * in.physical_extent_sum / 2.0, bw);
  }
  if (in.ring_closed) {
    const double bw = in.bidi_ring_bandwidth > 0 ? bytes / in.bidi_ring_bandwidth : 0.0;
    return std::max(hop * p / 2.0, bw);
  }
  const double bw = in.ring_bandwidth > 0 ? (p - 1) / p * bytes / in.ring_bandwidth : 0.0;
  return std::min(std::max(hop * (p - 1), bw), stagedAllGather(bytes, in, hop));
}

} // namespace

CollectiveTime collectiveTime(Collective c, double bytes, const RingCostInputs& in) {
  if (!(bytes >= 0) || !std::isfinite(bytes)) throwValueError("collective cost: bytes must be a finite number >= 0");
  CollectiveTime t;
  if (in.p <= 1 || bytes == 0) return t;
  if (in.levels.size() == 2 && c != Collective::AllToAll && in.levels[0].p > 0) {
    // In the slice over the whole array, across slices over the in-slice shard of it.
    const CollectiveTime slice = collectiveTime(c, bytes, in.levels[0]);
    const CollectiveTime across = collectiveTime(c, bytes / static_cast<double>(in.levels[0].p), in.levels[1]);
    t.alpha_beta = slice.alpha_beta + across.alpha_beta;
    t.tpu_form = slice.tpu_form + across.tpu_form;
    t.seconds = slice.seconds + across.seconds;
    return t;
  }
  // A ring whose members all share one chip moves nothing over links: no bandwidth limit.
  const double p = static_cast<double>(in.p);
  const double frac = (p - 1) / p;
  const double bwTerm = in.ring_bandwidth > 0 ? frac * bytes / in.ring_bandwidth : 0.0;
  // Every step at its own route's latency: a ring over 8-GPU nodes pays the network's latency on
  // 1 step in 8, not on all p - 1 (which made FSDP over hundreds of GPUs latency-bound).
  const double ag = (in.ring_latency > 0 ? in.ring_latency : (p - 1) * in.step_latency) + bwTerm;
  const double tpuAg = torusAllGather(bytes, in);
  const bool closed = in.wraps || in.ring_closed;
  switch (c) {
  case Collective::AllGather:
  case Collective::ReduceScatter:
    t.alpha_beta = ag;
    t.tpu_form = tpuAg;
    break;
  case Collective::AllReduce:
    t.alpha_beta = 2 * ag;
    t.tpu_form = 2 * tpuAg;
    break;
  case Collective::AllToAll:
    if (in.pairwise) {
      // Every ordered pair's chunk (bytes / p^2) at once on its route; the busiest link sets the pace.
      t.alpha_beta = in.pairwise_bandwidth > 0 ? in.pairwise_latency + bytes / (p * p) / in.pairwise_bandwidth : 0.0;
      t.tpu_form = t.alpha_beta;
      break;
    }
    // Each rank sends (p-1)/p of its own buffer (bytes / p), all at once through a switch.
    t.alpha_beta = (p - 1) * in.step_latency + bwTerm / p;
    // On a torus each rank's buffer travels a quarter of every wrapped axis on average, over the
    // 2 n_axes directions of its links: (V/p) sum|X_i| / (4 n_axes W), the book's AG/4 on one ring.
    if (in.wraps && in.p > 2)
      t.tpu_form = std::max(in.step_latency / std::max(1, in.max_hops) * in.physical_extent_sum / 2.0,
                            in.bidi_ring_bandwidth > 0
                                ? bytes / p * in.physical_extent_sum / (4.0 * in.physical_axes * in.bidi_ring_bandwidth)
                                : 0.0);
    else
      t.tpu_form = tpuAg / (closed ? 4.0 : 2.0);
    break;
  }
  t.seconds = in.torus ? t.tpu_form : t.alpha_beta;
  return t;
}

double collectiveSeconds(Collective c, double bytes, const RingCostInputs& in) {
  return collectiveTime(c, bytes, in).seconds;
}

CollectiveTime collectiveTime(Collective c, double bytes, const AxisReport& report) {
  return collectiveTime(c, bytes, ringCostInputs(report));
}

FsdpCommCost fsdpCommCost(const AxisReport& report, double layerParamBytes, double layerGradBytes, int layers) {
  if (layers < 0) throwValueError("fsdp cost: layers must be >= 0");
  FsdpCommCost f;
  const auto in = ringCostInputs(report);
  const auto ag = collectiveTime(Collective::AllGather, layerParamBytes, in);
  const auto rs = collectiveTime(Collective::ReduceScatter, layerGradBytes, in);
  const double frac = in.p > 1 ? static_cast<double>(in.p - 1) / static_cast<double>(in.p) : 0.0;
  f.layer_all_gather_seconds = ag.alpha_beta;
  f.layer_reduce_scatter_seconds = rs.alpha_beta;
  f.bytes_received_per_device_all_gather = frac * layerParamBytes;
  f.bytes_sent_per_device_reduce_scatter = frac * layerGradBytes;
  f.step_bytes_per_device =
      layers * (2 * f.bytes_received_per_device_all_gather + f.bytes_sent_per_device_reduce_scatter);
  f.step_seconds = layers * (2 * ag.alpha_beta + rs.alpha_beta);
  f.step_seconds_tpu_form = layers * (2 * ag.tpu_form + rs.tpu_form);
  f.step_seconds_priced = layers * (2 * ag.seconds + rs.seconds);
  return f;
}

} // namespace shardscope
