// SPDX-License-Identifier: Apache-2.0
// The step as spans in time, from the same per-pass overlap the estimate uses (passOverlap), so the
// played step and the printed step time are one model: the spans end exactly at time_s.
#include "shardscope/step/step_playback.hpp"

#include "step_internal.hpp"

#include "shardscope/sharding/mesh_index.hpp"

#include <algorithm>
#include <array>
#include <map>
#include <cmath>

namespace shardscope::step {

namespace {

// Beyond this many micro-batches the identical middle passes are one merged pass each way: a step
// of 10,000 micro-batches is still a few hundred spans.
constexpr std::int64_t kMaxPlayedMicrobatches = 64;
// At most this many slices of compute per layer, each followed by its collectives.
constexpr std::int64_t kMaxSlotsPerLayer = 4;

struct PassGroup {
  std::int64_t first = 0;
  std::int64_t repeats = 1;
};

std::vector<PassGroup> passGroups(std::int64_t m) {
  std::vector<PassGroup> groups;
  if (m <= kMaxPlayedMicrobatches) {
    for (std::int64_t i = 0; i < m; ++i) groups.push_back({i, 1});
    return groups;
  }
  return {{0, 1}, {1, m - 2}, {m - 1, 1}};
}

// How many times per layer and pass the critical-path collectives run: the most calls per layer
// and pass of any of them (two for a block's tensor-parallel all-reduces: one after attention, one
// after the MLP), at least one.
std::int64_t slotsPerLayer(const std::vector<Bucket>& buckets, std::int64_t m, std::int64_t layers) {
  std::int64_t slots = 1;
  const double passLayers = 2.0 * static_cast<double>(m) * static_cast<double>(std::max<std::int64_t>(1, layers));
  for (const auto& b : buckets)
    if (b.phase == Phase::Critical && b.seconds > 0)
      slots = std::max<std::int64_t>(slots, std::llround(b.calls / passLayers));
  return std::min(slots, kMaxSlotsPerLayer);
}

} // namespace

std::vector<StepSpan> stepTimeline(const std::vector<Bucket>& buckets, const Work& work, const MeshRoles& mesh,
                                   std::int64_t microbatches, std::int64_t layers, double optimizerSeconds) {
  const std::int64_t m = std::max<std::int64_t>(1, microbatches);
  const std::int64_t perLayer = slotsPerLayer(buckets, m, layers);
  // Critical-path collectives: each pass carries a share in proportion to its compute.
  const double allWindows = static_cast<double>(m) * (work.fwd_roofline_s + work.bwd_roofline_s);
  auto criticalShare = [&](const Bucket& b, double window) {
    if (b.phase != Phase::Critical) return 0.0;
    return allWindows > 0 ? b.seconds * window / allWindows : b.seconds / (2.0 * static_cast<double>(m));
  };
  auto comm = [&](const Bucket& b, double start, double end, const PassGroup& g, bool forward, bool exposed) {
    StepSpan s;
    s.part = StepPart::Comm;
    s.axis_index = b.axis;
    s.axis = b.axis >= 0 && static_cast<std::size_t>(b.axis) < mesh.name.size() ? mesh.name[b.axis] : std::string();
    s.kind = b.kind;
    s.purpose = b.purpose;
    s.microbatch = g.first;
    s.microbatches = g.repeats;
    s.forward = forward;
    s.exposed = exposed;
    s.start = start;
    s.end = end;
    return s;
  };
  // `slots` pulses of `busy` seconds, `period` apart, from `start`.
  auto pulse = [](StepSpan& s, double start, std::int64_t slots, double busy, double period) {
    s.start = start;
    s.pulses = slots;
    s.pulse_s = busy;
    s.end = start + static_cast<double>(slots - 1) * period + busy;
  };

  std::vector<StepSpan> spans;
  double t = 0;
  for (const PassGroup& g : passGroups(m)) {
    const double r = static_cast<double>(g.repeats);
    for (bool forward : {true, false}) {
      const bool special = forward ? g.first == 0 : g.first + g.repeats == m;
      const PassOverlap p = passOverlap(buckets, work, m, layers, forward, special);
      // The hideable traffic streams from the pass' start; compute waits for the first layer's share.
      double at = t;
      for (std::size_t i = 0; i < buckets.size(); ++i) {
        if (p.instance[i] <= 0) continue;
        spans.push_back(comm(buckets[i], at, at + p.instance[i] * r, g, forward, false));
        at += p.instance[i] * r;
      }
      const double lead = std::min(p.exposed, p.first);
      double critical = 0;
      for (const auto& b : buckets) critical += criticalShare(b, p.window);
      StepSpan compute;
      compute.part = StepPart::Compute;
      compute.microbatch = g.first;
      compute.microbatches = g.repeats;
      compute.forward = forward;
      if (critical <= 0 || layers <= 0) {
        // Compute, then what it could not hide.
        compute.start = t + lead * r;
        compute.end = compute.start + p.window * r;
        if (p.window > 0) spans.push_back(compute);
        t += (p.window + p.exposed) * r;
        continue;
      }
      // Layer by layer: each of the layer's `perLayer` slices of compute (and of the wait for
      // traffic it could not hide) is followed by its share of every critical-path collective.
      const std::int64_t slots = g.repeats * layers * perLayer;
      const double share = 1.0 / static_cast<double>(layers * perLayer);
      const double period = (p.window + p.exposed - lead + critical) * share;
      const double first = t + lead * r;
      pulse(compute, first, slots, p.window * share, period);
      if (p.window > 0) spans.push_back(compute);
      double offset = (p.window + p.exposed - lead) * share;
      for (const auto& b : buckets) {
        const double seconds = criticalShare(b, p.window);
        if (seconds <= 0) continue;
        StepSpan s = comm(b, 0, 0, g, forward, true);
        pulse(s, first + offset, slots, seconds * share, period);
        spans.push_back(s);
        offset += seconds * share;
      }
      t = first + static_cast<double>(slots) * period;
    }
  }
  finishTimeline(spans, t, optimizerSeconds, m - 1);
  return spans;
}

} // namespace shardscope::step

