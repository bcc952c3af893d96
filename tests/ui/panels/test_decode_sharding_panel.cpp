// SPDX-License-Identifier: Apache-2.0
// The Sharding dock's "Decode sharding" field and the parameter tree's HLO column: a pasted XLA
// sharding shows the same blocks on the same devices as the parameter whose spec JAX lowers to it.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "models/param_tree_model.hpp"
#include "panels/sharding_panel.hpp"
#include "views/physical_view.hpp"
#include "views/shard_grid_view.hpp"
#include "views/view_selection.hpp"

#include <QLabel>
#include <QLineEdit>
#include <QTreeView>

#include <catch2/catch.hpp>

#include <cstdlib>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
// data 8 x fsdp 4 x tp 4 on v4 4x4x8, with one weight laid out P('tp', 'fsdp').
std::shared_ptr<const Analysis> meshWithWeight() {
  Scenario s = defaultScenario();
  s.mesh.axes = {{"data", 8, 1}, {"fsdp", 4, 1}, {"tp", 4, 1}};
  auto a = std::make_shared<Analysis>(analyze(s));
  Model model;
  model.params = {{"layers.0.mlp.up_proj.weight", {14336, 4096}, "bfloat16"}};
  std::vector<ParamSharding> shardings = {
      {PartitionSpec::parse("P('tp', 'fsdp')"), {3584, 1024}, 3584.0 * 1024 * 2, false, {}}};
  a->params = ParamTable::ungrouped(std::move(model), "bfloat16", std::move(shardings));
  return a;
}

// By hand (named_sharding_to_xla_hlo_sharding): dim 0 by tp (4), dim 1 by fsdp (4), data (8)
// unused -> replicated last dim; iota over the mesh [8,4,4] read as (tp, fsdp, data) = T(2,1,0).
const char* const kUpProjHlo = "{devices=[4,4,8]<=[8,4,4]T(2,1,0) last_tile_dim_replicate}";
} // namespace

TEST_CASE("the parameter tree shows each parameter's HLO sharding", "[ui][sharding][hlo_sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  panel.setAnalysis(meshWithWeight());
  const QModelIndex up = panel.paramModel()->indexOfPath("layers.0.mlp.up_proj.weight");
  REQUIRE(up.isValid());
  CHECK(up.siblingAtColumn(ParamTreeModel::HloSharding).data().toString() == kUpProjHlo);
  CHECK(panel.paramModel()->headerData(ParamTreeModel::HloSharding, Qt::Horizontal).toString() == "HLO sharding");
  CHECK(up.siblingAtColumn(ParamTreeModel::HloSharding).data(Qt::ToolTipRole).toString().contains("0→"));
}

TEST_CASE("a decoded HLO sharding shows its blocks on the shard grid and the torus", "[ui][sharding][hlo_sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  PhysicalView view(&selection);
  const auto analysis = meshWithWeight();
  panel.setAnalysis(analysis);
  view.setAnalysis(analysis);
  ShardGridView* grid = panel.shardGrid();

  // The parameter's own blocks and colours, from its spec.
  panel.tree()->setCurrentIndex(panel.paramModel()->indexOfPath("layers.0.mlp.up_proj.weight"));
  const std::vector<ShardBlock> specBlocks = grid->blocks();
  const std::vector<QColor> specColors = view.overlay().colors;
  REQUIRE(specBlocks.size() == 16);

  // The same layout pasted as XLA prints it: the same blocks on the same devices, the same colours.
  panel.hloField()->setText(kUpProjHlo);
  panel.hloShapeField()->setText("14336, 4096");
  REQUIRE(panel.decodeSharding());
  REQUIRE(selection.decoded());
  CHECK(selection.mode() == OverlayMode::Shard);
  REQUIRE(grid->blocks().size() == specBlocks.size());
  for (std::size_t b = 0; b < specBlocks.size(); ++b) {
    CHECK(grid->blocks()[b].ranges == specBlocks[b].ranges);
    CHECK(grid->blocks()[b].positions == specBlocks[b].positions);
  }
  CHECK(grid->summary().contains("16 shard(s) × 8 replica(s)"));
  CHECK(view.overlay().colors == specColors);
  CHECK(view.overlay().legend.title.contains("16 shard(s)"));
  CHECK(panel.hloMessage()->text().contains("16 block(s), each on 8 device(s)"));

  // Picking a parameter again replaces the decoded sharding.
  panel.tree()->setCurrentIndex(QModelIndex());
  panel.tree()->setCurrentIndex(panel.paramModel()->indexOfPath("layers.0.mlp.up_proj.weight"));
  CHECK_FALSE(selection.decoded());
}

