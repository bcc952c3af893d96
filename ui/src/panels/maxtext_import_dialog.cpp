// SPDX-License-Identifier: Apache-2.0
#include "panels/maxtext_import_dialog.hpp"

#include "document/app_settings.hpp"
#include "shardscope/interop/maxtext_import.hpp"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFile>
#include <QFileDialog>
#include <QFileInfo>
#include <QFormLayout>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPlainTextEdit>
#include <QPushButton>
#include <QSpinBox>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {

// A path field with a Browse button beside it.
QWidget* pathRow(QLineEdit* edit, QWidget* parent, const QString& title) {
  auto* row = new QWidget(parent);
  auto* layout = new QHBoxLayout(row);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(edit, 1);
  auto* browse = new QPushButton(QObject::tr("Browse…"), row);
  layout->addWidget(browse);
  QObject::connect(browse, &QPushButton::clicked, row, [edit, row, title] {
    const QString start =
        edit->text().isEmpty() ? AppSettings().lastDirectory() : QFileInfo(edit->text()).absolutePath();
    const QString path =
        QFileDialog::getOpenFileName(row, title, start, QObject::tr("MaxText configs (*.yml *.yaml);;All files (*)"));
    if (!path.isEmpty()) edit->setText(path);
  });
  return row;
}

} // namespace

MaxTextImportDialog::MaxTextImportDialog(const QString& opened, QWidget* parent) : QDialog(parent) {
  setWindowTitle(tr("Import a MaxText config"));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(
      tr("MaxText reads its base config, then the model's config, then what its command line adds. Shardscope "
         "imports them the same way: give what your launch passes (the topology you compile for, and any "
         "<code>key=value</code> overrides such as <code>per_device_batch_size=2</code> or "
         "<code>ici_tensor_parallelism=4</code>). Everything else keeps the base config's defaults."),
      this);
  intro->setWordWrap(true);
  layout->addWidget(intro);

  auto* form = new QFormLayout;
  base_ = new QLineEdit(this);
  base_->setPlaceholderText(tr("MaxText's configs/base.yml"));
  base_->setToolTip(tr("The base config (MaxText's configs/base.yml or your copy): mesh axes, rules and defaults"));
  model_ = new QLineEdit(this);
  model_->setPlaceholderText(tr("none: the base config's model_name"));
  model_->setToolTip(tr("The model's config (configs/models/<name>.yml); leave empty to use model_name"));
  topology_ = new QComboBox(this);
  topology_->setEditable(true);
  for (const auto& name : maxTextAcceleratorNames()) topology_->addItem(QString::fromStdString(name));
  topology_->setToolTip(tr("compile_topology: the TPU slice the job is compiled for (MaxText's "
                           "accelerator_to_spec_map names, e.g. v5p-256, v6e-256, tpu7x-512)"));
  slices_ = new QSpinBox(this);
  slices_->setRange(1, 4096);
  slices_->setToolTip(tr("compile_topology_num_slices: how many such slices, joined by DCN"));
  overrides_ = new QPlainTextEdit(this);
  overrides_->setPlaceholderText(tr("one key=value per line, as on MaxText's command line, e.g.\n"
                                    "per_device_batch_size=2\nmax_target_length=4096\nremat_policy=full"));
  overrides_->setToolTip(tr("Overrides as MaxText's command line takes them; a key the model config also sets "
                            "needs override_model_config=true, as in MaxText"));
  form->addRow(tr("&Base config:"), pathRow(base_, this, tr("Base config")));
  form->addRow(tr("&Model config:"), pathRow(model_, this, tr("Model config")));
  form->addRow(tr("Compile &topology:"), topology_);
  form->addRow(tr("&Slices:"), slices_);
  form->addRow(tr("&Overrides:"), overrides_);
  layout->addLayout(form, 1);

  error_ = new QLabel(this);
  error_->setWordWrap(true);
  error_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  error_->setStyleSheet(QStringLiteral("color: #b00020;"));
  error_->hide();
  layout->addWidget(error_);

  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Cancel, this);
  auto* import = buttons->addButton(tr("&Import"), QDialogButtonBox::AcceptRole);
  import->setDefault(true);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(import, &QPushButton::clicked, this, &MaxTextImportDialog::tryImport);
  layout->addWidget(buttons);

  // The files from what was opened; the rest as last time.
  const AppSettings::MaxTextImport last = AppSettings().maxTextImport();
  try {
    const MaxTextFiles found = maxTextFilesFor(std::filesystem::path(QFile::encodeName(opened).toStdString()));
    base_->setText(found.base.empty() ? last.base : QFile::decodeName(found.base.string().c_str()));
    model_->setText(QFile::decodeName(found.model.string().c_str()));
  } catch (const std::exception& e) { // an unreadable file: say so, let the user pick another
    base_->setText(last.base);
    error_->setText(QString::fromStdString(e.what()));
    error_->show();
  }
  setTopology(last.topology);
  slices_->setValue(last.slices);
  overrides_->setPlainText(last.overrides);
  resize(640, 460);
}

QStringList MaxTextImportDialog::files() const {
  QStringList out{base_->text().trimmed()};
  if (!model_->text().trimmed().isEmpty()) out << model_->text().trimmed();
  return out;
}

QStringList MaxTextImportDialog::overrides() const {
  QStringList out{QStringLiteral("compile_topology=") + topology_->currentText().trimmed(),
                  QStringLiteral("compile_topology_num_slices=") + QString::number(slices_->value())};
  for (const QString& line : overrides_->toPlainText().split(QLatin1Char('\n'))) {
    const QString t = line.trimmed();
    if (!t.isEmpty() && !t.startsWith(QLatin1Char('#'))) out << t;
  }
  return out;
}

void MaxTextImportDialog::setImporter(
    std::function<bool(const QStringList& files, const QStringList& overrides, QString* error)> f) {
  importer_ = std::move(f);
}

void MaxTextImportDialog::setBase(const QString& path) { base_->setText(path); }
void MaxTextImportDialog::setModel(const QString& path) { model_->setText(path); }
void MaxTextImportDialog::setTopology(const QString& name) { topology_->setCurrentText(name); }
void MaxTextImportDialog::setSlices(int slices) { slices_->setValue(slices); }
void MaxTextImportDialog::setOverrideText(const QString& text) { overrides_->setPlainText(text); }
QString MaxTextImportDialog::errorText() const { return error_->isHidden() ? QString() : error_->text(); }

void MaxTextImportDialog::tryImport() {
  if (base_->text().trimmed().isEmpty()) {
    error_->setText(tr("Give the base config (MaxText's configs/base.yml): it holds the mesh axes and the rules."));
    error_->show();
    return;
  }
  QString why;
  if (importer_ && !importer_(files(), overrides(), &why)) {
    error_->setText(why);
    error_->show();
    return;
  }
  error_->hide();
  remember();
  accept();
}

void MaxTextImportDialog::remember() const {
  AppSettings::MaxTextImport v;
  v.base = base_->text().trimmed();
  v.topology = topology_->currentText().trimmed();
  v.slices = slices_->value();
  v.overrides = overrides_->toPlainText();
  AppSettings().setMaxTextImport(v);
}

} // namespace shardscope::ui
