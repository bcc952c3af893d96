// SPDX-License-Identifier: Apache-2.0
// What every view shows and highlights, shared so a click in one view selects everywhere: the
// selected device, the logical axis the overlays colour by, the overlay mode, the selected parameter,
// and a set of devices selected together (a pipeline rank).
#pragma once

#include <QObject>
#include <QString>

#include <vector>

namespace shardscope::ui {

enum class OverlayMode { Coordinate = 0, Group, Process, Memory, Shard, Pipeline };
QString overlayModeName(OverlayMode mode);
constexpr int overlayModeCount = 6;

class ViewSelection : public QObject {
  Q_OBJECT
public:
  explicit ViewSelection(QObject* parent = nullptr) : QObject(parent) {}

  int device() const { return device_; } // a position into Analysis::mesh.devices, -1 for none
  int axis() const { return axis_; }     // index into the logical mesh axes
  OverlayMode mode() const { return mode_; }
  const QString& param() const { return param_; } // ParamRow::path, empty for none
  // A set of devices shown as selected together (a pipeline rank's MPMD group), positions into
  // Analysis::mesh.devices; empty for none. setDevice() clears it: a click selects one device.
  const std::vector<int>& devices() const { return devices_; }

  void setDevice(int pos);
  void setAxis(int axis);
  void setMode(OverlayMode mode);
  void setParam(const QString& path);
  void setDevices(std::vector<int> positions);

signals:
  void deviceChanged(int pos);
  void axisChanged(int axis);
  void modeChanged(shardscope::ui::OverlayMode mode);
  void paramChanged(const QString& path);
  void devicesChanged();
  void changed(); // any of the above

private:
  int device_ = -1;
  int axis_ = 0;
  OverlayMode mode_ = OverlayMode::Coordinate;
  QString param_;
  std::vector<int> devices_;
};

} // namespace shardscope::ui
