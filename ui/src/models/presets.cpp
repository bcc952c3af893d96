// SPDX-License-Identifier: Apache-2.0
#include "models/presets.hpp"

#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <QObject>

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
  return {"dp", "fsdp", "fsdp+tp", "dp+fsdp+tp", "MaxText (data, fsdp, tensor)", "ep+tp", "sp+tp", "pipeline+fsdp+tp"};
}

QString meshPresetDescription(const QString& name) {
  if (name == "dp") return QObject::tr("Pure data parallelism: one axis over every chip.");
  if (name == "fsdp") return QObject::tr("Fully sharded data parallelism: parameters sharded over every chip.");
  if (name == "fsdp+tp") return QObject::tr("FSDP over the rest, tensor parallelism over 4 chips.");
  if (name == "dp+fsdp+tp") return QObject::tr("The default: dp 2, fsdp over the rest, tp 4.");
  if (name.startsWith("MaxText"))
    return QObject::tr("MaxText's ici_data/ici_fsdp/ici_tensor layout; data spans slices.");
  if (name == "ep+tp") return QObject::tr("Expert parallelism over the rest, tensor parallelism over 4 chips.");
  if (name == "sp+tp") return QObject::tr("Sequence parallelism over the rest, tensor parallelism over 4 chips.");
  if (name.startsWith("pipeline")) return QObject::tr("Pipeline stages across slices (or 2 stages), fsdp, tp 4.");
  return {};
}

std::vector<MeshAxis> meshPresetAxes(const QString& name, int slices) {
  // DCN: a data-like axis takes the slices; everything else stays inside a slice.
  const std::int64_t s = std::max(1, slices);
  if (name == "dp") return {{"dp", -1, s}};
  if (name == "fsdp") return {{"fsdp", -1, s}};
  if (name == "fsdp+tp") return {{"fsdp", -1, s}, {"tp", 4, 1}};
  if (name == "dp+fsdp+tp") return {{"dp", 2, s}, {"fsdp", -1, 1}, {"tp", 4, 1}};
  if (name.startsWith("MaxText")) return {{"data", 1, s}, {"fsdp", -1, 1}, {"tensor", 1, 1}};
  if (name == "ep+tp") return {{"dp", 1, s}, {"ep", -1, 1}, {"tp", 4, 1}};
  if (name == "sp+tp") return {{"dp", 1, s}, {"sp", -1, 1}, {"tp", 4, 1}};
  if (name.startsWith("pipeline")) {
    if (s > 1) return {{"pp", 1, s}, {"fsdp", -1, 1}, {"tp", 4, 1}};
    return {{"pp", 2, 1}, {"fsdp", -1, 1}, {"tp", 4, 1}};
  }
  return {{"dp", -1, s}};
}

} // namespace shardscope::ui
