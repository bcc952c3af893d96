// SPDX-License-Identifier: Apache-2.0
// One instant of a played step drawn over the physical view (the app's player, `render --at` and
// `--animate`): chips filled as far as their pass' compute has got (dimmed while they wait on
// exposed communication), every running collective's rings on the axis' own groups in ring order,
// with the chunks in flight between ring neighbours at the hop the collective has reached, and a
// caption saying what runs. Everything comes from Analysis::step.timeline (core's
// step/step_playback.hpp); nothing here decides a time.
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QRectF>
#include <QFontMetrics>
#include <QLineF>
#include <QString>

#include <functional>
#include <vector>

class QPainter;

namespace shardscope {
class MeshIndex;
} // namespace shardscope

namespace shardscope::ui {

// Beyond this many ring links in view at once, chunks are not drawn (the rings are, as link heat):
// a full pod's axis has thousands, which would be noise and slow a frame.
inline constexpr int kMaxAnimatedRingLinks = 2048;

// What runs at `seconds` into the step, in one line: "0.21 s of 1.24 s · forward, micro-batch 1 ·
// computing 62% · fsdp all_gather (fsdp_weights) 40%".
QString stepMomentText(const StepEstimate& step, double seconds);

// A ring edge from the chip at position `from` (drawn at `a`) to the one at `to` (at `b`), as the
// views draw it: one line, or for chips drawn more than 2.5 chips apart (z between panels, a
// wraparound) two short stubs at the chips, pointing out of the slice for a wraparound link,
// obliquely for a z hop (farLinkStub) and towards each other otherwise. The played step and a selected device's ring
// both draw these. The stub at the start of a link drawn as two stubs, for a link whose drawn direction is `unit`:
// `length` along it, backwards for a wraparound (out of the slice); for a hop along z (`zStep` +1
// towards higher z, -1 lower, 0 not a z hop) oblique instead, up and to the right towards +z, so a
// z ring between panels side by side never reads as a row's x links. The end's stub is the same
// vector taken back from the end chip.
QPointF farLinkStub(QPointF unit, double length, bool wrap, int zStep);

std::vector<QLineF> ringEdgeLines(const Analysis& analysis, int from, int to, QPointF a, QPointF b,
                                  double pixelsPerChip);

// The rings every mesh axis' collectives run on, as the cost form prices them (core's
// collectiveRings): each group in ring order, or on a group over several whole wrapped physical
// dimensions one ring per line along each of them. Built once per analysis, not per frame.
using AxisRings = std::vector<std::vector<std::vector<int>>>; // [axis][ring][member] device positions
AxisRings axisRingsOf(const Analysis& analysis);

// Per mesh axis, how many of its ring edges each physical link carries when all its rings run at
// once (each edge routed as the link graph routes it: dimension order on a torus), and a device
// position on each chip node. What the played step colours the links by: the sum over the axes
// whose collectives run at the instant. Built once per analysis.
struct RingLinkLoads {
  std::vector<std::vector<int>> per_axis; // [axis][link id]
  std::vector<int> node_position;         // [chip node] a device position on it, -1 for none
};
RingLinkLoads ringLinkLoadsOf(const Analysis& analysis, const AxisRings& rings);

// `chipRect(pos)`: where device position `pos` is drawn (null when not drawn); `pixelsPerChip`
// decides how much detail fits.
// `loads` (may be null): the physical links coloured by how many ring edges of the running
// collectives go through each (heat colours, the busiest at the top of the scale), under the rings.
void paintStepPlayback(QPainter& painter, const Analysis& analysis, const AxisRings& rings, const MeshIndex& index,
                       double seconds, const std::function<QRectF(int)>& chipRect, double pixelsPerChip,
                       const RingLinkLoads* loads = nullptr);
// `text` (items joined by " · ") cut to `width` pixels at whole items, never inside one: the first
// item (the time) and as many of the next as fit, then "+N more". The whole text when it fits.
QString fitMomentText(const QString& text, const QFontMetrics& metrics, int width);

// stepMomentText in a box right-aligned in `area` (cut at whole items to fit: fitMomentText);
// nothing when `area` is empty.
void paintStepCaption(QPainter& painter, const StepEstimate& step, double seconds, const QRectF& area);

} // namespace shardscope::ui
