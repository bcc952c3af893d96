// SPDX-License-Identifier: Apache-2.0
// Where each device sits in the physical view, in layout units (one chip = one unit square):
// TPU slices as small multiples of X x Y panels (one per z), GPU clusters as host panels, CPUs as
// one panel. Pure geometry over the device list, shared by painting, hit testing and export.
#pragma once

#include "shardscope/hardware/device.hpp"

#include <QRectF>
#include <QSizeF>
#include <QString>

#include <array>
#include <vector>

namespace shardscope::ui {

struct PhysicalPanel {
  QString title;
  int slice = 0;
  QRectF rect; // the cell area (title band above it, outside the rect)
  int cols = 1, rows = 1;
  std::vector<int> cellDevice; // [(row * cols + col) * cores + core] -> device position, -1 empty
};

struct PhysicalSliceBlock {
  int slice = 0;
  QRectF rect; // bounds of its panels, titles included
};

class PhysicalLayout {
public:
  enum class Kind { Torus, GpuHosts, Cpu, Empty };

  PhysicalLayout() = default;
  // Arranges panels to make chips as large as possible in a viewport of `aspect` (width/height).
  // `wraps`: which torus axes have wraparound links, as the analysis' link graph built them (its
  // link settings included); without it, the chip generation's default rule.
  static PhysicalLayout build(const DeviceList& devices, double aspect, const std::array<bool, 3>* wraps = nullptr);

  Kind kind() const { return kind_; }
  const std::vector<PhysicalPanel>& panels() const { return panels_; }
  const std::vector<PhysicalSliceBlock>& slices() const { return slices_; }
  const std::vector<QRectF>& hostOutlines() const { return hosts_; }
  QRectF bounds() const { return bounds_; }
  int cores() const { return cores_; }
  std::array<int, 3> dims() const { return dims_; }
  std::array<bool, 3> wraps() const { return wraps_; }
  // A Boardfly system (TPU 8i): x is the chip on its board, y the board, z the group (a panel per
  // group, a row per board); not a torus, so no neighbour links are drawn between boards.
  bool boardfly() const { return boardfly_; }

  // The rect of device `pos` (a core's part of its chip), empty when unknown.
  QRectF deviceRect(int pos) const;
  int devicePanel(int pos) const;
  // Device under a layout point, or -1.
  int hitTest(QPointF point) const;

  static constexpr double titleBand = 1.4; // units above each panel for its title
  static constexpr double panelGap = 1.4;
  static constexpr double sliceGap = 4.0; // room for the DCN link between slices

private:
  Kind kind_ = Kind::Empty;
  std::vector<PhysicalPanel> panels_;
  std::vector<PhysicalSliceBlock> slices_;
  std::vector<QRectF> hosts_;
  std::vector<QRectF> deviceRects_;
  std::vector<int> devicePanel_;
  std::vector<std::array<int, 4>> chip_; // x, y, z, slice (GPU: host, gpu, 0, slice)
  QRectF bounds_;
  int cores_ = 1;
  std::array<int, 3> dims_{1, 1, 1};
  std::array<bool, 3> wraps_{false, false, false};
  bool boardfly_ = false;
};

} // namespace shardscope::ui
