// SPDX-License-Identifier: Apache-2.0
// The scenario's ordered regex rules (first match wins) as an editable table: regex, spec. Add,
// remove and reorder go through the document as undoable edits.
#pragma once

#include "models/scenario_table_model.hpp"

namespace shardscope::ui {

class RulesTableModel : public ScenarioTableModel {
  Q_OBJECT
public:
  enum Column { Regex = 0, Spec, ColumnCount };
  explicit RulesTableModel(ScenarioDocument* document, QObject* parent = nullptr);

  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  void addRule(const QString& regex, const QString& spec);
  void removeRule(int row);
  void moveRule(int from, int to);

signals:
  void editRejected(const QString& message);
};

} // namespace shardscope::ui
