// SPDX-License-Identifier: Apache-2.0
// Colour scales shared by every view, so a group or a shard has the same colour everywhere.
#pragma once

#include "shardscope/step/step_time.hpp"

#include <QColor>

namespace shardscope::ui {

// Distinct colours for categories (groups, hosts, shards): a fixed qualitative set, then
// golden-angle hues beyond it.
QColor categoricalColor(int index);
// Ordered values in [0, 1] (a coordinate along an axis): viridis-like, dark to bright.
QColor sequentialColor(double t);
// Load in [0, 1] (memory against HBM): green through yellow to red; above 1 is over capacity.
QColor heatColor(double t);
// Communication of one mesh axis (index in mesh order): warm colours, so it never reads as work
// (the Step bar, the step player and the collectives drawn on the physical view agree).
QColor commColor(int axisIndex);
// Work (compute) in the step bar and the step player.
QColor computeColor();
// Each part of a step (core's StepPart) in one colour, wherever a step is drawn: the Step bar, the
// step player and the played step on the physical view. A communication part takes its axis'
// colour (commColor of the axis index in mesh order).
QColor stepPartColor(StepPart part, int axisIndex = 0);
// A pipeline rank's backward task: the compute colour, darker.
QColor backwardColor();
// The memory categories as the memory chart stacks them (and the Play dock's memory lane fills
// its activations).
enum class MemoryPart { Parameters, Gradients, Optimizer, Activations, KvCache };
QColor memoryPartColor(MemoryPart part);

} // namespace shardscope::ui
