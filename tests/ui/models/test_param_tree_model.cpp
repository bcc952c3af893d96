// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "models/logical_axes_model.hpp"
#include "models/param_tree_model.hpp"
#include "models/rules_table_model.hpp"
#include "document/scenario_document.hpp"

#include <QAbstractItemModelTester>
#include <QSignalSpy>
#include <QTreeView>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
std::shared_ptr<const Analysis> analysisWithParams() {
  auto a = std::make_shared<Analysis>();
  a->mesh.axis_names = {"fsdp", "tp"};
  Model model;
  std::vector<ParamSharding> shardings;
  auto add = [&](std::string path, Shape shape, std::string spec, Shape shard, double bytes) {
    model.params.push_back({std::move(path), std::move(shape), "bfloat16"});
    shardings.push_back({PartitionSpec::parse(spec), std::move(shard), bytes, false, {}});
  };
  add("embed/embedding", {128256, 4096}, "P('fsdp', 'tp')", {8016, 1024}, 16.0e6);
  add("layers/0/attn/q_proj/kernel", {4096, 4096}, "P('fsdp', 'tp')", {256, 1024}, 0.5e6);
  add("layers/0/attn/k_proj/kernel", {4096, 1024}, "P('fsdp', 'tp')", {256, 256}, 0.125e6);
  add("layers/0/norm/scale", {4096}, "P(None,)", {4096}, 8192);
  shardings.back().diagnostics.push_back("replicated: no rule matched");
  a->params = ParamTable::ungrouped(std::move(model), "bfloat16", std::move(shardings));
  return a;
}
} // namespace

TEST_CASE("the parameter tree groups by path prefix and passes the model tester", "[ui][params]") {
  test::app();
  ScenarioDocument doc;
  ParamTreeModel model(&doc);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  CHECK(model.rowCount() == 0);
  model.setAnalysis(analysisWithParams());
  REQUIRE(model.rowCount() == 2); // embed, layers
  const QModelIndex layers = model.index(1, 0);
  CHECK(layers.data().toString() == "layers");
  CHECK(model.rowCount(layers) == 1); // 0
  const QModelIndex attn = model.index(0, 0, model.index(0, 0, layers));
  CHECK(attn.data().toString() == "attn");
  CHECK(model.rowCount(attn) == 2);
  // Groups sum their leaves' bytes per device.
  CHECK(model.index(1, ParamTreeModel::Bytes).data(Qt::EditRole).toDouble() == Approx(0.5e6 + 0.125e6 + 8192));
  const QModelIndex q = model.indexOfPath("layers/0/attn/q_proj/kernel");
  REQUIRE(q.isValid());
  CHECK(q.data().toString() == "kernel");
  CHECK(q.siblingAtColumn(ParamTreeModel::Spec).data().toString() == "P('fsdp', 'tp')");
  CHECK(q.siblingAtColumn(ParamTreeModel::Shape).data().toString() == "(4096, 4096)");
  CHECK(model.indexOfPath("layers/0/norm/scale")
            .siblingAtColumn(ParamTreeModel::Diagnostics)
            .data()
            .toString()
            .contains("replicated"));
  CHECK(model.flags(q.siblingAtColumn(ParamTreeModel::Spec)) & Qt::ItemIsEditable);
  CHECK_FALSE(model.flags(layers.siblingAtColumn(ParamTreeModel::Spec)) & Qt::ItemIsEditable);
  CHECK(model.setHighlight(QRegularExpression("attn/.*kernel")) == 2);
  model.setAnalysis(nullptr);
  CHECK(model.rowCount() == 0);
}

TEST_CASE("a recompute over the same model keeps the tree and its expanded groups", "[ui][params]") {
  test::app();
  ScenarioDocument doc;
  ParamTreeModel model(&doc);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  QTreeView view;
  view.setModel(&model);
  const auto first = analysisWithParams();
  model.setAnalysis(first);
  const QModelIndex layers = model.index(1, 0);
  view.expand(layers);
  REQUIRE(view.isExpanded(layers));
  // A drag frame: the same model object, every shard halved (the tp axis doubled, say).
  auto next = std::make_shared<Analysis>();
  std::vector<ParamSharding> halved = first->params.groups();
  for (auto& g : halved) g.bytes_per_device /= 2;
  halved[3].diagnostics.clear();
  std::vector<std::uint32_t> groupOf;
  for (std::size_t i = 0; i < first->params.size(); ++i) groupOf.push_back(first->params.groupOf(i));
  next->params = ParamTable(first->params.model(), "bfloat16", halved, groupOf);
  QSignalSpy resets(&model, &QAbstractItemModel::modelReset);
  QSignalSpy changes(&model, &QAbstractItemModel::dataChanged);
  model.setAnalysis(next);
  CHECK(resets.count() == 0);
  CHECK(changes.count() > 0);
  CHECK(view.isExpanded(model.index(1, 0)));
  CHECK(model.index(1, ParamTreeModel::Bytes).data(Qt::EditRole).toDouble() == Approx((0.5e6 + 0.125e6 + 8192) / 2));
  CHECK(model.index(1, ParamTreeModel::Diagnostics).data().isNull()); // no leaf below has a note any more
  // A different model is a different tree: that one resets.
  model.setAnalysis(analysisWithParams());
  CHECK(resets.count() == 1);
}

