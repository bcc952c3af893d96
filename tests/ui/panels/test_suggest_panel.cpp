// SPDX-License-Identifier: Apache-2.0
// The Suggest and Compare docks offscreen: the dock's search gives the rows core's searchLayouts
// gives for the same options; applying a row is one undo step; the search runs off the GUI thread
// (the event loop keeps turning), can be cancelled, and an edit cancels it; pinning A and changing
// the mesh shows B − A with the two analyses' own numbers.
#include "ui_test_app.hpp"

#include "document/analysis_runner.hpp"
#include "document/layout_search_runner.hpp"
#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "models/layout_rows_model.hpp"
#include "panels/compare_panel.hpp"
#include "panels/suggest_panel.hpp"
#include "views/physical_view.hpp"
#include "views/view_selection.hpp"

#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/search/layout_search.hpp"
#include "shardscope/hardware/topology.hpp"

#include <QAction>
#include <QApplication>
#include <QMouseEvent>
#include <QCheckBox>
#include <QDockWidget>
#include <QElapsedTimer>
#include <QLabel>
#include <QPlainTextEdit>
#include <QProgressBar>
#include <QPushButton>
#include <QSpinBox>
#include <QTableView>
#include <QTableWidget>
#include <QTest>
#include <QTimer>
#include <QUndoStack>

#include <catch2/catch.hpp>

#include <atomic>
#include <filesystem>
#include <chrono>
#include <cmath>
#include <future>
#include <memory>

using namespace shardscope;
using namespace shardscope::ui;

namespace {

// GPT-2 on an 8-chip v5e slice, all of it FSDP: small enough that a search takes well under a
// second, and every layout fits, so the ranking is by step time alone.
Scenario smallWorld() {
  Scenario s = defaultScenario();
  s.name = "gpt2 on v5e 2x4";
  s.topology = parseTopology("v5e:2x4");
  s.model = {};
  s.model.preset = "gpt2";
  s.training.micro_batch = 8;
  s.training.seq_len = 1024;
  s.mesh.axes = {{"fsdp", 8, 1, AxisType::Explicit}};
  s.training.batch_axes = {"fsdp"};
  return s;
}

// The window with `scenario` as its workspace, as one undoable edit of the default.
void load(MainWindow& window, const Scenario& scenario) {
  window.resize(1600, 1000);
  window.show();
  window.document()->edit("load", [&](Scenario& s) { s = scenario; });
  REQUIRE(window.waitForAnalysis(60000));
}

std::string meshText(const std::vector<MeshAxis>& axes) {
  std::string out;
  for (const auto& a : axes) out += (out.empty() ? "" : ",") + a.name + ":" + std::to_string(a.ici * a.dcn);
  return out;
}

} // namespace

TEST_CASE("the filters become the search options", "[ui][suggest]") {
  test::app();
  ScenarioDocument document;
  SuggestPanel panel(&document);
  // Nothing checked: core's defaults throughout.
  LayoutSearchOptions o = panel.options();
  CHECK(o.axes.empty());
  CHECK(o.max_size.empty());
  CHECK(o.presets.empty());
  CHECK(o.zero_stages.empty());
  CHECK(o.recompute.empty());
  CHECK(o.orders);
  CHECK(o.top == 20);

  panel.axisBox("tp")->setChecked(true);
  panel.axisBox("dp")->setChecked(true);
  panel.maxSpin("tp")->setValue(4);
  panel.presetBox("fsdp-tp")->setChecked(true);
  panel.presetBox("dp")->setChecked(true);
  panel.zeroBox(1)->setChecked(true);
  panel.recomputeBox(Recompute::Full)->setChecked(true);
  panel.recomputeBox(Recompute::None)->setChecked(true);
  panel.ordersBox()->setChecked(false);
  panel.topSpin()->setValue(5);
  o = panel.options();
  CHECK(o.axes == std::vector<std::string>{"dp", "tp"}); // dock order, as core's canonical order
  CHECK(o.max_size == std::map<std::string, std::int64_t>{{"tp", 4}});
  CHECK(o.presets == std::vector<std::string>{"dp", "fsdp-tp"}); // core's preset order
  CHECK(o.zero_stages == std::vector<int>{1});
  CHECK(o.recompute == std::vector<Recompute>{Recompute::None, Recompute::Full});
  CHECK_FALSE(o.orders);
  CHECK(o.top == 5);
}

