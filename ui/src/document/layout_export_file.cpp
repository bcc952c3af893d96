// SPDX-License-Identifier: Apache-2.0
#include "document/layout_export_file.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/interop/layout_export.hpp"

#include <QObject>
#include <QSaveFile>

namespace shardscope::ui {

bool writeLayoutExport(LayoutExportFormat format, const Scenario& scenario, const QString& path, QString* error,
                       QStringList* notes) {
  std::string text;
  try {
    const Analysis analysis = analyze(scenario);
    for (const auto& d : analysis.diagnostics)
      if (d.severity == Diagnostic::Severity::Error)
        throw std::runtime_error("the workspace does not analyse: [" + sectionName(d.section) + "] " + d.message);
    if (format == LayoutExportFormat::Jax) {
      text = exportJaxCode(scenario, analysis);
    } else {
      const MaxTextExport exported = exportMaxTextOverrides(scenario, analysis);
      text = exported.yaml;
      if (notes)
        for (const auto& n : exported.notes) *notes << QString::fromStdString(n);
    }
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly) || file.write(text.data(), static_cast<qint64>(text.size())) < 0 ||
      !file.commit()) {
    if (error) *error = QObject::tr("Cannot write %1: %2").arg(path, file.errorString());
    return false;
  }
  return true;
}

} // namespace shardscope::ui
