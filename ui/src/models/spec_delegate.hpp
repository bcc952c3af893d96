// SPDX-License-Identifier: Apache-2.0
// Edits a partition spec in a line edit that completes mesh axis names (the last word typed).
#pragma once

#include <QStringList>
#include <QStyledItemDelegate>

namespace shardscope::ui {

class SpecDelegate : public QStyledItemDelegate {
  Q_OBJECT
public:
  using QStyledItemDelegate::QStyledItemDelegate;
  void setAxisNames(const QStringList& names) { axisNames_ = names; }
  QWidget* createEditor(QWidget* parent, const QStyleOptionViewItem& option, const QModelIndex& index) const override;

private:
  QStringList axisNames_;
};

} // namespace shardscope::ui
