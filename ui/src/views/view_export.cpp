// SPDX-License-Identifier: Apache-2.0
#include "views/view_export.hpp"

#include "views/analysis_view.hpp"

#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgGenerator>
#include <QWidget>

namespace shardscope::ui {

bool exportView(AnalysisView& view, const QString& path, QSize size, QString* error) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  if (size.isEmpty()) size = view.asWidget()->size();
  auto draw = [&](QPainter& painter) {
    painter.setRenderHint(QPainter::Antialiasing);
    painter.setRenderHint(QPainter::TextAntialiasing);
    view.render(painter, QRectF(QPointF(0, 0), QSizeF(size)));
  };
  if (suffix == "svg") {
    QSvgGenerator svg;
    svg.setFileName(path);
    svg.setSize(size);
    svg.setViewBox(QRect(QPoint(0, 0), size));
    svg.setTitle("Shardscope");
    svg.setDescription(QFileInfo(path).completeBaseName());
    QPainter painter;
    if (!painter.begin(&svg)) {
      if (error) *error = QObject::tr("Cannot write %1").arg(path);
      return false;
    }
    draw(painter);
    painter.end();
    if (!QFileInfo::exists(path)) {
      if (error) *error = QObject::tr("Cannot write %1").arg(path);
      return false;
    }
    return true;
  }
  if (suffix != "png") {
    if (error)
      *error = suffix.isEmpty() ? QObject::tr("%1 names no image type: end it in .png or .svg").arg(path)
                                : QObject::tr("Unknown image type '.%1': use .png or .svg").arg(suffix);
    return false;
  }
  QImage image(size, QImage::Format_ARGB32_Premultiplied);
  image.fill(Qt::white);
  {
    QPainter painter(&image);
    draw(painter);
  }
  if (!image.save(path, "PNG")) {
    if (error) *error = QObject::tr("Cannot write %1").arg(path);
    return false;
  }
  return true;
}

} // namespace shardscope::ui
