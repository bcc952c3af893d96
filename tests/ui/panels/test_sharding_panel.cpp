// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "models/param_tree_model.hpp"
#include "models/rules_table_model.hpp"
#include "views/physical_view.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/shard_grid_view.hpp"
#include "panels/sharding_panel.hpp"
#include "document/scenario_document.hpp"
#include "views/view_selection.hpp"

#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QFile>
#include <QTemporaryDir>
#include <QTest>
#include <QUndoStack>
#include <QTreeView>

#include <catch2/catch.hpp>

#include <set>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
// The real mesh of v4 4x4x8 (data 8, fsdp 4, tp 4) with two parameters the views can shard.
std::shared_ptr<const Analysis> meshWithParams() {
  Scenario s = defaultScenario();
  s.mesh.axes = {{"data", 8, 1}, {"fsdp", 4, 1}, {"tp", 4, 1}};
  auto a = std::make_shared<Analysis>(analyze(s));
  Model model;
  model.params = {{"layers.0.mlp.up_proj.weight", {14336, 4096}, "bfloat16"},
                  {"layers.0.input_layernorm.weight", {4096}, "bfloat16"}};
  std::vector<ParamSharding> shardings = {
      {PartitionSpec::parse("P('tp', 'fsdp')"), {3584, 1024}, 3584.0 * 1024 * 2, false, {}},
      {PartitionSpec::parse("P(None,)"), {4096}, 3584.0 * 1024 * 2, false, {}}};
  a->params = ParamTable::ungrouped(std::move(model), "bfloat16", std::move(shardings));
  return a;
}
} // namespace

TEST_CASE("selecting a parameter colours its shards on the physical view", "[ui][sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  PhysicalView view(&selection);
  const auto analysis = meshWithParams();
  panel.setAnalysis(analysis);
  view.setAnalysis(analysis);

  const QModelIndex up = panel.paramModel()->indexOfPath("layers.0.mlp.up_proj.weight");
  REQUIRE(up.isValid());
  panel.tree()->setCurrentIndex(up);
  CHECK(selection.param() == "layers.0.mlp.up_proj.weight");
  CHECK(selection.mode() == OverlayMode::Shard);
  // P('tp', 'fsdp') on data 8 x fsdp 4 x tp 4: 16 shards, each held by the 8 devices of a data group.
  std::set<QRgb> colors;
  for (const QColor& c : view.overlay().colors) colors.insert(c.rgba());
  CHECK(colors.size() >= 12); // 16 shards; the categorical scale repeats only beyond its base set
  CHECK(view.overlay().legend.title.contains("16 shards"));

  // A replicated parameter: every device the same colour.
  panel.tree()->setCurrentIndex(panel.paramModel()->indexOfPath("layers.0.input_layernorm.weight"));
  colors.clear();
  for (const QColor& c : view.overlay().colors) colors.insert(c.rgba());
  CHECK(colors.size() == 1);
  CHECK(view.overlay().legend.title.contains("replicated"));

  // The rule-set combo edits the scenario.
  QComboBox* presets = panel.presetCombo();
  const int tp = presets->findData("tp");
  REQUIRE(tp >= 0);
  emit presets->activated(tp);
  CHECK(doc.scenario().rules.preset == "tp");
}

