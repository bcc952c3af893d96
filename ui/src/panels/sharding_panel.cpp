// SPDX-License-Identifier: Apache-2.0
#include "panels/sharding_panel.hpp"

#include "document/atomic_write.hpp"
#include "models/param_tree_model.hpp"
#include "models/presets.hpp"
#include "models/rules_table_model.hpp"
#include "views/shard_grid_view.hpp"
#include "document/scenario_document.hpp"
#include "models/spec_delegate.hpp"
#include "views/view_selection.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/inspect/inspect_mesh.hpp"
#include "shardscope/inspect/sharding_text.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"
#include "shardscope/sharding/rule_file.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"

#include <QComboBox>
#include <QFileDialog>
#include <QFileInfo>
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

  // Decode sharding: an HLO sharding string from an XLA dump, and the array's shape.
  auto* decode = new QHBoxLayout;
  decode->addWidget(new QLabel(tr("Decode sharding:"), this));
  hloText_ = new QLineEdit(this);
  hloText_->setPlaceholderText(tr("{devices=[4,2]<=[8]} from an HLO dump"));
  hloText_->setClearButtonEnabled(true);
  hloText_->setToolTip(tr("An XLA HLO sharding (sharding={...} in an HLO dump): {replicated}, {maximal device=N}, "
                          "{devices=[..]ids}, {devices=[..]<=[..]T(..)}, last_tile_dim_replicate, "
                          "last_tile_dims={..}. Device id k is the mesh's k-th device (row-major). "
                          "Press Enter to show its blocks on the views."));
  decode->addWidget(hloText_, 3);
  hloShape_ = new QLineEdit(this);
  hloShape_->setPlaceholderText(tr("shape, e.g. 8192,28672"));
  hloShape_->setToolTip(tr("The array's dimensions, separated by commas"));
  decode->addWidget(hloShape_, 1);
  layout->addLayout(decode);
  hloMessage_ = new QLabel(this);
  hloMessage_->setWordWrap(true);
  hloMessage_->setTextInteractionFlags(Qt::TextSelectableByMouse);
  hloMessage_->hide();
  layout->addWidget(hloMessage_);
  connect(hloText_, &QLineEdit::returnPressed, this, &ShardingPanel::decodeSharding);
  connect(hloShape_, &QLineEdit::returnPressed, this, &ShardingPanel::decodeSharding);
  connect(hloText_, &QLineEdit::textChanged, this, [this](const QString& text) {
    if (text.isEmpty()) decodeSharding(); // the clear button stops showing it
  });

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
    selection_->setDecoded(nullptr); // a parameter picked in the tree replaces a decoded sharding
    selection_->setParam(path);
    selection_->setMode(OverlayMode::Shard);
  });
  connect(params_, &ParamTreeModel::specRejected, this, &ShardingPanel::showMessage);
  treeStack_->addWidget(tree_);
  splitter->addWidget(treeStack_);
  shardGrid_ = new ShardGridView(selection_, splitter);
  splitter->addWidget(shardGrid_);

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
  addTool(tr("Copy preset"),
          tr("Make the preset's rules (greyed, below yours) your own rules to edit, and switch the preset off: "
             "every parameter keeps its spec"),
          [this] { rules_->copyPresetRules(); });
  addTool(tr("Import…"), tr("Replace the rules with those of a rule file (JSON [regex, spec] pairs)"),
          [this] { importRulesDialog(); });
  addTool(tr("Export…"), tr("Save the rules in effect (these, then the preset's) as a rule file"),
          [this] { exportRulesDialog(); });
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
  splitter->setStretchFactor(1, 2);
  splitter->setStretchFactor(2, 1);
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
  analysis_ = analysis;
  QStringList axes;
  if (analysis)
    for (const auto& name : analysis->mesh.axis_names) axes << QString::fromStdString(name);
  specDelegate_->setAxisNames(axes);
  params_->setAnalysis(analysis);
  shardGrid_->setAnalysis(analysis);
  treeStack_->setCurrentWidget(params_->parameterCount() > 0 ? static_cast<QWidget*>(tree_) : placeholder_);
  tree_->expandToDepth(0);
  // Keep the selected parameter selected across recomputes.
  const QModelIndex selected = params_->indexOfPath(selection_->param());
  if (selected.isValid()) {
    const QSignalBlocker block(tree_->selectionModel());
    tree_->setCurrentIndex(selected);
  }
  testRegex();
  // The mesh may have changed under a decoded sharding: decode it again (or say why it no longer fits).
  if (selection_->decoded()) decodeSharding();
}