TEST_CASE("the dock's search shows the rows searchLayouts gives, yours first", "[ui][suggest]") {
  test::app();
  MainWindow window;
  load(window, smallWorld());
  SuggestPanel* panel = window.suggestPanel();
  REQUIRE(panel);
  panel->axisBox("dp")->setChecked(true);
  panel->axisBox("fsdp")->setChecked(true);
  panel->axisBox("tp")->setChecked(true);
  panel->maxSpin("tp")->setValue(4);

  // The Edit menu's action (and its shortcut) starts it and raises the dock.
  QTest::keyClick(&window, Qt::Key_F, Qt::ControlModifier | Qt::ShiftModifier);
  CHECK(panel->isSearching());
  REQUIRE(panel->waitForSearch(60000));
  auto* dock = window.findChild<QDockWidget*>("SuggestDock");
  REQUIRE(dock);
  CHECK(dock->isVisible());
  CHECK(window.tabifiedDockWidgets(dock).contains(window.findChild<QDockWidget*>("ShardingDock")));

  const LayoutSearchResult direct = searchLayouts(window.document()->scenario(), panel->options());
  const LayoutRowsModel* model = panel->model();
  REQUIRE(model->result());
  REQUIRE(direct.current.has_value());
  REQUIRE(!direct.rows.empty());
  REQUIRE(model->rowCount() == static_cast<int>(direct.rows.size()) + 1);
  // Yours first, as core evaluated it.
  CHECK(model->isCurrent(0));
  CHECK(model->index(0, LayoutRowsModel::Rank).data().toString() == "yours");
  CHECK(model->index(0, LayoutRowsModel::Mesh).data().toString() == "fsdp:8");
  CHECK(model->layoutAt(0)->step_time_s == direct.current->step_time_s);
  for (std::size_t i = 0; i < direct.rows.size(); ++i) {
    const int row = model->tableRowOfRank(static_cast<int>(i));
    INFO("rank " << i);
    CHECK(model->index(row, LayoutRowsModel::Mesh).data().toString().toStdString() == direct.rows[i].mesh);
    CHECK(model->layoutAt(row)->step_time_s == direct.rows[i].step_time_s);
    CHECK(model->index(row, LayoutRowsModel::StepTime).data().toString() ==
          LayoutRowsModel::formatSeconds(direct.rows[i].step_time_s));
    CHECK(model->index(row, LayoutRowsModel::Mesh).data(Qt::ToolTipRole).toString().toStdString() ==
          direct.rows[i].why);
    // The filters held: tp at most 4 and only the checked axes.
    for (const auto& [name, size] : direct.rows[i].axes) {
      CHECK((name == "dp" || name == "fsdp" || name == "tp"));
      if (name == "tp") CHECK(size <= 4);
    }
  }
  // Ranked by step time, the best first.
  for (std::size_t i = 1; i < direct.rows.size(); ++i)
    CHECK(*direct.rows[i - 1].step_time_s <= *direct.rows[i].step_time_s);
  // The counts and the families.
  CHECK(panel->summaryLabel()->text().contains(QString("%1 candidates").arg(direct.candidates_total)));
  for (const auto& [why, n] : direct.rejected)
    if (n > 0) CHECK(panel->summaryLabel()->text().contains(QString("%1 %2").arg(n).arg(QString::fromStdString(why))));
  QStringList families;
  for (const auto& f : direct.families) families << QString::fromStdString(f);
  CHECK(panel->familiesText()->toPlainText() == families.join("\n"));
  // Yours against the best, computed here from the two rows.
  const double yours = *direct.current->step_time_s, best = *direct.rows.front().step_time_s;
  if (yours > best)
    CHECK(panel->summaryLabel()->text().contains(QString("Yours takes %1% longer per step than the best (%2).")
                                                     .arg(100.0 * (yours - best) / best, 0, 'f', 1)
                                                     .arg(QString::fromStdString(direct.rows.front().mesh))));
  else
    CHECK(panel->summaryLabel()->text().contains("Yours is already as fast as the best found."));
  // The best row is selected, ready to apply.
  CHECK(panel->applyButton()->isEnabled());
  CHECK_FALSE(panel->cancelButton()->isEnabled());
}

