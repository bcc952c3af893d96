// SPDX-License-Identifier: Apache-2.0
// The one QApplication of a program that draws without a window: `shardscope-cli render`, the GUI
// benchmarks and the ui test suite. Qt allows one application object per process and widgets need
// it, so it is made on first use and kept until exit; without a platform chosen in
// QT_QPA_PLATFORM it uses the offscreen one, so no display is needed.
#pragma once

class QApplication;

namespace shardscope::ui {

struct OffscreenAppOptions {
  const char* name = "shardscope"; // argv[0] and the application name
  // Tests: QSettings (recent files, window state) go to a throw-away test location instead of the
  // user's configuration (QStandardPaths test mode), under their own organisation name.
  bool isolateSettings = false;
};

// The application, created by the first call (later calls return it and ignore `options`).
QApplication& offscreenApp(const OffscreenAppOptions& options = {});

} // namespace shardscope::ui
