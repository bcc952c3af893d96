// SPDX-License-Identifier: Apache-2.0
// Writes a view to PNG or SVG (by the file's extension), drawn through its AnalysisView::render at
// full resolution: the main window's Export menu and `shardscope-cli render` both end here.
#pragma once

#include <QSize>
#include <QString>

namespace shardscope::ui {

class AnalysisView;

// Draws `view` into a `size` image or drawing at `path`. Returns false and sets `error` (naming the
// file, or the unknown extension) on failure.
bool exportView(AnalysisView& view, const QString& path, QSize size, QString* error);

} // namespace shardscope::ui