TEST_CASE("applying a row is one undo step, and undo restores the mesh", "[ui][suggest]") {
  test::app();
  MainWindow window;
  load(window, smallWorld());
  SuggestPanel* panel = window.suggestPanel();
  panel->ordersBox()->setChecked(false);
  panel->startSearch();
  REQUIRE(panel->waitForSearch(60000));
  const LayoutRowsModel* model = panel->model();
  // The best-ranked row whose mesh differs from the workspace's.
  int target = -1;
  for (int r = 0; r < model->rowCount() && target < 0; ++r)
    if (!model->isCurrent(r) && model->layoutAt(r)->scenario.mesh != window.document()->scenario().mesh) target = r;
  REQUIRE(target > 0);
  const LayoutRow chosen = *model->layoutAt(target);
  const Scenario before = window.document()->scenario();
  QUndoStack* undo = window.document()->undoStack();
  const int steps = undo->count();

  // Double-click on the row applies it (the events sent to the table: offscreen windows have no
  // pointer position to route QTest's clicks through).
  REQUIRE(window.raiseDock("Suggest"));
  QApplication::processEvents();
  panel->table()->scrollTo(model->index(target, LayoutRowsModel::Mesh));
  const QRect cell = panel->table()->visualRect(model->index(target, LayoutRowsModel::Mesh));
  REQUIRE(cell.isValid());
  {
    QWidget* viewport = panel->table()->viewport();
    const QPointF at = cell.center();
    const QPointF global = viewport->mapToGlobal(at);
    for (QEvent::Type type : {QEvent::MouseButtonPress, QEvent::MouseButtonRelease, QEvent::MouseButtonPress,
                              QEvent::MouseButtonDblClick, QEvent::MouseButtonRelease}) {
      const bool up = type == QEvent::MouseButtonRelease;
      QMouseEvent event(type, at, global, Qt::LeftButton, up ? Qt::NoButton : Qt::LeftButton, Qt::NoModifier);
      QApplication::sendEvent(viewport, &event);
    }
  }
  CHECK(undo->count() == steps + 1);
  const Scenario& after = window.document()->scenario();
  CHECK(meshText(after.mesh.axes) == chosen.mesh);
  CHECK(after.rules == chosen.scenario.rules);
  CHECK(after.training == chosen.scenario.training);
  CHECK(after.topology == before.topology); // only mesh, rules and training change
  CHECK(after.model == before.model);
  // The analysis of the applied layout has the step time the table promised.
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(window.runner()->lastValid()->step.estimated);
  CHECK(window.runner()->lastValid()->step.time_s == Approx(*chosen.step_time_s).epsilon(1e-12));
  // The table says it is now out of date.
  CHECK(panel->summaryLabel()->text().contains("changed since this search"));

  undo->undo();
  CHECK(window.document()->scenario() == before);
  CHECK(meshText(window.document()->scenario().mesh.axes) == "fsdp:8");
  // Applying the layout the workspace already has is no step at all.
  undo->redo();
  const int again = undo->count();
  CHECK_FALSE(panel->applyRow(target));
  CHECK(undo->count() == again);
}

namespace {

// Holds a search's worker at its first progress report until release(): a test cancels a search
// mid-way this way however fast the machine finishes it.
class ProgressGate {
public:
  void arrive() {
    if (arrived_.exchange(true)) return;
    reached_.set_value();
    released_.wait_for(std::chrono::seconds(30));
  }
  bool isReached() const { return reachedFuture_.wait_for(std::chrono::seconds(0)) == std::future_status::ready; }
  void release() {
    if (!releasedSet_.exchange(true)) release_.set_value();
  }
  ~ProgressGate() { release(); }

private:
  std::atomic<bool> arrived_{false}, releasedSet_{false};
  std::promise<void> reached_, release_;
  std::future<void> reachedFuture_ = reached_.get_future();
  std::shared_future<void> released_ = release_.get_future().share();
};

std::shared_ptr<ProgressGate> holdAtFirstProgress(LayoutSearchRunner& runner) {
  auto gate = std::make_shared<ProgressGate>();
  runner.setWorkerProgressHook([gate](qint64, qint64) { gate->arrive(); });
  return gate;
}

} // namespace

