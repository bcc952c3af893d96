// SPDX-License-Identifier: Apache-2.0
#include "document/autosave.hpp"

#include "document/atomic_write.hpp"

#include "document/scenario_document.hpp"
#include "shardscope/base/json_text.hpp"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QStandardPaths>

#include <algorithm>

namespace shardscope::ui {

namespace {
constexpr char kPrefix[] = "autosave-";
constexpr char kSuffix[] = ".shardscope.json";

// Linux: a process is alive while /proc/<pid> exists.
bool processAlive(qint64 pid) { return pid > 0 && QFileInfo::exists(QStringLiteral("/proc/%1").arg(pid)); }
} // namespace

Autosave::Autosave(ScenarioDocument* document, QString directory, QObject* parent)
    : QObject(parent), document_(document), directory_(std::move(directory)) {
  if (directory_.isEmpty())
    directory_ = QStandardPaths::writableLocation(QStandardPaths::AppDataLocation) + QStringLiteral("/autosave");
  timer_.setSingleShot(true);
  timer_.setInterval(kDelayMs);
  connect(&timer_, &QTimer::timeout, this, &Autosave::writeNow);
  // Every edit (and undo/redo) restarts the delay; saving makes the document clean again.
  connect(document_, &ScenarioDocument::scenarioChanged, &timer_, qOverload<>(&QTimer::start));
  connect(document_, &ScenarioDocument::modifiedChanged, this, [this](bool modified) {
    if (!modified) QFile::remove(ownFile());
  });
}

Autosave::~Autosave() { QFile::remove(ownFile()); }

QString Autosave::ownFile() const {
  return directory_ + QLatin1Char('/') + QLatin1String(kPrefix) + QString::number(QCoreApplication::applicationPid()) +
         QLatin1String(kSuffix);
}

void Autosave::writeNow() {
  if (!document_->isModified()) {
    QFile::remove(ownFile());
    return;
  }
  QDir().mkpath(directory_);
  Json j;
  j["autosave_of"] = document_->filePath().toStdString();
  j["written"] = QDateTime::currentDateTimeUtc().toString(Qt::ISODate).toStdString();
  j["scenario"] = scenarioToJson(document_->scenario());
  const std::string text = dumpJson(j, 2);
  // A failed autosave must not disturb the user; the next edit tries again.
  writeFileAtomically(ownFile(), text);
}

std::vector<OrphanAutosave> Autosave::orphans() const {
  std::vector<OrphanAutosave> found;
  const QDir dir(directory_);
  const auto files =
      dir.entryInfoList({QLatin1String(kPrefix) + QLatin1Char('*') + QLatin1String(kSuffix)}, QDir::Files);
  for (const QFileInfo& info : files) {
    const QString pidText =
        info.fileName().mid(static_cast<int>(sizeof kPrefix) - 1).chopped(static_cast<int>(sizeof kSuffix) - 1);
    bool ok = false;
    const qint64 pid = pidText.toLongLong(&ok);
    if (!ok || pid == QCoreApplication::applicationPid() || processAlive(pid)) continue;
    QFile file(info.filePath());
    if (info.size() > 64 * 1024 * 1024 || !file.open(QIODevice::ReadOnly)) continue;
    const QByteArray bytes = file.readAll();
    try {
      const Json j =
          parseJsonText(std::string_view(bytes.constData(), static_cast<std::size_t>(bytes.size())), "autosave");
      OrphanAutosave orphan;
      orphan.file = info.filePath();
      orphan.originalPath = QString::fromStdString(j.value("autosave_of", std::string()));
      orphan.written = QDateTime::fromString(QString::fromStdString(j.value("written", std::string())), Qt::ISODate);
      orphan.scenario = scenarioFromJson(j.at("scenario"));
      found.push_back(std::move(orphan));
    } catch (const std::exception&) {
      continue; // a torn or foreign file is not worth a dialog
    }
  }
  std::sort(found.begin(), found.end(), [](const auto& a, const auto& b) { return a.written > b.written; });
  return found;
}

void Autosave::discard(const OrphanAutosave& orphan) { QFile::remove(orphan.file); }

} // namespace shardscope::ui
