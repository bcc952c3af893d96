// SPDX-License-Identifier: Apache-2.0
#include "examples_menu.hpp"

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/resources.hpp"

#include <QAction>
#include <QDir>
#include <QFileInfo>

#include <exception>
#include <filesystem>
#include <utility>

namespace shardscope::ui {

std::vector<ExampleEntry> bundledExamples() {
  std::vector<ExampleEntry> out;
  const QDir dir(QString::fromStdString(resourcePath("scenarios").string()));
  for (const QFileInfo& file : dir.entryInfoList({QStringLiteral("*.json")}, QDir::Files, QDir::Name)) {
    ExampleEntry e{file.absoluteFilePath(), file.fileName()};
    try {
      const Scenario s = loadScenarioFile(std::filesystem::path(file.absoluteFilePath().toStdString()));
      if (!s.name.empty()) e.name = QString::fromStdString(s.name);
    } catch (const std::exception&) {
      // listed by its file name: opening it says what is wrong
    }
    out.push_back(std::move(e));
  }
  return out;
}

QMenu* makeExamplesMenu(const QString& title, QWidget* parent, std::function<void(const QString& path)> open) {
  auto* menu = new QMenu(title, parent);
  menu->setObjectName(QStringLiteral("examplesMenu"));
  menu->setToolTipsVisible(true);
  // Read when first shown, not at start-up.
  QObject::connect(menu, &QMenu::aboutToShow, menu, [menu, open = std::move(open)] {
    if (!menu->isEmpty()) return;
    for (const ExampleEntry& e : bundledExamples()) {
      QAction* a = menu->addAction(e.name);
      a->setToolTip(QObject::tr("%1 (opens as an untitled copy)").arg(QFileInfo(e.path).fileName()));
      a->setData(e.path);
      QObject::connect(a, &QAction::triggered, menu, [open, path = e.path] { open(path); });
    }
  });
  return menu;
}

} // namespace shardscope::ui
