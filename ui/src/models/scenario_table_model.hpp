// SPDX-License-Identifier: Apache-2.0
// Base of the table models whose rows are one list of the document's scenario (mesh axes, rules):
// it follows the document, resetting when the list's length changes and refreshing every cell
// otherwise, so views stay in step with undo and redo.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QAbstractTableModel>

#include <functional>

namespace shardscope::ui {

class ScenarioDocument;

class ScenarioTableModel : public QAbstractTableModel {
  Q_OBJECT
public:
  using RowCounter = std::function<int(const Scenario&)>;
  ScenarioTableModel(ScenarioDocument* document, int columns, RowCounter rowsOf, QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : rows_; }
  int columnCount(const QModelIndex& parent = {}) const override { return parent.isValid() ? 0 : columns_; }

protected:
  ScenarioDocument* document_;
  int rows_ = 0;

private:
  void onScenarioChanged();

  int columns_;
  RowCounter rowsOf_;
};

} // namespace shardscope::ui
