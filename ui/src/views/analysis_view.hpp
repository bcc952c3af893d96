// SPDX-License-Identifier: Apache-2.0
// The one interface of everything that draws an Analysis: the physical view, the logical grid, the
// shard grid and the two charts (and the panels that hold a grid, drawing as that grid). The main
// window feeds every view through it, and the export and `shardscope-cli render` draw any of them
// through it, so none of them lists the views one by one (views/view_catalog.hpp is the list).
#pragma once

#include "shardscope/analysis/analysis.hpp"

#include <QRectF>

#include <memory>

class QPainter;
class QWidget;

namespace shardscope::ui {

class AnalysisView {
public:
  virtual ~AnalysisView() = default;

  // Shows `analysis`; null shows that there is nothing to draw yet.
  virtual void setAnalysis(std::shared_ptr<const Analysis> analysis) = 0;
  // Draws the whole view as an export shows it (no zoom, pan or hover) into `target` of any
  // painter: the screen, an image, an SVG.
  virtual void render(QPainter& painter, const QRectF& target) = 0;
  // The widget that shows it on screen.
  virtual QWidget* asWidget() = 0;
};

// render() for views made of child widgets (the charts): lays `widget` out at the target's size
// (a standalone widget is shown without a window, so that its layouts run) and draws it there.
// A widget inside a window is drawn at the size it has, which must then be the target's.
void renderWidget(QWidget& widget, QPainter& painter, const QRectF& target);

} // namespace shardscope::ui
