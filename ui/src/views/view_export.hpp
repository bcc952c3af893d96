// SPDX-License-Identifier: Apache-2.0
// Writes a view to PNG or SVG (by the file's extension): views that paint themselves draw through
// `paint` at full resolution; other widgets (charts) are rendered as they are on screen.
#pragma once

#include <QRectF>
#include <QSize>
#include <QString>

#include <functional>

class QPainter;
class QWidget;

namespace shardscope::ui {

using PaintFunction = std::function<void(QPainter&, const QRectF&)>;

// `paint` may be empty: then `widget` is rendered. Returns false and sets `error` on failure.
bool exportView(QWidget* widget, const PaintFunction& paint, const QString& path, QSize size, QString* error);

} // namespace shardscope::ui
