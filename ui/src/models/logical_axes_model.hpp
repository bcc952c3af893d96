// SPDX-License-Identifier: Apache-2.0
// The logical mesh axes as an editable, reorderable table over the document's scenario: name,
// size (as resolved by the last analysis), ICI part, DCN part, axis type. Every edit, including a
// drag-and-drop move, becomes one undoable document edit.
#pragma once

#include "models/scenario_table_model.hpp"
#include "shardscope/analysis/analysis.hpp"

#include <memory>

namespace shardscope::ui {

class LogicalAxesModel : public ScenarioTableModel {
  Q_OBJECT
public:
  enum Column { Name = 0, Size, Ici, Dcn, Type, ColumnCount };
  static constexpr const char* mimeType = "application/x-shardscope-axis-rows";

  explicit LogicalAxesModel(ScenarioDocument* document, QObject* parent = nullptr);

  void setAnalysis(std::shared_ptr<const Analysis> analysis);

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  Qt::DropActions supportedDropActions() const override;
  Qt::DropActions supportedDragActions() const override;
  QStringList mimeTypes() const override;
  QMimeData* mimeData(const QModelIndexList& indexes) const override;
  bool canDropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                       const QModelIndex& parent) const override;
  bool dropMimeData(const QMimeData* data, Qt::DropAction action, int row, int column,
                    const QModelIndex& parent) override;
  bool moveRows(const QModelIndex& sourceParent, int sourceRow, int count, const QModelIndex& destinationParent,
                int destinationChild) override;

  // Moves axis `from` so that it ends up at position `to` (0-based, in the final order).
  void moveAxis(int from, int to);
  void addAxis();
  void removeAxis(int row);

private:
  std::shared_ptr<const Analysis> analysis_;
};

} // namespace shardscope::ui
