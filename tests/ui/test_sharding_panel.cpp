#include "ui_test_app.hpp"

#include "param_tree_model.hpp"
#include "physical_view.hpp"
#include "sharding_panel.hpp"
#include "scenario_document.hpp"
#include "view_selection.hpp"

#include <QComboBox>
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
  model.params = {{"layers.0.mlp.up_proj.weight", {14336, 4096}, "bfloat16"}, {"layers.0.input_layernorm.weight", {4096}, "bfloat16"}};
  std::vector<ParamSharding> shardings = {{"P('tp', 'fsdp')", {3584, 1024}, 3584.0 * 1024 * 2, false, {}},
                                          {"P(None,)", {4096}, 3584.0 * 1024 * 2, false, {}}};
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
