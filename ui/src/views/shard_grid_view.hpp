// SPDX-License-Identifier: Apache-2.0
// The selected parameter cut into its shards, like jax.debug.visualize_array_sharding but for any
// rank and any mesh: the last dimension runs across, the one before it down, leading dimensions
// become facets. Each block is drawn at its true extent (a ragged last block is narrower), in the
// colour the physical view gives that shard, labelled with the ids of every device holding it.
#pragma once

#include "views/analysis_view.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/sharding/shard_blocks.hpp"

#include <QRectF>
#include <QWidget>

#include <memory>
#include <vector>

namespace shardscope::ui {

class ViewSelection;
struct DecodedSharding;

class ShardGridView : public QWidget, public AnalysisView {
  Q_OBJECT
public:
  explicit ShardGridView(ViewSelection* selection, QWidget* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis) override;
  // Paints the header and the blocks into `target` (the widget, an exported image).
  void render(QPainter& painter, const QRectF& target) override;
  QWidget* asWidget() override { return this; }

  // What is shown, for tests and the export: the blocks (empty when there is nothing to show),
  // the header line, or the sentence shown instead of blocks.
  const std::vector<ShardBlock>& blocks() const { return blocks_; }
  const QString& summary() const { return summary_; }
  const QString& message() const { return message_; }
  // The block under a widget point, -1 for none; its rectangle as drawn in the widget.
  int blockAt(QPointF point) const;
  QRectF blockRect(int block) const;
  // Device ids of a block's replicas, "0,1,2,3" (the painter wraps them and ends in "+N" when they do not fit).
  QString blockDevices(int block) const;

  QSize sizeHint() const override { return {360, 240}; }

protected:
  void paintEvent(QPaintEvent* event) override;
  void mouseReleaseEvent(QMouseEvent* event) override;
  bool event(QEvent* event) override;

private:
  struct Cell {
    int block;
    QRectF rect;
  };
  struct Facet {
    QString label;
    QRectF rect;
  };
  void recompute();
  void showDecoded(const DecodedSharding& decoded);
  // Lays the blocks out in `area` (below the header).
  void layoutCells(const QRectF& area, std::vector<Cell>& cells, std::vector<Facet>& facets) const;
  QRectF blocksArea(const QRectF& target) const;
  int blockOfDevice(int devicePos) const;

  ViewSelection* selection_;
  std::shared_ptr<const Analysis> analysis_;
  ArrayLayout layout_;
  std::vector<ShardBlock> blocks_;
  std::vector<int> deviceBlock_; // device position -> block, -1 when not in the mesh
  QString summary_, message_;
};

} // namespace shardscope::ui
