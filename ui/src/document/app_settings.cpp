// SPDX-License-Identifier: Apache-2.0
#include "document/app_settings.hpp"

#include <QDir>

namespace shardscope::ui {

namespace {
constexpr auto kRecent = "files/recent";
constexpr auto kDark = "view/darkTheme";
constexpr auto kGeometry = "window/geometry";
constexpr auto kState = "window/state";
constexpr auto kLastDir = "files/lastDirectory";
constexpr auto kOverlay = "view/overlayMode";
} // namespace

AppSettings::AppSettings() = default;

QStringList AppSettings::recentFiles() const { return settings_.value(kRecent).toStringList(); }

void AppSettings::addRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  files.prepend(path);
  while (files.size() > maxRecentFiles) files.removeLast();
  settings_.setValue(kRecent, files);
}

void AppSettings::removeRecentFile(const QString& path) {
  QStringList files = recentFiles();
  files.removeAll(path);
  settings_.setValue(kRecent, files);
}

bool AppSettings::darkTheme() const { return settings_.value(kDark, false).toBool(); }
void AppSettings::setDarkTheme(bool dark) { settings_.setValue(kDark, dark); }
QByteArray AppSettings::windowGeometry() const { return settings_.value(kGeometry).toByteArray(); }
void AppSettings::setWindowGeometry(const QByteArray& geometry) { settings_.setValue(kGeometry, geometry); }
QByteArray AppSettings::windowState() const { return settings_.value(kState).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& state) { settings_.setValue(kState, state); }
QString AppSettings::lastDirectory() const { return settings_.value(kLastDir, QDir::homePath()).toString(); }
void AppSettings::setLastDirectory(const QString& dir) { settings_.setValue(kLastDir, dir); }
int AppSettings::overlayMode() const { return settings_.value(kOverlay, 0).toInt(); }
void AppSettings::setOverlayMode(int mode) { settings_.setValue(kOverlay, mode); }

} // namespace shardscope::ui
