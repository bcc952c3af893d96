// SPDX-License-Identifier: Apache-2.0
#include "views/view_selection.hpp"

namespace shardscope::ui {

QString overlayModeName(OverlayMode mode) {
  switch (mode) {
  case OverlayMode::Coordinate:
    return QObject::tr("Coordinate along axis");
  case OverlayMode::Group:
    return QObject::tr("Group along axis");
  case OverlayMode::Process:
    return QObject::tr("Process (host)");
  case OverlayMode::Memory:
    return QObject::tr("Memory use vs HBM");
  case OverlayMode::Shard:
    return QObject::tr("Shard of selected parameter");
  case OverlayMode::Pipeline:
    return QObject::tr("Pipeline rank (MPMD group)");
  }
  return {};
}

void ViewSelection::setDevice(int pos) {
  if (!devices_.empty()) {
    devices_.clear();
    emit devicesChanged();
    if (pos == device_) emit changed();
  }
  if (pos == device_) return;
  device_ = pos;
  emit deviceChanged(pos);
  emit changed();
}

void ViewSelection::setAxis(int axis) {
  if (axis == axis_) return;
  axis_ = axis;
  emit axisChanged(axis);
  emit changed();
}

void ViewSelection::setShowUnitAxes(bool show) {
  if (show == showUnitAxes_) return;
  showUnitAxes_ = show;
  emit changed();
}

void ViewSelection::setMode(OverlayMode mode) {
  if (mode == mode_) return;
  mode_ = mode;
  emit modeChanged(mode);
  emit changed();
}

void ViewSelection::setParam(const QString& path) {
  if (path == param_) return;
  param_ = path;
  emit paramChanged(path);
  emit changed();
}

void ViewSelection::setDevices(std::vector<int> positions) {
  if (positions == devices_) return;
  devices_ = std::move(positions);
  emit devicesChanged();
  emit changed();
}

void ViewSelection::setDecoded(std::shared_ptr<const DecodedSharding> decoded) {
  if (decoded == decoded_) return;
  decoded_ = std::move(decoded);
  emit decodedChanged();
  emit changed();
}

void ViewSelection::setPlayTime(double seconds) {
  if (!(seconds >= 0)) seconds = -1; // negative or NaN: not playing
  if (seconds == playTime_) return;
  playTime_ = seconds;
  emit playTimeChanged(playTime_);
}

} // namespace shardscope::ui
