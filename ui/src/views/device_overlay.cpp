// SPDX-License-Identifier: Apache-2.0
#include "views/device_overlay.hpp"

#include "views/color_scales.hpp"

#include "shardscope/base/units.hpp"

#include <QObject>

#include <algorithm>

namespace shardscope::ui {

// Thin wrappers: the text comes from core's one formatter (base/units.hpp).
QString formatBytes(double bytes) { return QString::fromStdString(shardscope::formatBytes(bytes)); }

QString formatSeconds(double seconds) { return QString::fromStdString(shardscope::formatSeconds(seconds, "µs")); }

QString formatPercent(double fraction) { return QString::fromStdString(shardscope::formatPercent(fraction)); }

DeviceOverlay computeOverlay(const Analysis* analysis, const MeshIndex& index, OverlayMode mode, int axis,
                             const QString& param, const DecodedSharding* decoded) {
  DeviceOverlay out;
  const int n = index.deviceCount();
  const QColor none(0xb4b4b4);
  out.colors.assign(static_cast<std::size_t>(n), none);
  if (!analysis || n == 0) return out;
  const bool axisOk = axis >= 0 && axis < index.axisCount();
  const QString axisName =
      axisOk ? QString::fromStdString(index.axisNames()[static_cast<std::size_t>(axis)]) : QString();

  switch (mode) {
  case OverlayMode::Coordinate: {
    if (!axisOk) break;
    const int size = static_cast<int>(index.shape()[static_cast<std::size_t>(axis)]);
    for (int p = 0; p < n; ++p) {
      const int c = index.coordinate(p, axis);
      if (c >= 0)
        out.colors[static_cast<std::size_t>(p)] =
            size <= 12 ? categoricalColor(c) : sequentialColor(size > 1 ? double(c) / (size - 1) : 0.0);
    }
    out.legend = {size <= 12 ? OverlayLegend::Scale::Categorical : OverlayLegend::Scale::Sequential,
                  QObject::tr("Coordinate along '%1' (size %2)").arg(axisName).arg(size), "0",
                  QString::number(size - 1), size};
    break;
  }
  case OverlayMode::Group: {
    if (!axisOk) break;
    for (int p = 0; p < n; ++p) out.colors[static_cast<std::size_t>(p)] = categoricalColor(index.groupId(p, axis));
    out.legend = {OverlayLegend::Scale::Categorical,
                  QObject::tr("%1 groups along '%2' (devices in one group run its collectives)")
                      .arg(index.groupCount(axis))
                      .arg(axisName),
                  {},
                  {},
                  std::min(index.groupCount(axis), 12)};
    break;
  }
  case OverlayMode::Process: {
    int hosts = 0;
    for (int p = 0; p < n; ++p) {
      const int proc = analysis->mesh.devices[static_cast<std::size_t>(p)].process_index;
      hosts = std::max(hosts, proc + 1);
      out.colors[static_cast<std::size_t>(p)] = categoricalColor(proc);
    }
    out.legend = {
        OverlayLegend::Scale::Categorical, QObject::tr("%1 processes (hosts)").arg(hosts), {}, {}, std::min(hosts, 12)};
    break;
  }
  case OverlayMode::Memory: {
    const auto& mem = analysis->memory;
    if (mem.per_device.size() != static_cast<std::size_t>(n) || mem.hbm_bytes <= 0) {
      out.legend = {
          OverlayLegend::Scale::None, QObject::tr("No memory estimate yet (the memory engine has not run)"), {}, {}, 0};
      break;
    }
    for (int p = 0; p < n; ++p)
      out.colors[static_cast<std::size_t>(p)] =
          heatColor(mem.per_device[static_cast<std::size_t>(p)].total() / mem.hbm_bytes);
    out.legend = {OverlayLegend::Scale::Heat,
                  QObject::tr("Memory per device against HBM (%1)").arg(formatBytes(mem.hbm_bytes)), "0",
                  formatBytes(mem.hbm_bytes), 0};
    break;
  }
  case OverlayMode::Shard: {
    if (decoded) {
      // Block b's holders are grid positions; the views colour device positions.
      const auto& grid = analysis->mesh.grid.data();
      const auto& blocks = decoded->blocks.blocks;
      const auto shards = static_cast<int>(blocks.size());
      for (std::size_t b = 0; b < blocks.size(); ++b)
        for (const auto g : blocks[b].positions)
          if (g >= 0 && static_cast<std::size_t>(g) < grid.size() && grid[static_cast<std::size_t>(g)] < n)
            out.colors[static_cast<std::size_t>(grid[static_cast<std::size_t>(g)])] =
                shards <= 1 ? QColor(0x8fa8c8) : categoricalColor(static_cast<int>(b));
      out.legend = {OverlayLegend::Scale::Categorical,
                    QObject::tr("%1 on %2: %3 shard(s) × %4 replica(s)")
                        .arg(decoded->text, QString::fromStdString(shapeRepr(decoded->shape)))
                        .arg(shards)
                        .arg(decoded->blocks.layout.replication),
                    {},
                    {},
                    std::min(shards, 12)};
      break;
    }
    const auto found = analysis->params.find(param.toStdString());
    if (!found) {
      out.legend = {OverlayLegend::Scale::None,
                    analysis->params.empty()
                        ? QObject::tr("No parameters yet (the sharding engine has not run)")
                        : QObject::tr("Select a parameter in the Sharding panel to see its shards"),
                    {},
                    {},
                    0};
      break;
    }
    const ParamRow row = analysis->params[*found];
    const int shards = index.shardCount(row.spec);
    const QString spec = QString::fromStdString(row.spec.toString());
    for (int p = 0; p < n; ++p)
      out.colors[static_cast<std::size_t>(p)] =
          shards <= 1 ? QColor(0x8fa8c8) : categoricalColor(index.shardId(p, row.spec));
    out.legend = {OverlayLegend::Scale::Categorical,
                  shards <= 1 ? QObject::tr("%1 %2: replicated on every device").arg(param, spec)
                              : QObject::tr("%1 %2: %3 shards").arg(param, spec).arg(shards),
                  {},
                  {},
                  std::min(shards, 12)};
    break;
  }
  case OverlayMode::Pipeline: {
    const auto& pipe = analysis->pipeline;
    if (!pipe || pipe->ranks.empty()) {
      out.legend = {OverlayLegend::Scale::None,
                    pipe ? QObject::tr("Pipeline: %1").arg(QString::fromStdString(pipe->error))
                         : QObject::tr("No pipeline in this workspace (turn it on in the Pipeline dock)"),
                    {},
                    {},
                    0};
      break;
    }
    for (const auto& rank : pipe->ranks)
      for (int pos : rank.device_positions)
        if (pos >= 0 && pos < n) out.colors[static_cast<std::size_t>(pos)] = categoricalColor(rank.rank);
    out.legend = {
        OverlayLegend::Scale::Categorical,
        QObject::tr("%1 pipeline ranks along '%2' (MPMD groups, %3)")
            .arg(pipe->ranks.size())
            .arg(QString::fromStdString(pipe->axis),
                 QString::fromLatin1(pipelineScheduleKindName(pipe->schedule).data(),
                                     static_cast<qsizetype>(pipelineScheduleKindName(pipe->schedule).size()))),
        {},
        {},
        std::min(static_cast<int>(pipe->ranks.size()), 12)};
    break;
  }
  }
  return out;
}

} // namespace shardscope::ui
