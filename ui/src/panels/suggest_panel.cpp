// SPDX-License-Identifier: Apache-2.0
#include "panels/suggest_panel.hpp"

#include "document/layout_search_runner.hpp"
#include "document/scenario_document.hpp"
#include "models/layout_rows_model.hpp"
#include "models/presets.hpp"
#include "panels/table_export.hpp"
#include "views/device_overlay.hpp"

#include <QAction>
#include <cmath>
#include <QCheckBox>
#include <QGridLayout>
#include <QGroupBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QItemSelectionModel>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QToolButton>
#include <QVBoxLayout>

namespace shardscope::ui {

namespace {
const char* const kAxes[] = {"dp", "fsdp", "tp", "ep", "cp", "sp"};
const Recompute kRecomputes[] = {Recompute::None, Recompute::Selective, Recompute::Full};

QString secondsText(double ms) { return formatSeconds(ms / 1000); }

// One edit of the user's layout that makes it fit, in words.
QString fixText(const MemoryFix& fix) {
  QString cost;
  if (fix.step_time_change_s)
    cost = QObject::tr(", step %1%2")
               .arg(*fix.step_time_change_s >= 0 ? QStringLiteral("+") : QStringLiteral("−"))
               .arg(formatSeconds(std::abs(*fix.step_time_change_s)));
  return QObject::tr("%1 (saves %2, %3 of %4 HBM%5)")
      .arg(QString::fromStdString(fix.edit), formatBytes(fix.saved_bytes), formatBytes(fix.max_bytes),
           formatBytes(fix.hbm_bytes), cost);
}
} // namespace

QString SuggestPanel::verdictOf(const LayoutSearchResult& result) {
  // A layout that does not fit: first the smallest edits of it that do (they keep its mesh).
  if (result.current && !result.current->fits && !result.fixes.empty()) {
    QStringList fixes;
    for (const auto& f : result.fixes) fixes << fixText(f);
    return tr("Yours does not fit in HBM. The smallest edits of it that fit, cheapest first:\n  %1")
        .arg(fixes.join("\n  "));
  }
  if (!result.current || result.rows.empty()) return {};
  const LayoutRow& yours = *result.current;
  const LayoutRow& best = result.rows.front();
  if (!yours.step_time_s || !best.step_time_s || *best.step_time_s <= 0) return {};
  if (!yours.fits)
    return tr("Yours does not fit in HBM; the best that fits takes %1 per step.")
        .arg(LayoutRowsModel::formatSeconds(best.step_time_s));
  // Within 0.05%: as fast (the table rounds to that), not "0.0% longer".
  if (*yours.step_time_s <= *best.step_time_s * 1.0005) return tr("Yours is already as fast as the best found.");
  // How much longer yours takes than the best, as the families lines put it.
  return tr("Yours takes %1% longer per step than the best (%2).")
      .arg(100.0 * (*yours.step_time_s / *best.step_time_s - 1.0), 0, 'f', 1)
      .arg(QString::fromStdString(best.mesh));
}

SuggestPanel::SuggestPanel(ScenarioDocument* document, QWidget* parent)
    : QWidget(parent), document_(document), runner_(new LayoutSearchRunner(this)), model_(new LayoutRowsModel(this)) {
  setWhatsThis(tr("<b>Suggest</b> runs every layout the filters allow through the same analysis as the views "
                  "(placement, shards, memory, step time) and ranks those that fit by step time. Your own "
                  "layout is the highlighted first row. Double-click a row, or select it and press Apply, to use "
                  "it (one undo step)."));
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  layout->addWidget(buildFilters());
  roleNames_ = new QLabel(this);
  roleNames_->setObjectName("suggestRoleNames");
  roleNames_->setWordWrap(true);
  roleNames_->hide();
  layout->addWidget(roleNames_);

  // Search, cancel, progress.
  searchAction_ = new QAction(tr("&Search Layouts"), this);
  searchAction_->setShortcut(QKeySequence(Qt::CTRL | Qt::SHIFT | Qt::Key_F));
  searchAction_->setToolTip(
      tr("Search layouts for this workspace (%1)").arg(searchAction_->shortcut().toString(QKeySequence::NativeText)));
  connect(searchAction_, &QAction::triggered, this, &SuggestPanel::startSearch);
  auto* buttons = new QHBoxLayout;
  search_ = new QToolButton(this);
  search_->setDefaultAction(searchAction_);
  search_->setToolButtonStyle(Qt::ToolButtonTextOnly);
  search_->setText(tr("Search"));
  cancel_ = new QPushButton(tr("Cancel"), this);
  connect(cancel_, &QPushButton::clicked, this, &SuggestPanel::cancelSearch);
  progress_ = new QProgressBar(this);
  progress_->setTextVisible(true);
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(tr("not searched yet"));
  buttons->addWidget(search_);
  buttons->addWidget(cancel_);
  buttons->addWidget(progress_, 1);
  layout->addLayout(buttons);

  summary_ = new QLabel(tr("Search to rank the layouts this hardware can run for this model."), this);
  summary_->setWordWrap(true);
  summary_->setTextFormat(Qt::PlainText);
  layout->addWidget(summary_);

  table_ = new QTableView(this);
  addTableExportActions(table_, QStringLiteral("suggested-layouts.csv"));
  table_->setModel(model_);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  table_->verticalHeader()->hide();
  table_->verticalHeader()->setDefaultSectionSize(table_->fontMetrics().height() + 6);
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->setWordWrap(false);
  connect(table_, &QTableView::doubleClicked, this, [this](const QModelIndex& index) { applyRow(index.row()); });
  connect(table_->selectionModel(), &QItemSelectionModel::selectionChanged, this, &SuggestPanel::updateButtons);
  layout->addWidget(table_, 1);

  actionRow_ = new QWidget(this);
  auto* actions = new QHBoxLayout(actionRow_);
  actions->setContentsMargins(0, 0, 0, 0);
  apply_ = new QPushButton(tr("Apply"), actionRow_);
  apply_->setToolTip(tr("Use the selected layout's mesh, rules and training options (one undo step)"));
  connect(apply_, &QPushButton::clicked, this, [this] {
    const auto rows = table_->selectionModel()->selectedRows();
    if (!rows.isEmpty()) applyRow(rows.front().row());
  });
  actions->addWidget(apply_);
  actions->addStretch(1);
  layout->addWidget(actionRow_);

  auto* familiesLabel = new QLabel(tr("Why the other families lost"), this);
  layout->addWidget(familiesLabel);
  families_ = new QPlainTextEdit(this);
  families_->setReadOnly(true);
  families_->setMaximumHeight(families_->fontMetrics().lineSpacing() * 6 + 12);
  families_->setPlaceholderText(tr("One line per family of layouts (which axes are larger than 1)."));
  layout->addWidget(families_);

  followRunnerAndDocument();
  showRoleNames();
  updateButtons();
}

QGroupBox* SuggestPanel::buildFilters() {
  // Filters. An unchecked group keeps core's default, which the group's tooltip names.
  auto* filters = new QGroupBox(tr("Search over"), this);
  auto* grid = new QGridLayout(filters);
  grid->setContentsMargins(6, 4, 6, 4);
  grid->setHorizontalSpacing(6);
  grid->setVerticalSpacing(2);
  auto rowLabel = [&](int row, const QString& text, const QString& tip) {
    auto* label = new QLabel(text, filters);
    label->setToolTip(tip);
    grid->addWidget(label, row, 0);
  };
  rowLabel(0, tr("Axes"),
           tr("Mesh axes a candidate may use. None checked: dp, fsdp, tp (+ ep for MoE models, + cp and sp "
              "for sequences of 32k tokens or more). cp: context parallelism, the sequence split with the weights "
              "whole; sp: a sequence axis that shards the weights too. On a workspace with its own axis names "
              "(a MaxText import) each role shows the name its rows use."));
  rowLabel(1, tr("At most"), tr("Largest size of each axis (any: no limit)."));
  int column = 1;
  for (const char* name : kAxes) {
    auto* box = new QCheckBox(QString::fromLatin1(name), filters);
    auto* spin = new QSpinBox(filters);
    // Six columns fit a 1366-wide window's dock: "any" or four digits, and the arrows.
    spin->setMaximumWidth(spin->fontMetrics().horizontalAdvance(QStringLiteral("9999")) + 30);
    spin->setRange(0, 1 << 20);
    spin->setSpecialValueText(tr("any"));
    spin->setToolTip(tr("Largest size of %1 (any: no limit)").arg(QString::fromLatin1(name)));
    grid->addWidget(box, 0, column);
    grid->addWidget(spin, 1, column);
    axes_[QString::fromLatin1(name)] = {box, spin};
    ++column;
  }
  auto addChecks = [&](int row, const QString& label, const QString& tip, const QStringList& names, auto&& store) {
    rowLabel(row, label, tip);
    auto* line = new QHBoxLayout;
    line->setSpacing(8);
    for (int i = 0; i < names.size(); ++i) {
      auto* box = new QCheckBox(names[i], filters);
      box->setToolTip(tip);
      line->addWidget(box);
      store(i, box);
    }
    line->addStretch(1);
    grid->addLayout(line, row, 1, 1, column - 1);
  };
  const QStringList presetNames = rulePresetNames();
  addChecks(2, tr("Rules"), tr("Rule presets to try. None checked: yours, plus fsdp-tp (ep for MoE models)."),
            presetNames, [&](int i, QCheckBox* box) {
              box->setToolTip(rulePresetDescription(presetNames[i]));
              presets_[presetNames[i]] = box;
            });
  addChecks(3, tr("ZeRO"), tr("ZeRO stages to try. None checked: yours."), {"0", "1", "2"},
            [&](int i, QCheckBox* box) { zeros_[i] = box; });
  addChecks(4, tr("Recompute"), tr("Activation recomputation policies to try. None checked: yours."),
            {LayoutRowsModel::recomputeName(Recompute::None), LayoutRowsModel::recomputeName(Recompute::Selective),
             LayoutRowsModel::recomputeName(Recompute::Full)},
            [&](int i, QCheckBox* box) { recomputes_[i] = box; });
  rowLabel(5, tr("Orders"), tr("JAX places each order of the axes differently on the hardware."));
  orders_ = new QCheckBox(tr("try every axis order"), filters);
  orders_->setChecked(true);
  orders_->setToolTip(tr("Off: one order per size assignment (faster)"));
  grid->addWidget(orders_, 5, 1, 1, 3);
  auto* topLabel = new QLabel(tr("keep"), filters);
  topLabel->setAlignment(Qt::AlignRight | Qt::AlignVCenter);
  grid->addWidget(topLabel, 5, 4);
  top_ = new QSpinBox(filters);
  top_->setRange(1, 500);
  top_->setValue(20);
  top_->setSuffix(tr(" rows"));
  top_->setToolTip(tr("Ranked rows kept (best first)"));
  grid->addWidget(top_, 5, 5);
  grid->setColumnStretch(column, 1);
  return filters;
}

void SuggestPanel::followRunnerAndDocument() {
  connect(runner_, &LayoutSearchRunner::progress, this, [this](qint64 done, qint64 total) {
    progress_->setRange(0, static_cast<int>(std::min<qint64>(total, INT_MAX)));
    progress_->setValue(static_cast<int>(std::min<qint64>(done, INT_MAX)));
  });
  connect(runner_, &LayoutSearchRunner::finished, this, &SuggestPanel::onFinished);
  connect(runner_, &LayoutSearchRunner::failed, this, &SuggestPanel::onFailed);
  connect(document_, &ScenarioDocument::scenarioChanged, this, &SuggestPanel::onScenarioChanged);
  // Another workspace's rows are no layouts of this one: Apply would put that workspace's mesh here.
  connect(document_, &ScenarioDocument::replaced, this, &SuggestPanel::forgetResult);
}

QCheckBox* SuggestPanel::axisBox(const QString& axis) const {
  const auto it = axes_.find(axis);
  return it == axes_.end() ? nullptr : it->second.first;
}
QSpinBox* SuggestPanel::maxSpin(const QString& axis) const {
  const auto it = axes_.find(axis);
  return it == axes_.end() ? nullptr : it->second.second;
}
QCheckBox* SuggestPanel::presetBox(const QString& preset) const {
  const auto it = presets_.find(preset);
  return it == presets_.end() ? nullptr : it->second;
}
QCheckBox* SuggestPanel::zeroBox(int stage) const {
  const auto it = zeros_.find(stage);
  return it == zeros_.end() ? nullptr : it->second;
}
QCheckBox* SuggestPanel::recomputeBox(Recompute r) const {
  const auto it = recomputes_.find(static_cast<int>(r));
  return it == recomputes_.end() ? nullptr : it->second;
}

LayoutSearchOptions SuggestPanel::options() const {
  LayoutSearchOptions o;
  for (const char* name : kAxes) {
    const auto& [box, spin] = axes_.at(QString::fromLatin1(name));
    if (box->isChecked()) o.axes.emplace_back(name);
    if (spin->value() > 0) o.max_size[name] = spin->value();
  }
  for (const auto& [name, box] : presets_)
    if (box->isChecked()) o.presets.push_back(name.toStdString());
  // Keep the presets in the order core lists them (the map sorts by name).
  std::vector<std::string> ordered;
  for (const QString& name : rulePresetNames())
    if (std::find(o.presets.begin(), o.presets.end(), name.toStdString()) != o.presets.end())
      ordered.push_back(name.toStdString());
  o.presets = std::move(ordered);
  for (const auto& [stage, box] : zeros_)
    if (box->isChecked()) o.zero_stages.push_back(stage);
  for (Recompute r : kRecomputes)
    if (recomputeBox(r)->isChecked()) o.recompute.push_back(r);
  o.orders = orders_->isChecked();
  o.top = static_cast<std::size_t>(top_->value());
  return o;
}

void SuggestPanel::startSearch() {
  cancelledByEdit_ = false;
  stale_ = false;
  progress_->setRange(0, 0); // busy until the first progress report (placing the meshes)
  progress_->setValue(0);
  progress_->setFormat(tr("%v / %m candidates"));
  summary_->setText(tr("Searching…"));
  runner_->start(document_->scenario(), options());
  updateButtons();
}

void SuggestPanel::cancelSearch() {
  runner_->cancel();
  updateButtons();
}

bool SuggestPanel::isSearching() const { return runner_->isBusy(); }

bool SuggestPanel::waitForSearch(int timeoutMs) { return runner_->waitForIdle(timeoutMs); }

bool SuggestPanel::applyRow(int row) {
  const LayoutRow* layout = model_->layoutAt(row);
  if (!layout) return false;
  const Scenario before = document_->scenario();
  const Scenario& chosen = layout->scenario;
  const QString mesh = QString::fromStdString(layout->mesh);
  document_->edit(tr("Apply layout %1").arg(mesh), [&chosen](Scenario& s) {
    s.mesh = chosen.mesh;
    s.rules = chosen.rules;
    s.training = chosen.training;
  });
  return !(document_->scenario() == before);
}

void SuggestPanel::addButtonFor(QAction* action) {
  auto* button = new QToolButton(actionRow_);
  button->setDefaultAction(action);
  button->setToolButtonStyle(Qt::ToolButtonTextOnly);
  actionRow_->layout()->addWidget(button);
}

void SuggestPanel::onFinished() {
  const auto result = runner_->result();
  model_->setResult(result);
  if (!result->rows.empty()) table_->selectRow(model_->tableRowOfRank(0));
  QStringList lines;
  const QString took = secondsText(runner_->lastWallMs());
  if (result->cancelled)
    lines << (cancelledByEdit_ ? tr("Cancelled: the workspace changed. Search again to rank against it.")
                               : tr("Cancelled after %1 of %2 candidates (%3); the rows are the best of those.")
                                     .arg(result->evaluated)
                                     .arg(result->candidates_total)
                                     .arg(took));
  else
    lines << tr("%1 candidates (%2 merged: placed alike), %3 evaluated in %4; %5 shown, best first.")
                 .arg(result->candidates_total)
                 .arg(result->merged)
                 .arg(result->evaluated)
                 .arg(took)
                 .arg(result->rows.size());
  {
    QStringList parts;
    for (const auto& [why, n] : result->rejected)
      if (n > 0) parts << tr("%1 %2").arg(n).arg(QString::fromStdString(why));
    if (!parts.isEmpty()) lines << tr("Rejected: %1.").arg(parts.join(" · "));
  }
  if (!result->current)
    lines << tr("Your layout cannot be placed on this hardware, so it has no row.");
  else if (const QString verdict = verdictOf(*result); !verdict.isEmpty())
    lines << verdict;
  summary_->setText(lines.join("\n"));
  QStringList families;
  for (const auto& f : result->families) families << QString::fromStdString(f);
  families_->setPlainText(families.join("\n"));
  // The bar keeps the last count the search reported.
  progress_->setRange(0,
                      std::max(progress_->maximum(), static_cast<int>(std::min<qint64>(result->evaluated, INT_MAX))));
  progress_->setValue(static_cast<int>(std::min<qint64>(result->evaluated, INT_MAX)));
  if (result->cancelled) progress_->setFormat(tr("%v / %m candidates (cancelled)"));
  updateButtons();
  emit searchDelivered();
}

void SuggestPanel::onFailed(const QString& message) {
  model_->setResult(nullptr);
  families_->clear();
  summary_->setText(tr("The search could not run: %1").arg(message));
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(tr("failed"));
  updateButtons();
  emit searchDelivered();
}

void SuggestPanel::showRoleNames() {
  // The roles a box searches under the workspace's own names, which its rows use: one line under
  // the filters ("dp is data, tp is tensor, ..."), and each box's tooltip.
  const auto own = searchRoleNames(document_->scenario());
  QStringList pairs;
  for (const char* name : kAxes) {
    const auto it = own.find(name);
    QCheckBox* box = axes_.at(QString::fromLatin1(name)).first;
    box->setToolTip(it == own.end() ? tr("Search over the %1 role").arg(QString::fromLatin1(name))
                                    : tr("Search over the %1 role: this workspace's %2 axis")
                                          .arg(QString::fromLatin1(name), QString::fromStdString(it->second)));
    if (it != own.end() && it->second != name)
      pairs << tr("%1 is %2").arg(QString::fromLatin1(name), QString::fromStdString(it->second));
  }
  roleNames_->setText(tr("In this workspace's names (its rows use them): %1.").arg(pairs.join(QStringLiteral(", "))));
  roleNames_->setVisible(!pairs.isEmpty());
}

void SuggestPanel::onScenarioChanged() {
  showRoleNames();
  if (runner_->isBusy()) {
    cancelledByEdit_ = true;
    runner_->cancel();
  } else if (model_->result() && !stale_) {
    stale_ = true;
    summary_->setText(summary_->text() + "\n" +
                      tr("The workspace changed since this search (\"yours\" is the layout as it was)."));
  }
  updateButtons();
}

void SuggestPanel::forgetResult() {
  if (runner_->isBusy()) {
    cancelledByEdit_ = true;
    runner_->cancel();
  }
  if (!model_->result()) return; // nothing of the previous workspace's to forget
  model_->setResult(nullptr);
  stale_ = false;
  summary_->setText(tr("Another workspace was opened: search again to rank its layouts."));
  families_->clear();
  progress_->setRange(0, 1);
  progress_->setValue(0);
  progress_->setFormat(QString());
  updateButtons();
}

void SuggestPanel::updateButtons() {
  const bool busy = runner_->isBusy();
  cancel_->setEnabled(busy);
  const auto rows = table_->selectionModel()->selectedRows();
  apply_->setEnabled(!rows.isEmpty() && model_->layoutAt(rows.front().row()));
}

} // namespace shardscope::ui
