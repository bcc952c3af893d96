// The names the pickers offer. Kept in one place so they can switch to core's lists
// (presetModelNames() in model_loaders.hpp, rule preset names in logical_axes.hpp) once those land.
#pragma once

#include "shardscope/scenario.hpp"

#include <QString>
#include <QStringList>

namespace shardscope::ui {

QStringList modelPresetNames();
QStringList rulePresetNames();

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
