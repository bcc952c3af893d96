// SPDX-License-Identifier: Apache-2.0
#include "views/analysis_view.hpp"

#include <QCoreApplication>
#include <QPainter>
#include <QWidget>

namespace shardscope::ui {

void renderWidget(QWidget& widget, QPainter& painter, const QRectF& target) {
  if (widget.isWindow()) {
    // Headless: no window will ever show it, so size it and "show" it off screen, which runs the
    // layouts a chart needs before it has a geometry to draw in.
    const QSize size = target.size().toSize();
    if (widget.size() != size) widget.resize(size);
    if (!widget.isVisible()) {
      widget.setAttribute(Qt::WA_DontShowOnScreen);
      widget.show();
    }
  }
  // Layout requests and the charts' deferred geometry updates are posted events.
  QCoreApplication::sendPostedEvents();
  widget.render(&painter, target.topLeft().toPoint());
}

} // namespace shardscope::ui
