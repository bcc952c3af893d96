// SPDX-License-Identifier: Apache-2.0
// The two cost models of spec §3, applied to an axis report.
#include "shardscope/cost/collectives.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <cmath>

namespace shardscope {

std::string_view collectiveName(Collective c) {
  switch (c) {
  case Collective::AllGather:
    return "all_gather";
  case Collective::ReduceScatter:
    return "reduce_scatter";
  case Collective::AllReduce:
    return "all_reduce";
  case Collective::AllToAll:
    return "all_to_all";
  }
  return "all_gather";
}

RingCostInputs ringCostInputs(const AxisReport& report) {
  RingCostInputs in;
  in.p = report.size;
  in.step_latency = report.step_latency;
  in.ring_bandwidth = report.ring_bandwidth;
  in.bidi_ring_bandwidth = report.bidi_ring_bandwidth;
  in.physical_axes = std::max(1, report.physical_axes);
  in.physical_extent_sum = std::max<int>(1, report.physical_extent_sum);
  in.ring_closed = report.ring_closed;
  return in;
}

CollectiveTime collectiveTime(Collective c, double bytes, const RingCostInputs& in) {
  if (!(bytes >= 0) || !std::isfinite(bytes)) throwValueError("collective cost: bytes must be a finite number >= 0");
  CollectiveTime t;
  if (in.p <= 1 || bytes == 0) return t;
  // A ring whose members all share one chip moves nothing over links: no bandwidth limit.
  const double p = static_cast<double>(in.p);
  const double frac = (p - 1) / p;
  const double bwTerm = in.ring_bandwidth > 0 ? frac * bytes / in.ring_bandwidth : 0.0;
  const double ag = (p - 1) * in.step_latency + bwTerm;
  const double tpuBw = in.bidi_ring_bandwidth > 0 ? bytes / (in.bidi_ring_bandwidth * in.physical_axes) : 0.0;
  const double tpuAg = std::max(in.step_latency * in.physical_extent_sum / 2.0, tpuBw);
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
    t.alpha_beta = ag;
    t.tpu_form = tpuAg / (in.ring_closed ? 4.0 : 2.0);
    break;
  }
  return t;
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
  return f;
}

} // namespace shardscope