TEST_CASE("editing a spec in place becomes a rule override", "[ui][params]") {
  test::app();
  ScenarioDocument doc;
  ParamTreeModel model(&doc);
  model.setAnalysis(analysisWithParams());
  const QModelIndex spec = model.indexOfPath("layers/0/attn/q_proj/kernel").siblingAtColumn(ParamTreeModel::Spec);
  REQUIRE(model.setData(spec, "tp, fsdp"));
  const auto& rules = doc.scenario().rules.rules;
  REQUIRE(rules.size() == 1);
  CHECK(rules[0].first == "^layers/0/attn/q_proj/kernel$");
  CHECK(rules[0].second.dump() == R"(["tp","fsdp"])");
  CHECK(doc.scenario().rules.preset == "fsdp-tp"); // the preset stays behind the override
  // Editing again replaces the override rather than stacking a second one.
  REQUIRE(model.setData(spec, "P(None, 'tp')"));
  CHECK(doc.scenario().rules.rules.size() == 1);
  QSignalSpy rejected(&model, &ParamTreeModel::specRejected);
  CHECK_FALSE(model.setData(spec, "P('tp'"));
  CHECK(rejected.count() == 1);
  doc.undoStack()->undo();
  doc.undoStack()->undo();
  CHECK(doc.scenario().rules.rules.empty());
}

TEST_CASE("axes and rules tables pass the model tester and edit the scenario", "[ui][params]") {
  test::app();
  ScenarioDocument doc;
  LogicalAxesModel axes(&doc);
  QAbstractItemModelTester axesTester(&axes, QAbstractItemModelTester::FailureReportingMode::Fatal);
  CHECK(axes.rowCount() == 3);
  axes.addAxis();
  CHECK(axes.rowCount() == 4);
  CHECK(doc.scenario().mesh.axes.back().ici == 1);
  CHECK(axes.moveRows({}, 3, 1, {}, 0));
  CHECK(doc.scenario().mesh.axes.front().name == "axis3");
  axes.removeAxis(0);
  CHECK(axes.rowCount() == 3);
  CHECK(axes.setData(axes.index(2, LogicalAxesModel::Type), "Auto"));
  CHECK(doc.scenario().mesh.axes[2].type == AxisType::Auto);
  CHECK_FALSE(axes.setData(axes.index(2, LogicalAxesModel::Type), "Sideways"));
  CHECK_FALSE(axes.setData(axes.index(0, LogicalAxesModel::Name), "  "));

  RulesTableModel rules(&doc);
  QAbstractItemModelTester rulesTester(&rules, QAbstractItemModelTester::FailureReportingMode::Fatal);
  rules.addRule(".*embed.*", "fsdp, None");
  rules.addRule(".*", "P()");
  REQUIRE(rules.customRuleCount() == 2);
  const int presetRows = rules.rowCount() - 2; // the default preset's rules follow, read-only
  CHECK(presetRows > 0);
  CHECK(rules.index(0, RulesTableModel::Spec).data().toString() == "P('fsdp', None)");
  rules.moveRule(1, 0);
  CHECK(doc.scenario().rules.rules.front().first == ".*");
  QSignalSpy rejected(&rules, &RulesTableModel::editRejected);
  CHECK_FALSE(rules.setData(rules.index(0, RulesTableModel::Regex), "(unclosed"));
  CHECK(rejected.count() == 1);
  rules.removeRule(0);
  CHECK(rules.rowCount() == 1 + presetRows);
  // Size is ICI x DCN as typed, at once (not the last analysis' figure).
  CHECK(axes.setData(axes.index(0, LogicalAxesModel::Ici), 8));
  CHECK(axes.index(0, LogicalAxesModel::Size).data().toLongLong() == 8);
}
