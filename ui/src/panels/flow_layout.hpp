// SPDX-License-Identifier: Apache-2.0
// A layout that places its items left to right and starts a new row when the next one would not
// fit the width: a row of controls that wraps in a narrow dock instead of forcing a horizontal
// scroll bar (the Pipeline dock at 1366x768). Items keep their size hints; rows take the tallest.
#pragma once

#include <QLayout>
#include <QList>

namespace shardscope::ui {

class FlowLayout : public QLayout {
public:
  explicit FlowLayout(QWidget* parent = nullptr, int spacing = 8);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  int count() const override { return static_cast<int>(items_.size()); }
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;
  Qt::Orientations expandingDirections() const override { return {}; }
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override; // the widest item: narrower than that no row can be
  QSize sizeHint() const override;    // every item on one row
  void setGeometry(const QRect& rect) override;

private:
  // Places the items in `rect` (only measures when `apply` is false); returns the height used.
  int arrange(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> items_;
  int gap_;
};

} // namespace shardscope::ui
