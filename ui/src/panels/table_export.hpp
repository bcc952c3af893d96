// SPDX-License-Identifier: Apache-2.0
// Tables that leave the app: a table as CSV (RFC 4180), and the context-menu entries "Copy as CSV"
// and "Export CSV…" that the Step, Suggest and Compare docks give their tables.
#pragma once

#include <QString>

class QTableView;

namespace shardscope::ui {

// The view's model as CSV: the header row, then every row, visible columns only, the text each
// cell shows; fields with a comma, a quote or a line break quoted, quotes doubled; CRLF line ends.
QString tableToCsv(const QTableView& view);

// Adds "Copy as CSV" (to the clipboard) and "Export CSV…" (a file dialog; `defaultName` is the
// proposed file name) to the view's context menu.
void addTableExportActions(QTableView* view, const QString& defaultName);

} // namespace shardscope::ui
