// SPDX-License-Identifier: Apache-2.0
// Collective prices for the step estimate: each axis' ring figures (axis_report.hpp) with the
// calibration applied (achievable fraction of link bandwidth, per-hop latency), priced in the one
// cost form of collectives.hpp. Also the order in which a collective over several axes crosses
// them (slowest axis with the smallest payload) and the bytes each device moves.
#include "step_internal.hpp"

#include <algorithm>
#include <limits>

namespace shardscope::step {

namespace {

// The calibration on one ring and on the levels of an axis over slices.
void calibrate(RingCostInputs& in, const AxisReport& report, const StepCalibration& calibration, double linkLatency) {
  in.ring_bandwidth *= calibration.link_fraction.value;
  in.bidi_ring_bandwidth *= calibration.link_fraction.value;
  in.link_bandwidth *= calibration.link_fraction.value;
  in.pairwise_bandwidth *= calibration.link_fraction.value;
  // The per-hop latency replaces the link figure on ICI / NVLink; fabric hops keep theirs.
  if (!report.uses_fabric && linkLatency > 0) {
    in.step_latency *= calibration.hop_latency.value / linkLatency;
    in.ring_latency *= calibration.hop_latency.value / linkLatency;
    in.pairwise_latency *= calibration.hop_latency.value / linkLatency;
  }
  for (std::size_t i = 0; i < in.levels.size() && i < report.levels.size(); ++i)
    calibrate(in.levels[i], report.levels[i], calibration, linkLatency);
}

void dropLatency(RingCostInputs& in) {
  in.step_latency = 0;
  in.ring_latency = 0;
  in.pairwise_latency = 0;
  for (auto& level : in.levels) dropLatency(level);
}

} // namespace

AxisPricing priceAxes(std::span<const AxisReport> axes, const StepCalibration& calibration, double linkLatency) {
  AxisPricing out;
  constexpr double probe = 1e9; // bytes: large enough that latency does not matter
  for (const auto& report : axes) {
    RingCostInputs raw = ringCostInputs(report);
    RingCostInputs priced = raw;
    dropLatency(raw);
    const double rawSeconds = collectiveSeconds(Collective::AllGather, probe, raw);
    out.raw_bandwidth.push_back(rawSeconds > 0 ? probe / rawSeconds : 0.0);
    calibrate(priced, report, calibration, linkLatency);
    out.seconds_per_byte.push_back(collectiveSeconds(Collective::AllGather, probe, priced) / probe);
    out.inputs.push_back(priced);
  }
  return out;
}

std::vector<int> slowestFirst(std::vector<int> axes, const AxisPricing& pricing) {
  std::stable_sort(axes.begin(), axes.end(), [&](int a, int b) {
    return pricing.seconds_per_byte[static_cast<std::size_t>(a)] >
           pricing.seconds_per_byte[static_cast<std::size_t>(b)];
  });
  return axes;
}

void priceBuckets(std::vector<Bucket>& buckets, const MeshRoles& mesh, const AxisPricing& pricing) {
  for (auto& b : buckets) {
    const auto axis = static_cast<std::size_t>(b.axis);
    const double p = static_cast<double>(mesh.size[axis]);
    const double calls = std::max(1.0, b.calls);
    b.seconds = calls * collectiveSeconds(b.kind, b.payload / calls, pricing.inputs[axis]);
    const double share = (p - 1) / p;
    switch (b.kind) {
    case Collective::AllGather:
    case Collective::ReduceScatter:
      b.bytes = share * b.payload;
      break;
    case Collective::AllReduce:
      b.bytes = 2 * share * b.payload;
      break;
    case Collective::AllToAll:
      b.bytes = share * b.payload / p; // each rank sends (p-1)/p of its own buffer
      break;
    }
  }
}

} // namespace shardscope::step
