// SPDX-License-Identifier: Apache-2.0
#include "document/offscreen_app.hpp"

#include <QApplication>
#include <QStandardPaths>
#include <QtGlobal>

namespace shardscope::ui {

namespace {

QtMessageHandler previousHandler = nullptr;

// Qt's notice that it picked /tmp/runtime-<user> because XDG_RUNTIME_DIR is unset (the usual case
// for a headless `render` in a container or CI job) said nothing the user can act on, on every
// run: it is dropped; every other message goes where it went before.
void quietRuntimeDirNotice(QtMsgType type, const QMessageLogContext& context, const QString& message) {
  if (message.startsWith(QStringLiteral("QStandardPaths: XDG_RUNTIME_DIR not set"))) return;
  if (previousHandler) previousHandler(type, context, message);
}

} // namespace

QApplication& offscreenApp(const OffscreenAppOptions& options) {
  // QApplication keeps references to argc and argv: both live as long as the process.
  static int argc = 1;
  static char* argv[] = {const_cast<char*>(options.name), nullptr};
  static QApplication* app = [&options] {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM")) qputenv("QT_QPA_PLATFORM", "offscreen");
    previousHandler = qInstallMessageHandler(quietRuntimeDirNotice);
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