namespace shardscope {

void finishTimeline(std::vector<StepSpan>& spans, double start, double optimizerSeconds, std::int64_t lastMicrobatch) {
  if (optimizerSeconds > 0) {
    StepSpan update;
    update.part = StepPart::Optimizer;
    update.microbatch = lastMicrobatch;
    update.forward = false;
    update.start = start;
    update.end = start + optimizerSeconds;
    spans.push_back(update);
  }
  std::stable_sort(spans.begin(), spans.end(), [](const StepSpan& a, const StepSpan& b) { return a.start < b.start; });
}

double stepTimelineEnd(const StepEstimate& step) {
  double end = 0;
  for (const auto& s : step.timeline) end = std::max(end, s.end);
  return end;
}

std::vector<std::size_t> spansAt(const StepEstimate& step, double t) {
  std::vector<std::size_t> out;
  const double last = stepTimelineEnd(step);
  for (std::size_t i = 0; i < step.timeline.size(); ++i) {
    const StepSpan& s = step.timeline[i];
    if (s.start > t) break; // sorted by start
    // A span holds [start, end); at the step's very end the last spans still show, finished.
    if (t < s.end || (t >= last && s.end >= last)) out.push_back(i);
  }
  return out;
}

double spanBusy(const StepSpan& span) {
  if (span.pulses <= 1) return span.end - span.start;
  return static_cast<double>(span.pulses) * span.pulse_s;
}

double spanPeriod(const StepSpan& span) {
  if (span.pulses <= 1) return 0;
  return (span.end - span.start - span.pulse_s) / static_cast<double>(span.pulses - 1);
}

double spanProgress(const StepSpan& span, double t) {
  const double length = span.end - span.start;
  if (!(length > 0)) return 1.0;
  return std::clamp((t - span.start) / length, 0.0, 1.0);
}

double nextSpanEdge(const StepEstimate& step, double t) {
  double next = stepTimelineEnd(step);
  for (const auto& s : step.timeline) {
    if (s.start > t) next = std::min(next, s.start);
    if (s.end > t) next = std::min(next, s.end);
  }
  return next;
}

double previousSpanEdge(const StepEstimate& step, double t) {
  double previous = 0;
  for (const auto& s : step.timeline) {
    if (s.start < t) previous = std::max(previous, s.start);
    if (s.end < t) previous = std::max(previous, s.end);
  }
  return previous;
}

double activationShareAt(const StepEstimate& step, double t) {
  double held = 0; // after the last pass that ended by t
  for (const auto& s : step.timeline) {
    if (s.part != StepPart::Compute || s.rank >= 0 || s.start > t) continue;
    const double k = static_cast<double>(std::max<std::int64_t>(1, s.microbatches));
    if (t >= s.end) {
      held = s.forward ? 1.0 : 0.0;
      continue;
    }
    // Inside the span: which of its k passes, and how far through it.
    const double within = spanProgress(s, t) * k;
    const double part = within - std::floor(within);
    return s.forward ? part : 1.0 - part;
  }
  return held;
}

int ringStepsOf(Collective kind, std::int64_t ranks) {
  if (ranks <= 1) return 0;
  const int steps = static_cast<int>(std::min<std::int64_t>(ranks - 1, 1 << 20));
  return kind == Collective::AllReduce ? 2 * steps : steps;
}

namespace {

// The lines of one group along each physical dimension it spans: members sharing the other two
// coordinates, ordered by the coordinate along the dimension. The group itself when a member has
// no coordinates (not a TPU).
void appendDimensionLines(const Mesh& mesh, const std::vector<int>& group, std::vector<std::vector<int>>& out) {
  std::vector<std::array<int, 3>> coords;
  coords.reserve(group.size());
  for (int pos : group) {
    const auto& c = mesh.devices[static_cast<std::size_t>(pos)].coords;
    if (!c) {
      out.push_back(group);
      return;
    }
    coords.push_back(*c);
  }
  for (int d = 0; d < 3; ++d) {
    std::map<std::pair<int, int>, std::vector<std::pair<int, int>>> lines; // other coords -> (coord d, pos)
    for (std::size_t k = 0; k < group.size(); ++k) {
      const auto& c = coords[k];
      lines[{c[static_cast<std::size_t>((d + 1) % 3)], c[static_cast<std::size_t>((d + 2) % 3)]}].push_back(
          {c[static_cast<std::size_t>(d)], group[k]});
    }
    for (auto& [key, members] : lines) {
      if (members.size() < 2) continue;
      std::sort(members.begin(), members.end());
      std::vector<int> ring;
      ring.reserve(members.size());
      for (const auto& m : members) ring.push_back(m.second);
      out.push_back(std::move(ring));
    }
  }
}

} // namespace

std::vector<std::vector<int>> collectiveRings(const Mesh& mesh, int axis, bool perDimension) {
  auto groups = MeshIndex(mesh).groups(axis);
  if (!perDimension) return groups;
  std::vector<std::vector<int>> out;
  for (const auto& group : groups) appendDimensionLines(mesh, group, out);
  return out;
}

} // namespace shardscope
