// SPDX-License-Identifier: Apache-2.0
// Opening a MaxText config: what MaxText's command line would add to it before the run. The base
// config (base.yml, found beside a model config), the model config, the compile topology and its
// slices, and key=value overrides as MaxText takes them; the last values are remembered
// (AppSettings). Import runs core's importMaxText; an error is shown in the dialog, which stays
// open with everything typed, until the import succeeds or the user cancels.
#pragma once

#include <QDialog>
#include <QStringList>

#include <functional>

class QComboBox;
class QLabel;
class QLineEdit;
class QPlainTextEdit;
class QSpinBox;

namespace shardscope::ui {

class MaxTextImportDialog : public QDialog {
  Q_OBJECT
public:
  // `opened` is the yml the user opened; base and model are guessed from it (core's
  // maxTextFilesFor), the rest comes from the last import.
  explicit MaxTextImportDialog(const QString& opened, QWidget* parent = nullptr);

  QStringList files() const;     // base, then the model config when one is given
  QStringList overrides() const; // compile_topology, compile_topology_num_slices, then the typed ones
  // Runs the import when the user presses Import: true when it succeeded (the dialog then
  // accepts), false with the message shown in the dialog.
  void setImporter(std::function<bool(const QStringList& files, const QStringList& overrides, QString* error)> f);

  void setBase(const QString& path);
  void setModel(const QString& path);
  void setTopology(const QString& name);
  void setSlices(int slices);
  void setOverrideText(const QString& text);
  QString errorText() const;
  // Presses Import (what the button does).
  void tryImport();

private:
  void remember() const;

  QLineEdit* base_;
  QLineEdit* model_;
  QComboBox* topology_;
  QSpinBox* slices_;
  QPlainTextEdit* overrides_;
  QLabel* error_;
  std::function<bool(const QStringList&, const QStringList&, QString*)> importer_;
};

} // namespace shardscope::ui
