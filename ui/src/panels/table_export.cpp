// SPDX-License-Identifier: Apache-2.0
#include "panels/table_export.hpp"

#include "document/app_settings.hpp"
#include "document/atomic_write.hpp"

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QFileDialog>
#include <QMessageBox>
#include <QStringList>
#include <QTableView>

namespace shardscope::ui {

namespace {
QString csvField(const QString& text) {
  if (!text.contains(QLatin1Char(',')) && !text.contains(QLatin1Char('"')) && !text.contains(QLatin1Char('\n')) &&
      !text.contains(QLatin1Char('\r')))
    return text;
  QString quoted = text;
  quoted.replace(QLatin1String("\""), QLatin1String("\"\""));
  return QLatin1Char('"') + quoted + QLatin1Char('"');
}
} // namespace

QString tableToCsv(const QTableView& view) {
  const QAbstractItemModel* model = view.model();
  if (!model) return {};
  QStringList lines;
  QStringList fields;
  for (int c = 0; c < model->columnCount(); ++c)
    if (!view.isColumnHidden(c)) fields << csvField(model->headerData(c, Qt::Horizontal).toString());
  lines << fields.join(QLatin1Char(','));
  for (int r = 0; r < model->rowCount(); ++r) {
    fields.clear();
    for (int c = 0; c < model->columnCount(); ++c)
      if (!view.isColumnHidden(c)) fields << csvField(model->index(r, c).data(Qt::DisplayRole).toString());
    lines << fields.join(QLatin1Char(','));
  }
  return lines.join(QLatin1String("\r\n")) + QLatin1String("\r\n");
}

void addTableExportActions(QTableView* view, const QString& defaultName) {
  view->setContextMenuPolicy(Qt::ActionsContextMenu);
  auto* copy = new QAction(QObject::tr("Copy as CSV"), view);
  copy->setObjectName("copyCsvAction");
  QObject::connect(copy, &QAction::triggered, view, [view] { QApplication::clipboard()->setText(tableToCsv(*view)); });
  auto* save = new QAction(QObject::tr("Export CSV…"), view);
  save->setObjectName("exportCsvAction");
  QObject::connect(save, &QAction::triggered, view, [view, defaultName] {
    const QString path =
        QFileDialog::getSaveFileName(view, QObject::tr("Export table"),
                                     AppSettings().lastDirectory() + "/" + defaultName, QObject::tr("CSV (*.csv)"));
    if (path.isEmpty()) return;
    QString error;
    if (!writeFileAtomically(path, tableToCsv(*view).toStdString(), &error))
      QMessageBox::warning(view, QObject::tr("Export table"), error);
  });
  view->addAction(copy);
  view->addAction(save);
}

} // namespace shardscope::ui
