// SPDX-License-Identifier: Apache-2.0
// A chart's legend as a wrapping label under it. QLegend keeps its entries on one row and elides
// them ("Param…", "Gradie…") when a narrow dock cannot fit them; a label wraps instead.
#pragma once

#include <QColor>
#include <QString>

#include <vector>

class QLabel;
class QWidget;

namespace shardscope::ui {

struct LegendEntry {
  QColor color;
  QString text;
  bool line = false; // a dashed line (a limit such as HBM) rather than a filled bar
};

// Rich text for the entries: a coloured swatch and the text, entries separated by breakable space.
QString legendHtml(const std::vector<LegendEntry>& entries);
// A word-wrapping label in a slightly smaller font, for legendHtml.
QLabel* makeLegendLabel(QWidget* parent);

} // namespace shardscope::ui
