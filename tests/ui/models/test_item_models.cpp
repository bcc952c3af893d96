// SPDX-License-Identifier: Apache-2.0
// Every table model under Qt's QAbstractItemModelTester (fatal on any broken contract: row counts,
// indexes, signals around inserts, removals, moves and resets) while it is edited the ways the
// panels edit it; the cells are checked against the workspace they show.
#include "document/scenario_document.hpp"
#include "models/layout_rows_model.hpp"
#include "models/logical_axes_model.hpp"
#include "models/rules_table_model.hpp"
#include "ui_test_app.hpp"

#include <QAbstractItemModelTester>
#include <catch2/catch.hpp>

#include <algorithm>
#include <memory>

using namespace shardscope;
using namespace shardscope::ui;

namespace {

std::vector<std::string> axisNames(const Scenario& s) {
  std::vector<std::string> names;
  for (const auto& a : s.mesh.axes) names.push_back(a.name);
  return names;
}

std::vector<std::string> namesShown(const LogicalAxesModel& model) {
  std::vector<std::string> names;
  for (int r = 0; r < model.rowCount(); ++r)
    names.push_back(model.index(r, LogicalAxesModel::Name).data().toString().toStdString());
  return names;
}

LayoutRow layoutRow(const std::string& mesh, double stepSeconds) {
  LayoutRow row;
  row.mesh = mesh;
  row.rules = "fsdp-tp";
  row.step_time_s = stepSeconds;
  row.max_bytes = 10.0 * (1 << 30);
  row.hbm_bytes = 16.0 * (1 << 30);
  row.fits = true;
  return row;
}

} // namespace

TEST_CASE("the logical axes model keeps Qt's model contract through add, move, remove and undo", "[ui][models]") {
  test::app();
  ScenarioDocument document;
  LogicalAxesModel model(&document);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  const auto original = axisNames(document.scenario());
  REQUIRE(original.size() >= 2);
  CHECK(namesShown(model) == original);
  CHECK(model.columnCount() == LogicalAxesModel::ColumnCount);

  model.addAxis();
  CHECK(model.rowCount() == static_cast<int>(original.size()) + 1);
  CHECK(namesShown(model) == axisNames(document.scenario()));
  CHECK(document.scenario().mesh.axes.back().ici == 1); // a new axis splits nothing

  // The last axis first: the rest keep their order behind it.
  model.moveAxis(static_cast<int>(original.size()) - 1, 0);
  auto expected = original;
  std::rotate(expected.begin(), expected.end() - 1, expected.end());
  auto shown = namesShown(model);
  shown.pop_back(); // the added axis, still last
  CHECK(shown == expected);

  model.removeAxis(model.rowCount() - 1);
  CHECK(namesShown(model) == expected);
  document.undoStack()->undo(); // the removal
  document.undoStack()->undo(); // the move
  document.undoStack()->undo(); // the addition
  CHECK(namesShown(model) == original);
}

TEST_CASE("an ICI of -1 shows what it resolved to, and editing still reads the -1", "[ui][models]") {
  test::app();
  ScenarioDocument document;
  document.edit("fsdp fills", [](Scenario& s) { s.mesh.axes[1].ici = -1; }); // dp 2, fsdp -1, tp 4 on 128
  LogicalAxesModel model(&document);
  model.setAnalysis(std::make_shared<const Analysis>(analyzeMesh(document.scenario())));
  const QModelIndex ici = model.index(1, LogicalAxesModel::Ici);
  CHECK(ici.data(Qt::DisplayRole).toString() == "-1 → 16"); // 128 / (2 x 4)
  CHECK(ici.data(Qt::EditRole).toLongLong() == -1);
  CHECK(model.index(1, LogicalAxesModel::Size).data().toLongLong() == 16);
}

TEST_CASE("the rules model keeps Qt's model contract: own rules first, the preset's after", "[ui][models]") {
  test::app();
  ScenarioDocument document;
  RulesTableModel model(&document);
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  const int own = static_cast<int>(document.scenario().rules.rules.size());
  CHECK(model.customRuleCount() == own);
  const int before = model.rowCount();

  model.addRule("^my_layer/kernel$", "P('fsdp', 'tp')");
  REQUIRE(model.customRuleCount() == own + 1);
  CHECK(model.rowCount() == before + 1);
  const int added = own; // appended after the scenario's own rules, before the preset's
  CHECK(model.index(added, RulesTableModel::Regex).data().toString() == "^my_layer/kernel$");
  CHECK_FALSE(model.isPresetRow(added));
  CHECK(document.scenario().rules.rules.back().first == "^my_layer/kernel$");

  model.addRule("^other$", "P(None)");
  model.moveRule(own + 1, own);
  CHECK(model.index(own, RulesTableModel::Regex).data().toString() == "^other$");
  CHECK(model.index(own + 1, RulesTableModel::Regex).data().toString() == "^my_layer/kernel$");

  // A broken regex is refused without touching the workspace.
  const auto rules = document.scenario().rules.rules.size();
  model.addRule("(unclosed", "P(None)");
  CHECK(document.scenario().rules.rules.size() == rules);

  model.removeRule(own);
  model.removeRule(own);
  CHECK(model.customRuleCount() == own);
  CHECK(model.rowCount() == before);
}

TEST_CASE("the search rows model keeps Qt's model contract: the user's layout first, then the ranks", "[ui][models]") {
  test::app();
  LayoutRowsModel model;
  QAbstractItemModelTester tester(&model, QAbstractItemModelTester::FailureReportingMode::Fatal);
  CHECK(model.rowCount() == 0);

  auto result = std::make_shared<LayoutSearchResult>();
  result->rows = {layoutRow("fsdp:64,tp:2", 1.5), layoutRow("fsdp:128", 2.25)};
  result->current = layoutRow("data:2,fsdp:32,tp:2", 3.0);
  model.setResult(result);
  REQUIRE(model.rowCount() == 3);
  CHECK(model.isCurrent(0));
  CHECK(model.index(0, LayoutRowsModel::Mesh).data().toString() == "data:2,fsdp:32,tp:2");
  CHECK(model.tableRowOfRank(0) == 1);
  CHECK(model.index(1, LayoutRowsModel::Rank).data().toString() == "1");
  CHECK(model.index(1, LayoutRowsModel::Mesh).data().toString() == "fsdp:64,tp:2");
  CHECK(model.index(2, LayoutRowsModel::StepTime).data().toString() == "2.25 s");
  CHECK(model.layoutAt(2) == &result->rows[1]);
  CHECK(model.layoutAt(3) == nullptr);

  // Without the user's layout (it could not be placed) the ranks start at the top.
  auto unplaced = std::make_shared<LayoutSearchResult>(*result);
  unplaced->current.reset();
  model.setResult(unplaced);
  CHECK(model.rowCount() == 2);
  CHECK_FALSE(model.isCurrent(0));
  CHECK(model.index(0, LayoutRowsModel::Mesh).data().toString() == "fsdp:64,tp:2");
  model.setResult(nullptr);
  CHECK(model.rowCount() == 0);
}