TEST_CASE("the search runs off the GUI thread and can be cancelled", "[ui][suggest]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  // The default workspace (128 chips, Llama-3.1-8B) with three rule sets, three ZeRO stages and
  // two recompute policies: thousands of candidates, many seconds of work.
  SuggestPanel* panel = window.suggestPanel();
  for (const char* preset : {"fsdp-tp", "fsdp", "tp"}) panel->presetBox(preset)->setChecked(true);
  for (int stage : {0, 1, 2}) panel->zeroBox(stage)->setChecked(true);
  panel->recomputeBox(Recompute::Full)->setChecked(true);
  panel->recomputeBox(Recompute::Selective)->setChecked(true);
  int ticks = 0;
  QTimer timer;
  QObject::connect(&timer, &QTimer::timeout, [&] { ++ticks; });
  timer.start(5);
  qint64 reported = 0;
  QObject::connect(panel->runner(), &LayoutSearchRunner::progress, [&](qint64 done, qint64) { reported = done; });
  // The search holds at its first progress report until the test has clicked Cancel, so the
  // cancel lands mid-search however fast this machine runs it.
  auto gate = holdAtFirstProgress(*panel->runner());
  panel->startSearch();
  CHECK(panel->cancelButton()->isEnabled());
  QElapsedTimer clock;
  clock.start();
  while (!gate->isReached() && clock.elapsed() < 20000) QTest::qWait(10);
  while (reported == 0 && clock.elapsed() < 20000) QTest::qWait(10);
  // The event loop kept turning while the search ran, and its progress came through it.
  REQUIRE(panel->isSearching());
  CHECK(ticks > 0);
  CHECK(reported > 0);
  CHECK(panel->progressBar()->value() > 0);
  CHECK(panel->progressBar()->maximum() >= panel->progressBar()->value());

  QTest::mouseClick(panel->cancelButton(), Qt::LeftButton);
  gate->release();
  REQUIRE(panel->waitForSearch(30000));
  REQUIRE(panel->runner()->result());
  CHECK(panel->runner()->result()->cancelled);
  CHECK(panel->runner()->result()->evaluated < panel->runner()->result()->candidates_total);
  CHECK(panel->summaryLabel()->text().startsWith("Cancelled after"));
  CHECK_FALSE(panel->cancelButton()->isEnabled());
}

TEST_CASE("an edit of the workspace cancels a running search", "[ui][suggest]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  SuggestPanel* panel = window.suggestPanel();
  panel->zeroBox(1)->setChecked(true);
  panel->zeroBox(2)->setChecked(true);
  auto gate = holdAtFirstProgress(*panel->runner());
  panel->startSearch();
  REQUIRE(panel->isSearching());
  QElapsedTimer clock;
  clock.start();
  while (!gate->isReached() && clock.elapsed() < 20000) QTest::qWait(10);
  window.document()->edit("zero", [](Scenario& s) { s.training.zero_stage = 1; });
  gate->release();
  REQUIRE(panel->waitForSearch(30000));
  REQUIRE(panel->runner()->result());
  CHECK(panel->runner()->result()->cancelled);
  CHECK(panel->summaryLabel()->text().contains("the workspace changed"));
}

