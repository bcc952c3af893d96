// SPDX-License-Identifier: Apache-2.0
#include "document/app_settings.hpp"

#include <QDir>

#include <algorithm>

namespace shardscope::ui {

namespace {
constexpr auto kRecent = "files/recent";
constexpr auto kDark = "view/darkTheme";
constexpr auto kGettingStarted = "help/gettingStartedShown";
constexpr auto kGeometry = "window/geometry";
constexpr auto kState = "window/state";
constexpr auto kLastDir = "files/lastDirectory";
constexpr auto kOverlay = "view/overlayMode";
constexpr auto kMaxTextBase = "maxtext/base";
constexpr auto kMaxTextTopology = "maxtext/topology";
constexpr auto kMaxTextSlices = "maxtext/slices";
constexpr auto kMaxTextOverrides = "maxtext/overrides";
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
bool AppSettings::gettingStartedShown() const { return settings_.value(kGettingStarted, false).toBool(); }
void AppSettings::setGettingStartedShown(bool shown) { settings_.setValue(kGettingStarted, shown); }
void AppSettings::setDarkTheme(bool dark) { settings_.setValue(kDark, dark); }
QByteArray AppSettings::windowGeometry() const { return settings_.value(kGeometry).toByteArray(); }
void AppSettings::setWindowGeometry(const QByteArray& geometry) { settings_.setValue(kGeometry, geometry); }
QByteArray AppSettings::windowState() const { return settings_.value(kState).toByteArray(); }
void AppSettings::setWindowState(const QByteArray& state) { settings_.setValue(kState, state); }
QString AppSettings::lastDirectory() const { return settings_.value(kLastDir, QDir::homePath()).toString(); }
void AppSettings::setLastDirectory(const QString& dir) { settings_.setValue(kLastDir, dir); }
int AppSettings::overlayMode() const { return settings_.value(kOverlay, 0).toInt(); }
void AppSettings::setOverlayMode(int mode) { settings_.setValue(kOverlay, mode); }

AppSettings::MaxTextImport AppSettings::maxTextImport() const {
  MaxTextImport v;
  v.base = settings_.value(kMaxTextBase).toString();
  v.topology = settings_.value(kMaxTextTopology, QStringLiteral("v5p-256")).toString();
  v.slices = std::max(1, settings_.value(kMaxTextSlices, 1).toInt());
  v.overrides = settings_.value(kMaxTextOverrides).toString();
  return v;
}

void AppSettings::setMaxTextImport(const MaxTextImport& v) {
  settings_.setValue(kMaxTextBase, v.base);
  settings_.setValue(kMaxTextTopology, v.topology);
  settings_.setValue(kMaxTextSlices, v.slices);
  settings_.setValue(kMaxTextOverrides, v.overrides);
}

} // namespace shardscope::ui
