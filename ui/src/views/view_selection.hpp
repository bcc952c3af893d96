// SPDX-License-Identifier: Apache-2.0
// What every view shows and highlights, shared so a click in one view selects everywhere: the
// selected device, the logical axis the overlays colour by, the overlay mode, the selected parameter.
#pragma once

#include <QObject>
#include <QString>

namespace shardscope::ui {

enum class OverlayMode { Coordinate = 0, Group, Process, Memory, Shard };
QString overlayModeName(OverlayMode mode);
constexpr int overlayModeCount = 5;

class ViewSelection : public QObject {
  Q_OBJECT
public:
  explicit ViewSelection(QObject* parent = nullptr) : QObject(parent) {}

  int device() const { return device_; } // a position into Analysis::mesh.devices, -1 for none
  int axis() const { return axis_; }     // index into the logical mesh axes
  OverlayMode mode() const { return mode_; }
  const QString& param() const { return param_; } // ParamRow::path, empty for none

  void setDevice(int pos);
  void setAxis(int axis);
  void setMode(OverlayMode mode);
  void setParam(const QString& path);

signals:
  void deviceChanged(int pos);
  void axisChanged(int axis);
  void modeChanged(shardscope::ui::OverlayMode mode);
  void paramChanged(const QString& path);
  void changed(); // any of the above

private:
  int device_ = -1;
  int axis_ = 0;
  OverlayMode mode_ = OverlayMode::Coordinate;
  QString param_;
};

} // namespace shardscope::ui