TEST_CASE("pin A, change the mesh: Compare shows B against A with both analyses' numbers", "[ui][compare]") {
  test::app();
  MainWindow window;
  load(window, smallWorld());
  ComparePanel* compare = window.comparePanel();
  REQUIRE(compare);
  CHECK_FALSE(compare->hasPin());
  CHECK(compare->table()->rowCount() == 0);
  QTest::keyClick(&window, Qt::Key_P, Qt::ControlModifier | Qt::ShiftModifier); // Edit > Pin as A
  REQUIRE(compare->hasPin());
  const auto a = window.runner()->lastValid();
  CHECK(compare->headlineLabel()->text().contains("B is A"));

  // fsdp:8 -> fsdp:2,tp:4: less FSDP traffic, tensor-parallel activation traffic instead.
  window.document()->edit("mesh", [](Scenario& s) {
    s.mesh.axes = {{"fsdp", 2, 1, AxisType::Explicit}, {"tp", 4, 1, AxisType::Explicit}};
  });
  REQUIRE(window.waitForAnalysis(60000));
  const auto b = window.runner()->lastValid();
  REQUIRE(a != b);
  REQUIRE(a->step.estimated);
  REQUIRE(b->step.estimated);

  const auto& figures = compare->figures();
  REQUIRE(figures.size() >= 9);
  auto find = [&](const QString& label) -> const CompareFigure& {
    for (const auto& f : figures)
      if (f.label.trimmed() == label) return f;
    FAIL("no figure " << label.toStdString());
    return figures.front();
  };
  const CompareFigure& step = find("Step time");
  CHECK(*step.a == a->step.time_s);
  CHECK(*step.b == b->step.time_s);
  const double stepPct = 100.0 * (b->step.time_s - a->step.time_s) / a->step.time_s;
  CHECK(*step.percent() == Approx(stepPct));
  CHECK(step.verdict() == (b->step.time_s < a->step.time_s ? 1 : -1));
  CHECK(*find("MFU").delta() == Approx(b->step.mfu - a->step.mfu));

  const auto& fa = a->memory.per_device[static_cast<std::size_t>(a->memory.argmax)];
  const auto& fb = b->memory.per_device[static_cast<std::size_t>(b->memory.argmax)];
  CHECK(*find("Fullest device").delta() == Approx(fb.total() - fa.total()));
  CHECK(*find("parameters").a == fa.params);
  CHECK(*find("parameters").b == fb.params);
  const CompareFigure& params = find("parameters");
  CHECK(params.verdict() == (std::abs(fb.params - fa.params) <= 0.005 * std::max(fa.params, fb.params)
                                 ? 0
                                 : (fb.params < fa.params ? 1 : -1)));
  CHECK(*find("optimizer").b == fb.optimizer);
  CHECK(*find("activations").b == fb.activations);
  CHECK(*find("gradients").b == fb.grads);
  CHECK(find("HBM").verdict() == 0);

  // Per-axis communication: fsdp on both sides, tp on B only.
  auto axisSeconds = [](const Analysis& x, const std::string& name) {
    for (std::size_t i = 0; i < x.comm.size(); ++i)
      if (x.comm[i].name == name && x.stepAxis(i)) return x.stepAxis(i)->seconds;
    return -1.0;
  };
  CHECK(*find("Comm on fsdp").a == axisSeconds(*a, "fsdp"));
  CHECK(*find("Comm on fsdp").b == axisSeconds(*b, "fsdp"));
  CHECK(*find("Comm on tp").a == 0); // A has no tp axis: nothing spent on it
  CHECK(*find("Comm on tp").delta() == axisSeconds(*b, "tp"));
  CHECK(*find("Comm on tp").b == axisSeconds(*b, "tp"));
  CHECK(*find("Comm on tp").b > 0);

  // The table shows the same figures, signed and coloured.
  QTableWidget* table = compare->table();
  REQUIRE(table->rowCount() == static_cast<int>(figures.size()));
  CHECK(table->item(0, 1)->text() == LayoutRowsModel::formatSeconds(a->step.time_s));
  CHECK(table->item(0, 2)->text() == LayoutRowsModel::formatSeconds(b->step.time_s));
  const QString sign = b->step.time_s > a->step.time_s ? "+" : "\u2212";
  CHECK(table->item(0, 3)->text().startsWith(sign));
  CHECK(table->item(0, 4)->text() == sign + QString("%1%").arg(std::abs(stepPct), 0, 'f', 1));
  const QColor good(26, 152, 80), bad(215, 48, 39);
  CHECK(table->item(0, 3)->foreground().color() == (b->step.time_s < a->step.time_s ? good : bad));

  // The headline: rounded step-time change and the memory change on B's fullest device.
  const QString headline = compare->headlineLabel()->text();
  CHECK(headline.startsWith("B: " + sign + QString::number(std::abs(stepPct), 'f', 0) + "% step time"));
  const long long fullestId = b->mesh.devices[static_cast<std::size_t>(b->memory.argmax)].id;
  CHECK(headline.contains(QString("on the fullest device (device %1)").arg(fullestId)));
  CHECK(headline.contains((fb.total() > fa.total() ? "+" : "\u2212") +
                          formatFigure(CompareFigure::Unit::Bytes, std::abs(fb.total() - fa.total()))));

  // Back to A is one undo step and brings A's mesh back.
  const int steps = window.document()->undoStack()->count();
  QTest::mouseClick(compare->restoreButton(), Qt::LeftButton);
  CHECK(window.document()->undoStack()->count() == steps + 1);
  CHECK(window.document()->scenario() == *compare->pinnedScenario());
  CHECK(meshText(window.document()->scenario().mesh.axes) == "fsdp:8");
}

