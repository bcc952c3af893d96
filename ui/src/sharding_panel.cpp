#include "sharding_panel.hpp"

#include "param_tree_model.hpp"
#include "presets.hpp"
#include "rules_table_model.hpp"
#include "scenario_document.hpp"
#include "spec_delegate.hpp"
#include "view_selection.hpp"

#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QRegularExpression>
#include <QSplitter>
#include <QStackedWidget>
#include <QTableView>
#include <QToolButton>
#include <QTreeView>
#include <QVBoxLayout>

namespace shardscope::ui {

ShardingPanel::ShardingPanel(ScenarioDocument* document, ViewSelection* selection, QWidget* parent)
    : QWidget(parent), document_(document), selection_(selection), params_(new ParamTreeModel(document, this)),
      rules_(new RulesTableModel(document, this)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 6, 6, 6);

  auto* top = new QHBoxLayout;
  top->addWidget(new QLabel(tr("Rule set:"), this));
  preset_ = new QComboBox(this);
  preset_->addItem(tr("(custom rules only)"), QString());
  for (const QString& name : rulePresetNames()) {
    preset_->addItem(name, name);
    preset_->setItemData(preset_->count() - 1, rulePresetDescription(name), Qt::ToolTipRole);
  }
  preset_->setToolTip(tr("A built-in rule set; the rules below are tried before it, first match wins."));
  connect(preset_, &QComboBox::activated, this, [this](int i) {
    const std::string name = preset_->itemData(i).toString().toStdString();
    document_->edit(tr("Rule set %1").arg(preset_->itemText(i)), [&](Scenario& s) { s.rules.preset = name; });
  });
  top->addWidget(preset_, 1);
  layout->addLayout(top);

  auto* splitter = new QSplitter(Qt::Vertical, this);
  treeStack_ = new QStackedWidget(splitter);
  placeholder_ = new QLabel(treeStack_);
  placeholder_->setAlignment(Qt::AlignCenter);
  placeholder_->setWordWrap(true);
  placeholder_->setText(tr("No parameter table yet.\nIt appears when the sharding engine has run for this model."));
  treeStack_->addWidget(placeholder_);
  tree_ = new QTreeView(treeStack_);
  tree_->setModel(params_);
  tree_->setUniformRowHeights(true);
  tree_->setAlternatingRowColors(true);
  tree_->setEditTriggers(QAbstractItemView::DoubleClicked | QAbstractItemView::EditKeyPressed);
  specDelegate_ = new SpecDelegate(tree_);
  tree_->setItemDelegateForColumn(ParamTreeModel::Spec, specDelegate_);
  tree_->header()->setSectionResizeMode(QHeaderView::ResizeToContents);
  tree_->header()->setStretchLastSection(true);
  tree_->setWhatsThis(tr("<b>Parameters</b><br>Every parameter with its partition spec, the largest shard and its "
                         "bytes per device. Double-click a spec to override it (this adds an exact-path rule). "
                         "Select a parameter to see its shards on the physical view."));
  connect(tree_->selectionModel(), &QItemSelectionModel::currentChanged, this, [this](const QModelIndex& current) {
    const QString path = current.siblingAtColumn(0).data(ParamTreeModel::PathRole).toString();
    if (path.isEmpty()) return;
    selection_->setParam(path);
    selection_->setMode(OverlayMode::Shard);
  });
  connect(params_, &ParamTreeModel::specRejected, this, &ShardingPanel::showMessage);
  treeStack_->addWidget(tree_);
  splitter->addWidget(treeStack_);

