// SPDX-License-Identifier: Apache-2.0
// The rules in effect, in the order they are tried (first match wins): the scenario's own rules
// (editable: add, remove, reorder and edit go through the document as undoable edits), then the
// selected preset's, read-only and greyed, so the preset can be seen and copied into the own rules
// (copyPresetRules) to start from it.
#pragma once

#include "models/scenario_table_model.hpp"

#include "shardscope/sharding/partition_rules.hpp"

#include <string>
#include <vector>

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

  // The scenario's own rules (the first rows); the preset's follow.
  int customRuleCount() const;
  bool isPresetRow(int row) const { return row >= customRuleCount(); }
  // One undoable edit: the preset's rules appended to the own rules, the preset switched off (the
  // same parameters get the same specs).
  void copyPresetRules();

  void addRule(const QString& regex, const QString& spec);
  void removeRule(int row);
  void moveRule(int from, int to);

signals:
  void editRejected(const QString& message);

private:
  // The preset's rules for the scenario's preset and mesh axes (cached).
  const std::vector<PartitionRule>& presetRows() const;
  mutable std::vector<PartitionRule> presetRows_;
  mutable std::string presetKey_;
  mutable bool presetCached_ = false;
};

} // namespace shardscope::ui
