// SPDX-License-Identifier: Apache-2.0
// File › Export Layout: the workspace's layout as JAX code or MaxText overrides (core's
// interop/layout_export.hpp), written atomically to a file.
#pragma once

#include "shardscope/analysis/scenario.hpp"

#include <QString>
#include <QStringList>

namespace shardscope::ui {

enum class LayoutExportFormat { Jax, MaxText };

// Analyses `scenario` and writes the export to `path`. False with `error` set when the workspace
// does not analyse, MaxText has no counterpart for an axis, or the file cannot be written;
// `notes` receives what MaxText cannot reproduce.
bool writeLayoutExport(LayoutExportFormat format, const Scenario& scenario, const QString& path, QString* error,
                       QStringList* notes = nullptr);

} // namespace shardscope::ui