  // Rule editor.
  auto* rulesBox = new QWidget(splitter);
  auto* rulesLayout = new QVBoxLayout(rulesBox);
  rulesLayout->setContentsMargins(0, 0, 0, 0);
  auto* tools = new QHBoxLayout;
  tools->addWidget(new QLabel(tr("Rules (first match wins):"), rulesBox), 1);
  rulesView_ = new QTableView(rulesBox);
  rulesView_->setModel(rules_);
  rulesView_->setSelectionBehavior(QAbstractItemView::SelectRows);
  rulesView_->setSelectionMode(QAbstractItemView::SingleSelection);
  rulesView_->horizontalHeader()->setSectionResizeMode(RulesTableModel::Regex, QHeaderView::Stretch);
  rulesView_->horizontalHeader()->setSectionResizeMode(RulesTableModel::Spec, QHeaderView::Stretch);
  rulesView_->setItemDelegateForColumn(RulesTableModel::Spec, specDelegate_);
  auto addTool = [&](const QString& text, const QString& tip, auto slot) {
    auto* b = new QToolButton(rulesBox);
    b->setText(text);
    b->setToolTip(tip);
    connect(b, &QToolButton::clicked, this, slot);
    tools->addWidget(b);
  };
  addTool("+", tr("Add a rule (the regex in the test field, or a catch-all)"), [this] {
    const QString regex = regexTest_->text().isEmpty() ? QStringLiteral(".*") : regexTest_->text();
    rules_->addRule(regex, QStringLiteral("P()"));
  });
  addTool("−", tr("Remove the selected rule"), [this] { rules_->removeRule(rulesView_->currentIndex().row()); });
  addTool("↑", tr("Move the selected rule up"), [this] {
    const int r = rulesView_->currentIndex().row();
    rules_->moveRule(r, r - 1);
    rulesView_->setCurrentIndex(rules_->index(std::max(0, r - 1), 0));
  });
  addTool("↓", tr("Move the selected rule down"), [this] {
    const int r = rulesView_->currentIndex().row();
    rules_->moveRule(r, r + 1);
    rulesView_->setCurrentIndex(rules_->index(std::min(rules_->rowCount() - 1, r + 1), 0));
  });
  rulesLayout->addLayout(tools);
  rulesLayout->addWidget(rulesView_);
  regexTest_ = new QLineEdit(rulesBox);
  regexTest_->setPlaceholderText(tr("Test a regex against the parameter paths…"));
  regexTest_->setClearButtonEnabled(true);
  connect(regexTest_, &QLineEdit::textChanged, this, &ShardingPanel::testRegex);
  connect(rules_, &RulesTableModel::editRejected, this, &ShardingPanel::showMessage);
  rulesLayout->addWidget(regexTest_);
  message_ = new QLabel(rulesBox);
  message_->setWordWrap(true);
  rulesLayout->addWidget(message_);
  splitter->addWidget(rulesBox);
  splitter->setStretchFactor(0, 3);
  splitter->setStretchFactor(1, 1);
  layout->addWidget(splitter, 1);

  connect(document_, &ScenarioDocument::scenarioChanged, this, &ShardingPanel::syncFromScenario);
  syncFromScenario();
}

void ShardingPanel::syncFromScenario() {
  const QSignalBlocker block(preset_);
  const int i = preset_->findData(QString::fromStdString(document_->scenario().rules.preset));
  preset_->setCurrentIndex(std::max(0, i));
}

void ShardingPanel::setAnalysis(std::shared_ptr<const Analysis> analysis) {
  QStringList axes;
  if (analysis)
    for (const auto& name : analysis->mesh.axis_names) axes << QString::fromStdString(name);
  specDelegate_->setAxisNames(axes);
  params_->setAnalysis(analysis);
  treeStack_->setCurrentWidget(params_->parameterCount() > 0 ? static_cast<QWidget*>(tree_) : placeholder_);
  tree_->expandToDepth(0);
  // Keep the selected parameter selected across recomputes.
  const QModelIndex selected = params_->indexOfPath(selection_->param());
  if (selected.isValid()) {
    const QSignalBlocker block(tree_->selectionModel());
    tree_->setCurrentIndex(selected);
  }
  testRegex();
}

void ShardingPanel::testRegex() {
  const QString pattern = regexTest_->text();
  const QRegularExpression re(pattern);
  if (pattern.isEmpty()) {
    params_->setHighlight(QRegularExpression());
    message_->clear();
    return;
  }
  if (!re.isValid()) {
    message_->setText(tr("Invalid regex: %1").arg(re.errorString()));
    return;
  }
  const int n = params_->setHighlight(re);
  message_->setText(tr("Matches %n parameter(s).", nullptr, n));
}

void ShardingPanel::showMessage(const QString& text) { message_->setText(text); }

} // namespace shardscope::ui
