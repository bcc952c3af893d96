// SPDX-License-Identifier: Apache-2.0
// The Suggest dock's table: the rows of a layout search (core's LayoutRow), the user's own layout
// first and highlighted so the best candidates are always read against it, then the ranked rows.
// Every cell's tooltip is the row's one-sentence "why" (what bounds its step).
#pragma once

#include "shardscope/search/layout_search.hpp"

#include <QAbstractTableModel>

#include <memory>

namespace shardscope::ui {

class LayoutRowsModel : public QAbstractTableModel {
  Q_OBJECT
public:
  // The figures first; the knobs (often the same on every row) last.
  enum Column { Rank, Mesh, StepTime, Mfu, Memory, BoundBy, Rules, Zero, Recompute, ColumnCount };

  explicit LayoutRowsModel(QObject* parent = nullptr);

  void setResult(std::shared_ptr<const LayoutSearchResult> result);
  const LayoutSearchResult* result() const { return result_.get(); }

  // The row shown at `row` (the current layout or a ranked one), null outside the table.
  const LayoutRow* layoutAt(int row) const;
  // True for the user's own layout (shown first when the search could evaluate it).
  bool isCurrent(int row) const;
  // The table row of ranked row `rank` (0 = best).
  int tableRowOfRank(int rank) const { return rank + currentOffset(); }

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;

  // "3.21 s" or "412.5 ms"; "—" when not estimated.
  static QString formatSeconds(std::optional<double> seconds);
  static QString recomputeName(shardscope::Recompute r);

private:
  int currentOffset() const { return result_ && result_->current ? 1 : 0; }

  std::shared_ptr<const LayoutSearchResult> result_;
};

} // namespace shardscope::ui
