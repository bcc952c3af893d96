// SPDX-License-Identifier: Apache-2.0
#include "models/scenario_table_model.hpp"

#include "document/scenario_document.hpp"

namespace shardscope::ui {

ScenarioTableModel::ScenarioTableModel(ScenarioDocument* document, int columns, RowCounter rowsOf, QObject* parent)
    : QAbstractTableModel(parent), document_(document), columns_(columns), rowsOf_(std::move(rowsOf)) {
  rows_ = rowsOf_(document_->scenario());
  connect(document_, &ScenarioDocument::scenarioChanged, this, &ScenarioTableModel::onScenarioChanged);
}

void ScenarioTableModel::onScenarioChanged() {
  const int rows = rowsOf_(document_->scenario());
  if (rows != rows_) {
    beginResetModel();
    rows_ = rows;
    endResetModel();
  } else if (rows_ > 0) {
    emit dataChanged(index(0, 0), index(rows_ - 1, columns_ - 1));
  }
}

} // namespace shardscope::ui
