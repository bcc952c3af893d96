// SPDX-License-Identifier: Apache-2.0
#include "panels/flow_layout.hpp"

#include <QWidget>

#include <algorithm>

namespace shardscope::ui {

FlowLayout::FlowLayout(QWidget* parent, int spacing) : QLayout(parent), gap_(spacing) {}

FlowLayout::~FlowLayout() {
  while (QLayoutItem* item = takeAt(0)) delete item;
}

void FlowLayout::addItem(QLayoutItem* item) { items_.append(item); }

QLayoutItem* FlowLayout::itemAt(int index) const {
  return index >= 0 && index < items_.size() ? items_.at(index) : nullptr;
}

QLayoutItem* FlowLayout::takeAt(int index) {
  return index >= 0 && index < items_.size() ? items_.takeAt(index) : nullptr;
}

int FlowLayout::heightForWidth(int width) const { return arrange(QRect(0, 0, width, 0), false); }

QSize FlowLayout::minimumSize() const {
  QSize size;
  for (const QLayoutItem* item : items_) size = size.expandedTo(item->minimumSize());
  const QMargins m = contentsMargins();
  return size + QSize(m.left() + m.right(), m.top() + m.bottom());
}

QSize FlowLayout::sizeHint() const {
  int width = 0, height = 0;
  for (const QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    width += (width > 0 ? gap_ : 0) + item->sizeHint().width();
    height = std::max(height, item->sizeHint().height());
  }
  const QMargins m = contentsMargins();
  return {width + m.left() + m.right(), height + m.top() + m.bottom()};
}

void FlowLayout::setGeometry(const QRect& rect) {
  QLayout::setGeometry(rect);
  arrange(rect, true);
}

int FlowLayout::arrange(const QRect& rect, bool apply) const {
  const QRect area = rect.marginsRemoved(contentsMargins());
  int x = area.x(), y = area.y(), rowHeight = 0;
  // A row's items are centred vertically on the row: a label beside a taller combo box lines up.
  QList<QLayoutItem*> row;
  const auto placeRow = [&] {
    int left = area.x();
    for (QLayoutItem* item : row) {
      const QSize hint = item->sizeHint();
      if (apply) item->setGeometry(QRect(QPoint(left, y + (rowHeight - hint.height()) / 2), hint));
      left += hint.width() + gap_;
    }
    row.clear();
  };
  for (QLayoutItem* item : items_) {
    if (item->isEmpty()) continue;
    const QSize hint = item->sizeHint();
    if (x > area.x() && x + hint.width() > area.right() + 1) {
      placeRow();
      y += rowHeight + gap_ / 2;
      x = area.x();
      rowHeight = 0;
    }
    row.append(item);
    x += hint.width() + gap_;
    rowHeight = std::max(rowHeight, hint.height());
  }
  placeRow();
  const QMargins m = contentsMargins();
  return y + rowHeight - rect.y() + m.bottom();
}

} // namespace shardscope::ui
