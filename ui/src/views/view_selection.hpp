// SPDX-License-Identifier: Apache-2.0
// What every view shows and highlights, shared so a click in one view selects everywhere: the
// selected device, the logical axis the overlays colour by, the overlay mode, the selected parameter,
// a set of devices selected together (a pipeline rank), and an XLA sharding pasted in to decode.
#pragma once

#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <QObject>
#include <QString>

#include <memory>
#include <vector>

namespace shardscope::ui {

enum class OverlayMode { Coordinate = 0, Group, Process, Memory, Shard, Pipeline };
QString overlayModeName(OverlayMode mode);
constexpr int overlayModeCount = 6;

// An XLA HLO sharding pasted into the Sharding dock, decoded for an array shape on the current mesh
// (HLO device id k = the mesh's grid position k, row-major). While set, the shard overlay and the
// shard grid show it instead of the selected parameter.
struct DecodedSharding {
  QString text; // as XLA prints it
  Shape shape;
  HloBlocks blocks; // ShardBlock positions are grid positions
};

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
  const std::shared_ptr<const DecodedSharding>& decoded() const { return decoded_; } // null for none
  // The instant of the played step the views show, in seconds from its start (the step player,
  // `render --at`); negative when the step is not being played.
  double playTime() const { return playTime_; }
  // Whether axes of size one are shown (the colour-by list, the logical grid's labels): hidden by
  // default, since they split nothing (View > Show Size-One Axes).
  bool showUnitAxes() const { return showUnitAxes_; }

  void setDevice(int pos);
  void setShowUnitAxes(bool show);
  void setAxis(int axis);
  void setMode(OverlayMode mode);
  void setParam(const QString& path);
  void setDevices(std::vector<int> positions);
  void setDecoded(std::shared_ptr<const DecodedSharding> decoded);
  void setPlayTime(double seconds);

signals:
  void deviceChanged(int pos);
  void axisChanged(int axis);
  void modeChanged(shardscope::ui::OverlayMode mode);
  void paramChanged(const QString& path);
  void devicesChanged();
  void decodedChanged();
  void changed(); // any of the above
  // Not part of changed(): a frame of the played step repaints, it recomputes no overlay.
  void playTimeChanged(double seconds);

private:
  int device_ = -1;
  int axis_ = 0;
  bool showUnitAxes_ = false;
  OverlayMode mode_ = OverlayMode::Coordinate;
  QString param_;
  std::vector<int> devices_;
  std::shared_ptr<const DecodedSharding> decoded_;
  double playTime_ = -1;
};

} // namespace shardscope::ui