TEST_CASE("opening another workspace drops the search's rows: none of them can be applied to it", "[ui][suggest]") {
  test::app();
  MainWindow window;
  load(window, smallWorld());
  SuggestPanel* panel = window.suggestPanel();
  panel->ordersBox()->setChecked(false);
  panel->startSearch();
  REQUIRE(panel->waitForSearch(60000));
  REQUIRE(panel->model()->rowCount() > 0);
  // Another workspace takes its place (an example opened from the File menu).
  REQUIRE(window.openFile(QString::fromStdString(
      (std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources/scenarios/gpt2-h100-2-hosts.shardscope.json")
          .string())));
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(panel->model()->rowCount() == 0);
  CHECK(panel->model()->layoutAt(0) == nullptr);
  CHECK_FALSE(panel->applyButton()->isEnabled());
  CHECK(panel->summaryLabel()->text().contains("search again"));
}

TEST_CASE("an edit that leaves the coloured axis at size one colours by the largest axis", "[ui][suggest]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  window.selectAxis("dp"); // dp (2) of the default dp 2 x fsdp 16 x tp 4
  REQUIRE(window.physicalView()->analysis());
  window.document()->edit("dp into fsdp", [](Scenario& s) {
    s.mesh.axes[0].ici = 1;
    s.mesh.axes[1].ici = 32;
  });
  REQUIRE(window.waitForAnalysis(60000));
  const auto names = window.runner()->lastValid()->mesh.axis_names;
  REQUIRE(names[1] == "fsdp");
  CHECK(window.selection()->axis() == 1); // fsdp (32), not dp (1): one colour for every chip
}

TEST_CASE("the Suggest filters say each role's name in the workspace, and cp is one of them", "[ui][suggest]") {
  test::app();
  MainWindow window;
  load(window, smallWorld());
  SuggestPanel* panel = window.suggestPanel();
  REQUIRE(panel->axisBox("cp"));
  CHECK(panel->roleNamesLabel()->isHidden());
  // A MaxText import: dp is its data axis, tp its tensor axis, sp its context axis.
  MaxTextImportNotes notes;
  const Scenario imported =
      importMaxText({SHARDSCOPE_TEST_DATA "/maxtext/base.yml"}, {"compile_topology=v5p-16"}, notes);
  load(window, imported);
  REQUIRE_FALSE(panel->roleNamesLabel()->isHidden());
  CHECK(panel->roleNamesLabel()->text() ==
        "In this workspace's names (its rows use them): dp is data, tp is tensor, ep is expert, sp is context.");
  CHECK(panel->axisBox("tp")->toolTip().contains("this workspace's tensor axis"));
  // A layout as fast as the best reads so, not "0.0% longer".
  LayoutSearchResult result;
  LayoutRow row;
  row.mesh = "fsdp:8";
  row.fits = true;
  row.step_time_s = 1.0;
  result.rows.push_back(row);
  row.step_time_s = 1.0002;
  result.current = row;
  CHECK(SuggestPanel::verdictOf(result) == "Yours is already as fast as the best found.");
  result.current->step_time_s = 1.02;
  CHECK(SuggestPanel::verdictOf(result).startsWith("Yours takes 2.0% longer"));
}
