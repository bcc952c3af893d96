// SPDX-License-Identifier: Apache-2.0
// The table of the drawn views: what each is called (`render --view NAME`, the export's file
// name), the menu entry that exports it, the size it is drawn at, and how to make a standalone one
// for headless drawing. The main window's Export menu and `shardscope-cli render` loop over it;
// adding a view here adds it to both.
#pragma once

#include "views/analysis_view.hpp"

#include <QSize>
#include <QString>

#include <memory>
#include <string_view>
#include <vector>

namespace shardscope::ui {

class ViewSelection;

struct ViewKind {
  const char* name;     // "physical", "logical", "shards", "memory", "comm", "pipeline"
  const char* menuText; // the Export View menu entry, untranslated ("&Physical view…")
  const char* summary;  // one line for `render --help`
  QSize size;           // the size a headless render (and an export of a painted view) uses
  bool drawnAsWidget;   // a chart: exported from the window at its on-screen size
  bool needsParam;      // draws nothing useful without a selected parameter
  // A standalone instance for headless drawing, following `selection` (which outlives it).
  std::unique_ptr<AnalysisView> (*make)(ViewSelection* selection);
};

// Every view, in menu order.
const std::vector<ViewKind>& viewKinds();
// The view called `name`, or null.
const ViewKind* findViewKind(std::string_view name);
// "physical, logical, shards, memory, comm or pipeline", for messages.
QString viewKindNames();

} // namespace shardscope::ui
