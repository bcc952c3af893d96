// SPDX-License-Identifier: Apache-2.0
#include "document/offscreen_app.hpp"

#include <QApplication>
#include <QStandardPaths>

namespace shardscope::ui {

QApplication& offscreenApp(const OffscreenAppOptions& options) {
  // QApplication keeps references to argc and argv: both live as long as the process.
  static int argc = 1;
  static char* argv[] = {const_cast<char*>(options.name), nullptr};
  static QApplication* app = [&options] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    if (options.isolateSettings) {
      QStandardPaths::setTestModeEnabled(true);
      QApplication::setOrganizationName(QStringLiteral("ShardscopeTests"));
    }
    auto* created = new QApplication(argc, argv);
    QApplication::setApplicationName(QString::fromUtf8(options.name));
    return created;
  }();
  return *app;
}

} // namespace shardscope::ui
