// SPDX-License-Identifier: Apache-2.0
#include "models/spec_delegate.hpp"

#include <QCompleter>
#include <QLineEdit>
#include <QStringListModel>

namespace shardscope::ui {

namespace {
// Completes the word under the cursor of a spec ("P('fsdp', t" -> tp) instead of the whole text.
class AxisCompleter : public QCompleter {
public:
  using QCompleter::QCompleter;
  QStringList splitPath(const QString& path) const override {
    const int cut = static_cast<int>(path.lastIndexOf(QRegularExpression("[^A-Za-z0-9_-]")));
    return {path.mid(cut + 1)};
  }
  QString pathFromIndex(const QModelIndex& index) const override {
    const auto* edit = qobject_cast<QLineEdit*>(widget());
    const QString text = edit ? edit->text() : QString();
    const int cut = static_cast<int>(text.lastIndexOf(QRegularExpression("[^A-Za-z0-9_-]")));
    return text.left(cut + 1) + index.data().toString();
  }
};
} // namespace

QWidget* SpecDelegate::createEditor(QWidget* parent, const QStyleOptionViewItem&, const QModelIndex&) const {
  auto* edit = new QLineEdit(parent);
  auto* completer = new AxisCompleter(edit);
  QStringList words = axisNames_;
  words << "None";
  completer->setModel(new QStringListModel(words, completer));
  completer->setCaseSensitivity(Qt::CaseInsensitive);
  edit->setCompleter(completer);
  edit->setPlaceholderText("P('fsdp', 'tp')");
  return edit;
}

} // namespace shardscope::ui