TEST_CASE("the shard grid cuts the selected parameter into blocks held by the right devices", "[ui][sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  const auto analysis = meshWithParams();
  panel.setAnalysis(analysis);
  ShardGridView* grid = panel.shardGrid();
  grid->resize(600, 400);
  CHECK(grid->blocks().empty());
  CHECK(grid->message().contains("Select a parameter"));

  panel.tree()->setCurrentIndex(panel.paramModel()->indexOfPath("layers.0.mlp.up_proj.weight"));
  // P('tp', 'fsdp') over (14336, 4096) on data 8 x fsdp 4 x tp 4: 4 x 4 blocks of (3584, 1024).
  REQUIRE(grid->blocks().size() == 16);
  CHECK(grid->summary().contains("16 shard(s) × 8 replica(s)"));
  CHECK(grid->summary().contains("(3584, 1024)"));
  // Every device holds exactly the block the physical view colours it by (MeshIndex's numbering).
  const MeshIndex index(analysis->mesh);
  const auto axes = PartitionSpec::parse("P('tp', 'fsdp')");
  std::set<std::int64_t> seen;
  for (std::size_t b = 0; b < grid->blocks().size(); ++b) {
    const ShardBlock& block = grid->blocks()[b];
    CHECK(block.positions.size() == 8);
    CHECK(block.ranges[0] == IndexRange{3584 * block.block[0], 3584 * (block.block[0] + 1)});
    for (auto pos : block.positions) {
      CHECK(index.shardId(static_cast<int>(pos), axes) == static_cast<int>(b));
      seen.insert(pos);
    }
  }
  CHECK(seen.size() == 128);
  // Blocks tile the drawing: the centre of each block's rectangle hits that block, and a click
  // there selects the block's first device.
  for (int b = 0; b < 16; ++b) {
    const QRectF r = grid->blockRect(b);
    REQUIRE(r.isValid());
    CHECK(grid->blockAt(r.center()) == b);
  }
  const QPointF centre = grid->blockRect(5).center();
  QTest::mouseClick(grid, Qt::LeftButton, {}, centre.toPoint());
  CHECK(selection.device() == static_cast<int>(grid->blocks()[5].positions.front()));
  QStringList ids;
  for (auto pos : grid->blocks()[5].positions)
    ids << QString::number(analysis->mesh.devices[static_cast<std::size_t>(pos)].id);
  CHECK(grid->blockDevices(5) == ids.join(','));

  // A replicated parameter is one block on all 128 devices.
  panel.tree()->setCurrentIndex(panel.paramModel()->indexOfPath("layers.0.input_layernorm.weight"));
  REQUIRE(grid->blocks().size() == 1);
  CHECK(grid->blocks()[0].positions.size() == 128);
  CHECK(grid->summary().contains("1 shard(s) × 128 replica(s)"));
}

