// SPDX-License-Identifier: Apache-2.0
// The names the pickers offer, from core's lists (model presets, rule presets) plus the GUI's own
// logical-mesh layouts.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QString>
#include <QStringList>

namespace shardscope::ui {

QStringList modelPresetNames();
QStringList rulePresetNames();
// A rule preset's one-line description (tooltip), empty when unknown.
QString rulePresetDescription(const QString& name);

// The logical-mesh presets of core (analysis/mesh_presets.hpp) for the pickers.
QStringList meshPresetNames();
QString meshPresetDescription(const QString& name);
// The axes of a preset on `slices` slices (core's meshPresetAxes; ValueError for an unknown name).
std::vector<MeshAxis> meshPresetAxes(const QString& name, int slices);

} // namespace shardscope::ui