bool ShardingPanel::decodeSharding() {
  const QString text = hloText_->text().trimmed();
  const auto fail = [this](const QString& why) {
    selection_->setDecoded(nullptr);
    hloMessage_->setStyleSheet(QStringLiteral("color: #c0392b"));
    hloMessage_->setText(why);
    hloMessage_->show();
    return false;
  };
  if (text.isEmpty()) {
    selection_->setDecoded(nullptr);
    hloMessage_->clear();
    hloMessage_->hide();
    return false;
  }
  Shape shape;
  const QString shapeText = hloShape_->text().trimmed();
  if (shapeText.isEmpty()) return fail(tr("Shape: give the array's dimensions, e.g. 8192,28672"));
  for (const QString& part : shapeText.split(QRegularExpression(QStringLiteral("[,x ]+")), Qt::SkipEmptyParts)) {
    bool ok = false;
    const qlonglong v = part.toLongLong(&ok);
    if (!ok || v < 0) return fail(tr("Shape: '%1' is not a non-negative integer").arg(part));
    shape.push_back(v);
  }
  if (!analysis_ || analysis_->mesh.devices.empty()) return fail(tr("No mesh yet to place the devices on"));
  auto decoded = std::make_shared<DecodedSharding>();
  try {
    // As it stands in a dump (sharding={...}, a quoted "{...}", a trailing metadata) or a Shardy
    // sharding of JAX's lowered text, on the workspace's mesh (device i = the mesh's i-th device).
    const InspectMesh mesh = inspectMeshOf(MeshAxes(analysis_->mesh.axis_names, analysis_->mesh.shape()));
    const HloSharding sharding = parseHloSharding(hloShardingTextOf(text.toStdString(), &mesh));
    const auto devices = static_cast<std::int64_t>(analysis_->mesh.grid.data().size());
    const HloDecoded blocks = decodeHloSharding(sharding, shape, devices);
    decoded->text = QString::fromStdString(hloShardingToString(sharding));
    decoded->shape = shape;
    decoded->blocks = hloShardBlocks(blocks, shape, parseDType("float32"));
  } catch (const Error& e) {
    return fail(QString::fromStdString(e.what()));
  }
  hloMessage_->setStyleSheet(QString());
  hloMessage_->setText(tr("%1: %2 block(s), each on %3 device(s); device id k is the mesh's k-th device. "
                          "Select a parameter to go back to it.")
                           .arg(decoded->text)
                           .arg(decoded->blocks.blocks.size())
                           .arg(decoded->blocks.layout.replication));
  hloMessage_->show();
  selection_->setDecoded(std::move(decoded));
  selection_->setMode(OverlayMode::Shard);
  return true;
}

void ShardingPanel::render(QPainter& painter, const QRectF& target) { shardGrid_->render(painter, target); }

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
  // Reveal the matches: their groups opened (the first 200: a pattern matching a whole 46k-path
  // model would open everything), the first scrolled into view.
  constexpr int kRevealed = 200;
  const QModelIndexList matches = params_->highlightedIndexes(kRevealed);
  for (const QModelIndex& m : matches)
    for (QModelIndex p = m.parent(); p.isValid(); p = p.parent()) tree_->expand(p);
  if (!matches.isEmpty()) tree_->scrollTo(matches.front(), QAbstractItemView::PositionAtTop);
  if (n > kRevealed) message_->setText(tr("Matches %1 parameters; the first %2 are shown.").arg(n).arg(kRevealed));
}

void ShardingPanel::showMessage(const QString& text) { message_->setText(text); }

bool ShardingPanel::importRules(const QString& path, QString* error) {
  std::vector<PartitionRule> rules;
  try {
    rules = loadRuleFile(path.toStdString());
    RuleSet check(rules); // compiles every regex: a bad one is refused here, naming its rule
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  document_->edit(tr("Import rules from %1").arg(QFileInfo(path).fileName()),
                  [&](Scenario& s) { s.rules = rulesChoiceOf(rules); });
  return true;
}

bool ShardingPanel::exportRules(const QString& path, QString* error) const {
  std::vector<PartitionRule> rules;
  try {
    const MeshAxes mesh = analysis_ ? MeshAxes::fromMesh(analysis_->mesh) : MeshAxes{};
    rules = rulesInEffect(document_->scenario().rules, analysis_ ? &mesh : nullptr);
  } catch (const Error& e) {
    if (error) *error = QString::fromStdString(e.what());
    return false;
  }
  return writeFileAtomically(path, dumpJson(rulesToJson(rules), 2) + "\n", error);
}

void ShardingPanel::importRulesDialog() {
  const QString path =
      QFileDialog::getOpenFileName(this, tr("Import rules"), QString(), tr("Rule files (*.json);;All files (*)"));
  if (path.isEmpty()) return;
  QString error;
  if (importRules(path, &error))
    showMessage(tr("Imported %1 rules from %2; the preset is off (pick one to cover what they miss).")
                    .arg(document_->scenario().rules.rules.size())
                    .arg(QFileInfo(path).fileName()));
  else
    showMessage(error);
}

void ShardingPanel::exportRulesDialog() {
  const QString path =
      QFileDialog::getSaveFileName(this, tr("Export rules"), QStringLiteral("rules.json"), tr("Rule files (*.json)"));
  if (path.isEmpty()) return;
  QString error;
  showMessage(exportRules(path, &error) ? tr("Rules written to %1.").arg(QFileInfo(path).fileName()) : error);
}

} // namespace shardscope::ui
