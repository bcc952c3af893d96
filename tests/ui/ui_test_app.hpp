// SPDX-License-Identifier: Apache-2.0
// The one QApplication of the ui test suite (Catch2's main is plain): created on first use and
// kept for the whole run, since Qt allows one per process.
#pragma once

#include <QApplication>
#include <QStandardPaths>

namespace shardscope::ui::test {

inline QApplication& app() {
  static int argc = 1;
  static char name[] = "ui_tests";
  static char* argv[] = {name, nullptr};
  static QApplication* instance = [] {
    // Keep QSettings (recent files) away from the user's real configuration.
    QStandardPaths::setTestModeEnabled(true);
    QApplication::setOrganizationName("ShardscopeTests");
    QApplication::setApplicationName("ui_tests");
    return new QApplication(argc, argv);
  }();
  return *instance;
}

} // namespace shardscope::ui::test
