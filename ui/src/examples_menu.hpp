// SPDX-License-Identifier: Apache-2.0
// The shipped example workspaces (resources/scenarios) as a menu: each entry is the workspace's own
// name, which says what it is ("Llama-3.1-70B, a 4-stage pipeline across four H100 hosts, …"),
// with its file name as the tooltip.
#pragma once

#include <QMenu>
#include <QString>

#include <functional>
#include <vector>

namespace shardscope::ui {

struct ExampleEntry {
  QString path; // the file
  QString name; // the workspace's name, or the file name when the file does not load
};

// The examples, in file-name order.
std::vector<ExampleEntry> bundledExamples();

// A menu of bundledExamples(); choosing one calls `open` with its path.
QMenu* makeExamplesMenu(const QString& title, QWidget* parent, std::function<void(const QString& path)> open);

} // namespace shardscope::ui
