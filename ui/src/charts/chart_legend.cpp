// SPDX-License-Identifier: Apache-2.0
#include "charts/chart_legend.hpp"

#include <QLabel>
#include <QStringList>

namespace shardscope::ui {

QString legendHtml(const std::vector<LegendEntry>& entries) {
  QStringList parts;
  for (const auto& e : entries) {
    const QString swatch = e.line ? QStringLiteral("&#x2504;&#x2504;") : QStringLiteral("&#x25A0;");
    // Non-breaking inside an entry, so a line only ever breaks between entries.
    parts << QStringLiteral(
                 "<span style=\"white-space:nowrap\"><span style=\"color:%1\"><b>%2</b></span>&nbsp;%3</span>")
                 .arg(e.color.name(), swatch, e.text.toHtmlEscaped().replace(' ', QStringLiteral("&nbsp;")));
  }
  return parts.join(QStringLiteral(" &nbsp; "));
}

QLabel* makeLegendLabel(QWidget* parent) {
  auto* label = new QLabel(parent);
  label->setWordWrap(true);
  label->setTextFormat(Qt::RichText);
  label->setAlignment(Qt::AlignHCenter);
  QFont small = label->font();
  small.setPointSizeF(small.pointSizeF() * 0.85);
  label->setFont(small);
  return label;
}

} // namespace shardscope::ui
