// SPDX-License-Identifier: Apache-2.0
// The Inspect dock: what a compiled program or an out-of-memory report holds (core's inspect
// family, as `shardscope-cli inspect` prints it): the meshes, every argument with its sharding,
// partition spec and bytes per device, every collective with the mesh axes its groups span, its
// bytes and its time on the workspace's links, the totals per set of axes, the OOM report's figures
// and largest allocations, and the flags (an all-gather making a large array whole, groups that fit
// no order of the mesh). File › Open or a drop of a .hlo, .mlir or report text fills it.
#pragma once

#include "shardscope/inspect/inspect_result.hpp"

#include <QString>
#include <QWidget>

#include <functional>
#include <string>
#include <vector>

class QLabel;
class QTreeWidget;

namespace shardscope::ui {

class InspectPanel : public QWidget {
public:
  explicit InspectPanel(QWidget* parent = nullptr);

  // Shows `result`, read from `file`; `placement` says how its collectives were priced (on the
  // workspace's links, or why not).
  void showResult(const InspectResult& result, const QString& file, const QString& placement);
  void clear();

  // Called with the mesh axes of the collective (or per-axes total) the user selects, in mesh order;
  // the window shows the groups along the first of them on the views.
  void setOnAxesSelected(std::function<void(const std::vector<std::string>&)> callback) {
    onAxesSelected_ = std::move(callback);
  }

  // Called with an argument's (or result's) sharding as written and its global shape ("8192,28672")
  // when the user selects one; the window decodes it on the workspace's mesh and shows its blocks on
  // the physical view and the shard grid (the Sharding dock's Decode field, filled in).
  void setOnShardingSelected(std::function<void(const QString& sharding, const QString& shape)> callback) {
    onShardingSelected_ = std::move(callback);
  }

  QTreeWidget* tree() const { return tree_; }
  QLabel* header() const { return header_; }

private:
  QLabel* header_;
  QTreeWidget* tree_;
  std::function<void(const std::vector<std::string>&)> onAxesSelected_;
  std::function<void(const QString&, const QString&)> onShardingSelected_;
};

} // namespace shardscope::ui
