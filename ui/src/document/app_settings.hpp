// SPDX-License-Identifier: Apache-2.0
// Every remembered preference goes through this one typed wrapper over QSettings, so keys and
// defaults live in one place.
#pragma once

#include <QByteArray>
#include <QSettings>
#include <QString>
#include <QStringList>

namespace shardscope::ui {

class AppSettings {
public:
  AppSettings();

  QStringList recentFiles() const;
  void addRecentFile(const QString& path); // most recent first, at most maxRecentFiles
  void removeRecentFile(const QString& path);
  static constexpr int maxRecentFiles = 8;

  bool darkTheme() const;
  void setDarkTheme(bool dark);

  QByteArray windowGeometry() const;
  void setWindowGeometry(const QByteArray& geometry);
  QByteArray windowState() const;
  void setWindowState(const QByteArray& state);

  QString lastDirectory() const;
  void setLastDirectory(const QString& dir);

  int overlayMode() const;
  void setOverlayMode(int mode);

  // Whether Help > Getting Started has been shown on a first start (it is shown once).
  bool gettingStartedShown() const;
  void setGettingStartedShown(bool shown);

  // The MaxText import dialog's last values: base config, compile topology, slices, overrides.
  struct MaxTextImport {
    QString base, topology;
    int slices = 1;
    QString overrides; // one key=value per line
  };
  MaxTextImport maxTextImport() const;
  void setMaxTextImport(const MaxTextImport& values);

private:
  QSettings settings_;
};

} // namespace shardscope::ui
