// SPDX-License-Identifier: Apache-2.0
// Edits a logical axis' type with a combo box (Auto, Explicit, Manual) instead of free text.
#pragma once

#include <QStyledItemDelegate>

namespace shardscope::ui {

class AxisTypeDelegate : public QStyledItemDelegate {
  Q_OBJECT
public:
  using QStyledItemDelegate::QStyledItemDelegate;
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  void setEditorData(QWidget* editor, const QModelIndex& index) const override;
  void setModelData(QWidget* editor, QAbstractItemModel* model, const QModelIndex& index) const override;
};

} // namespace shardscope::ui
