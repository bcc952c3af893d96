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

// A logical-mesh preset: a name and the axes it sets for the current topology.
struct MeshPreset {
  QString name;
  QString description;
};
QStringList meshPresetNames();
QString meshPresetDescription(const QString& name);
// The axes of a preset for a slice of `chipsPerSlice` chips and `slices` slices. Sizes use -1 to
// absorb the rest, so every preset fits any chip count.
std::vector<MeshAxis> meshPresetAxes(const QString& name, int slices);

} // namespace shardscope::ui
