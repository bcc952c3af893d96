// SPDX-License-Identifier: Apache-2.0
#include "models/axis_type_delegate.hpp"

#include <QComboBox>

namespace shardscope::ui {

QWidget* AxisTypeDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const {
  auto* combo = new QComboBox(parent);
  combo->addItems({"Auto", "Explicit", "Manual"});
  return combo;
}

void AxisTypeDelegate::setEditorData(QWidget* editor, const QModelIndex& index) const {
  static_cast<QComboBox*>(editor)->setCurrentText(index.data(Qt::EditRole).toString());
}

void AxisTypeDelegate::setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const {
  model->setData(index, static_cast<QComboBox*>(editor)->currentText(), Qt::EditRole);
}

} // namespace shardscope::ui
