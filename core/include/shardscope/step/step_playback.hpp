// SPDX-License-Identifier: Apache-2.0
// Playing one training step: which spans of StepEstimate::timeline run at a time t (seconds from
// the step's start), how far each has got, the next and previous instants something starts or
// ends, and how many ring steps a collective takes (the chunk hand-overs drawn on the links).
// The GUI's player, `shardscope-cli render --at` and `--animate` all read the step through these.
#pragma once

#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/step/step_time.hpp"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace shardscope {

// Where the timeline ends: time_s for an estimated step, 0 for an empty timeline.
double stepTimelineEnd(const StepEstimate& step);

// Indices into step.timeline of the spans running at t (start <= t < end; at the very end, the
// spans that end there).
std::vector<std::size_t> spansAt(const StepEstimate& step, double t);

// How far a span has got at t: 0 at its start, 1 at its end (clamped). A pulsed span counts as
// running from its first pulse's start to its last pulse's end (spansAt too): the chips show a
// pass' compute and its per-layer collectives side by side, as the eye sees them at play speed.
double spanProgress(const StepSpan& span, double t);

// A span's seconds of work: its pulses times each pulse's length (end - start for one pulse).
double spanBusy(const StepSpan& span);
// Seconds from one pulse's start to the next (0 for one pulse).
double spanPeriod(const StepSpan& span);

// The first instant after t where a span starts or ends (the timeline's end when none), and the
// last one before t (0 when none): "step to the next event".
double nextSpanEdge(const StepEstimate& step, double t);
double previousSpanEdge(const StepEstimate& step, double t);

// How every timeline ends: the optimizer update appended at `start` (when it takes any time), after
// micro-batch `lastMicrobatch`, then the spans sorted by start (stable). Used by the step engine
// and by the pipeline's timeline.
void finishTimeline(std::vector<StepSpan>& spans, double start, double optimizerSeconds, std::int64_t lastMicrobatch);

// The share of one micro-batch's activations a device holds at t (0 to 1), read from the
// whole-step compute spans (rank -1): rising through a forward pass as its layers keep their
// activations, held until the backward starts, falling through the backward as they are freed. A
// span that merges k identical passes rises (or falls) k times. 0 before the first pass, and
// under a pipeline (its ranks' memory profiles hold the micro-batches in flight).
double activationShareAt(const StepEstimate& step, double t);

// Ring steps a collective takes over `ranks` devices: p - 1 hand-overs for an all-gather, a
// reduce-scatter or an all-to-all (as the cost form prices it), 2 (p - 1) for an all-reduce
// (a reduce-scatter then an all-gather); 0 for one device.
int ringStepsOf(Collective kind, std::int64_t ranks);

// The rings a collective over mesh axis `axis` runs on, as device positions in ring order, as the
// cost form prices it (cost/collectives.hpp). `perDimension` (a group that takes several whole
// wrapped physical dimensions: AxisComm::wraps with two or more extents above 1): one closed ring
// per line of each group along each of those dimensions (the members that share every other
// coordinate, by their coordinate along it), all running at once, the V / (W n_axes) form.
// Otherwise each group of the axis in mesh order, one ring. Empty for an axis not in the mesh.
std::vector<std::vector<int>> collectiveRings(const Mesh& mesh, int axis, bool perDimension);

} // namespace shardscope
