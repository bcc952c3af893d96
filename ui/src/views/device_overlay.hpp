// SPDX-License-Identifier: Apache-2.0
// The colour of every device under an overlay mode, plus the legend that explains it. Shared by
// the physical view and the logical grid so both colour a device the same way.
#pragma once

#include "shardscope/sharding/mesh_index.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QColor>
#include <QString>

#include <vector>

namespace shardscope::ui {

struct OverlayLegend {
  enum class Scale { Categorical, Sequential, Heat, None };
  Scale scale = Scale::None;
  QString title;      // "tp: coordinate 0..3"
  QString low, high;  // ends of a continuous scale
  int categories = 0; // number of colours of a categorical scale
};

struct DeviceOverlay {
  std::vector<QColor> colors; // per device position
  OverlayLegend legend;
};

// `decoded` (Shard mode): a pasted HLO sharding shown instead of `param`'s shards.
DeviceOverlay computeOverlay(const Analysis* analysis, const MeshIndex& index, OverlayMode mode, int axis,
                             const QString& param, const DecodedSharding* decoded = nullptr);

// "1.50 GiB" style.
QString formatBytes(double bytes);
// "1.26 s", "412 ms", "38.5 µs", "1 µs": at most three significant digits in the largest unit
// under the value, no trailing zeros, never an exponent.
QString formatSeconds(double seconds);
// "14.5%": core's formatPercent of a fraction.
QString formatPercent(double fraction);

} // namespace shardscope::ui