TEST_CASE("rule files import as one undo step and export the rules in effect", "[ui][sharding][rules]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  const auto analysis = std::make_shared<Analysis>(analyze(doc.scenario()));
  panel.setAnalysis(analysis);
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  const Scenario before = doc.scenario();

  // A bad file changes nothing and names the problem.
  const QString bad = dir.filePath("bad.json");
  {
    QFile f(bad);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(R"({"rules": [["ok", []], [1, []]]})");
  }
  QString error;
  CHECK_FALSE(panel.importRules(bad, &error));
  CHECK(error.contains("rules[1][0] (the regex) must be a string"));
  const QString badRegex = dir.filePath("bad-regex.json");
  {
    QFile f(badRegex);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(R"([["(unclosed", []]])");
  }
  CHECK_FALSE(panel.importRules(badRegex, &error));
  CHECK(error.contains("partition rule 0"));
  CHECK(doc.scenario() == before);

  // A good file replaces the rules and turns the preset off; undo brings both back.
  const QString good = dir.filePath("good.json");
  {
    QFile f(good);
    REQUIRE(f.open(QIODevice::WriteOnly));
    f.write(R"({"rules": [["embed_tokens", ["tp", null]], [".*", []]]})");
  }
  REQUIRE(panel.importRules(good, &error));
  CHECK(doc.scenario().rules.preset.empty());
  REQUIRE(doc.scenario().rules.rules.size() == 2);
  CHECK(doc.scenario().rules.rules[0].first == "embed_tokens");
  CHECK(doc.scenario().rules.rules[0].second == Json::parse(R"(["tp", null])"));
  doc.undoStack()->undo();
  CHECK(doc.scenario() == before);

  // Export: the custom rules first, then the preset's for this mesh; reading the file back gives
  // the same rule list as the preset itself.
  doc.edit("override", [](Scenario& s) { s.rules.rules = {{"^lm_head\\.weight$", Json::array()}}; });
  const QString out = dir.filePath("out.json");
  REQUIRE(panel.exportRules(out, &error));
  const auto written = loadRuleFile(out.toStdString());
  const MeshAxes mesh = MeshAxes::fromMesh(analysis->mesh);
  const auto preset = presetRules(doc.scenario().rules.preset, {}, &mesh);
  REQUIRE(written.size() == preset.size() + 1);
  CHECK(written[0].pattern == "^lm_head\\.weight$");
  CHECK(written[0].spec == PartitionSpec());
  for (std::size_t i = 0; i < preset.size(); ++i) {
    CHECK(written[i + 1].pattern == preset[i].pattern);
    CHECK(written[i + 1].spec == preset[i].spec);
  }
  // An unwritable target fails and says so.
  CHECK_FALSE(panel.exportRules(dir.filePath("no-such-dir/out.json"), &error));
  CHECK(error.startsWith("Cannot write"));
}

TEST_CASE("the preset's rules show below the own rules, read-only, and copy into them", "[ui][sharding][rules]") {
  test::app();
  ScenarioDocument doc; // the default: preset fsdp-tp, no own rules
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  RulesTableModel* rules = panel.rulesModel();
  REQUIRE(doc.scenario().rules.rules.empty());
  REQUIRE(doc.scenario().rules.preset == "fsdp-tp");
  const MeshAxes mesh({"dp", "fsdp", "tp"}, {1, 1, 1});
  const auto preset = presetRules("fsdp-tp", {}, &mesh);
  REQUIRE_FALSE(preset.empty());
  CHECK(rules->rowCount() == static_cast<int>(preset.size()));
  CHECK(rules->customRuleCount() == 0);
  CHECK(rules->data(rules->index(0, RulesTableModel::Regex)).toString().toStdString() == preset[0].pattern);
  CHECK(rules->data(rules->index(0, RulesTableModel::Spec)).toString().toStdString() == preset[0].spec.toString());
  CHECK_FALSE(rules->flags(rules->index(0, RulesTableModel::Spec)) & Qt::ItemIsEditable);
  CHECK(rules->data(rules->index(0, RulesTableModel::Regex), Qt::ToolTipRole).toString().contains("read-only"));
  CHECK_FALSE(rules->setData(rules->index(0, RulesTableModel::Spec), "P()"));
  // An own rule goes above the preset's, and only it can move or be removed.
  rules->addRule("embed", "P('tp')");
  REQUIRE(rules->rowCount() == static_cast<int>(preset.size()) + 1);
  CHECK(rules->data(rules->index(0, RulesTableModel::Regex)).toString() == "embed");
  CHECK(rules->flags(rules->index(0, RulesTableModel::Spec)) & Qt::ItemIsEditable);
  rules->removeRule(1); // a preset row: nothing happens
  CHECK(rules->rowCount() == static_cast<int>(preset.size()) + 1);

  // Copy: the preset's rules become own rules after "embed", the preset goes off, and every
  // parameter keeps its spec; one undo brings the preset back.
  const Analysis before = analyze(doc.scenario());
  rules->copyPresetRules();
  CHECK(doc.scenario().rules.preset.empty());
  CHECK(rules->customRuleCount() == static_cast<int>(preset.size()) + 1);
  CHECK(rules->rowCount() == rules->customRuleCount());
  const Analysis after = analyze(doc.scenario());
  REQUIRE(after.params.size() == before.params.size());
  for (std::size_t i = 0; i < before.params.size(); ++i) CHECK(after.params[i].spec == before.params[i].spec);
  doc.undoStack()->undo();
  CHECK(doc.scenario().rules.preset == "fsdp-tp");
  CHECK(rules->customRuleCount() == 1);
}

TEST_CASE("a regex typed in the test field reveals the parameters it matches", "[ui][sharding][rules]") {
  test::app();
  ScenarioDocument doc; // Llama-3.1-8B: 32 layers, each with one mlp.down_proj
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  panel.setAnalysis(std::make_shared<const Analysis>(analyze(doc.scenario())));
  QLineEdit* field = nullptr;
  for (auto* edit : panel.findChildren<QLineEdit*>())
    if (edit->placeholderText().startsWith("Test a regex")) field = edit;
  REQUIRE(field);
  field->setText("layers\\.7\\.mlp\\.down_proj");
  const QModelIndexList matches = panel.paramModel()->highlightedIndexes(10);
  REQUIRE(matches.size() == 1);
  CHECK(matches.front().data().toString().contains("weight"));
  // Every group above the match is open, so the row is on screen.
  for (QModelIndex p = matches.front().parent(); p.isValid(); p = p.parent()) CHECK(panel.tree()->isExpanded(p));
  // A pattern matching every weight opens at most 200 of them and says so.
  field->setText("weight");
  const auto message = panel.findChildren<QLabel*>();
  bool said = false;
  for (auto* label : message) said = said || label->text().contains("the first 200 are shown");
  CHECK(said);
}