TEST_CASE("bad HLO sharding text is refused inline, naming the column", "[ui][sharding][hlo_sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  panel.setAnalysis(meshWithWeight());
  panel.hloShapeField()->setText("16");
  panel.hloField()->setText("{devices=[8]<=[8}");
  CHECK_FALSE(panel.decodeSharding());
  CHECK_FALSE(selection.decoded());
  // Column 17 is the '}' where the reshape dimensions should close.
  CHECK(panel.hloMessage()->text().toStdString() ==
        "HLO sharding, column 17: expected ',' or ']' in the iota reshape dimensions, got '}'");
  // Well formed but for 8 devices, on a mesh of 128.
  panel.hloField()->setText("{devices=[8]<=[8]}");
  CHECK_FALSE(panel.decodeSharding());
  CHECK(panel.hloMessage()->text().contains("names 8 devices but there are 128"));
  panel.hloShapeField()->setText("16, y");
  CHECK_FALSE(panel.decodeSharding());
  CHECK(panel.hloMessage()->text().toStdString() == "Shape: 'y' is not a non-negative integer");
  // Clearing the field stops showing anything.
  panel.hloField()->clear();
  CHECK(panel.hloMessage()->text().isEmpty());
}

TEST_CASE("decode sharding in the main window at laptop size", "[ui][sharding][hlo_sharding]") {
  test::app();
  MainWindow window;
  window.resize(1366, 768);
  window.show();
  window.resetLayout();
  REQUIRE(window.openFile(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/mixtral-8x7b-ep-v4-128.shardscope.json"));
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.raiseDock("Sharding"));
  ShardingPanel* panel = window.shardingPanel();
  panel->hloField()->setText("{devices=[4,2,16]<=[128] last_tile_dim_replicate}");
  panel->hloShapeField()->setText("8192,28672");
  REQUIRE(panel->decodeSharding());
  QApplication::processEvents();
  CHECK(panel->hloField()->isVisible());
  CHECK(panel->hloMessage()->isVisible());
  // [4,2,16]<=[128]: 8 blocks of 2048 x 14336, each on the 16 devices of one run of ids.
  CHECK(window.physicalView()->overlay().legend.title.contains("8 shard(s) × 16 replica(s)"));
  if (const char* dir = std::getenv("SHARDSCOPE_SCREENSHOT_DIR"))
    window.grab().save(QString::fromLocal8Bit(dir) + "/decode-sharding.png");
}

TEST_CASE("the Decode field takes a sharding as it stands in a dump, and Shardy's on the workspace's mesh",
          "[ui][sharding][hlo_sharding]") {
  test::app();
  ScenarioDocument doc;
  ViewSelection selection;
  ShardingPanel panel(&doc, &selection);
  panel.setAnalysis(meshWithWeight()); // data 8 x fsdp 4 x tp 4
  panel.hloShapeField()->setText("14336, 4096");
  // An HLO instruction's attribute with its metadata, and mhlo.sharding's quoted string.
  for (const QString& dump :
       {QString("sharding=%1, metadata={op_name=\"jit(f)/dot\"}").arg(kUpProjHlo), QString("\"%1\"").arg(kUpProjHlo)}) {
    INFO(dump.toStdString());
    panel.hloField()->setText(dump);
    REQUIRE(panel.decodeSharding());
    CHECK(selection.decoded()->text == kUpProjHlo);
  }
  // Shardy: P('tp', 'fsdp') as JAX's lowered text prints it; the same blocks on the same devices (16
  // shards, each on the 8 devices of the unused data axis).
  panel.hloField()->setText("#sdy.sharding<@mesh, [{\"tp\"}, {\"fsdp\"}]>");
  REQUIRE(panel.decodeSharding());
  CHECK(panel.hloMessage()->text().contains("16 block(s), each on 8 device(s)"));
  // An axis the workspace's mesh lacks is one clear error.
  panel.hloField()->setText("#sdy.sharding<@mesh, [{\"model\"}, {}]>");
  CHECK_FALSE(panel.decodeSharding());
  CHECK(panel.hloMessage()->text().contains("model"));
}
