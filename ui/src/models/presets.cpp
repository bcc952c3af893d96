// SPDX-License-Identifier: Apache-2.0
#include "models/presets.hpp"

#include "shardscope/analysis/mesh_presets.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/models/model_loaders.hpp"

namespace shardscope::ui {

QStringList modelPresetNames() {
  QStringList names;
  try {
    for (const auto& name : presetModelNames()) names << QString::fromStdString(name);
  } catch (const std::exception&) {
    // No resources folder (e.g. a build tree moved away): the picker still offers "Open model…".
  }
  return names;
}

QStringList rulePresetNames() {
  QStringList names;
  for (const auto& preset : rulePresets()) names << QString::fromStdString(preset.name);
  return names;
}

QString rulePresetDescription(const QString& name) {
  for (const auto& preset : rulePresets())
    if (QString::fromStdString(preset.name) == name) return QString::fromStdString(preset.description);
  return {};
}

QStringList meshPresetNames() {
  QStringList names;
  for (const auto& preset : meshPresets())
    names << QString::fromUtf8(preset.name.data(), qsizetype(preset.name.size()));
  return names;
}

QString meshPresetDescription(const QString& name) {
  for (const auto& preset : meshPresets())
    if (QString::fromUtf8(preset.name.data(), qsizetype(preset.name.size())) == name)
      return QString::fromUtf8(preset.description.data(), qsizetype(preset.description.size()));
  return {};
}

std::vector<MeshAxis> meshPresetAxes(const QString& name, int slices) {
  return shardscope::meshPresetAxes(name.toStdString(), slices);
}

} // namespace shardscope::ui
