// SPDX-License-Identifier: Apache-2.0
// The Learn dock: a lesson step is one undoable edit of the workspace, and the table shows the
// watched figures before and after with the direction the lesson expects.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/inspect_panel.hpp"
#include "panels/lesson_panel.hpp"
#include "document/analysis_runner.hpp"
#include "views/physical_view.hpp"

#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QPainter>
#include <QUndoStack>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>
#include <QTreeWidget>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("a lesson step applies as one undo step and shows its figures", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->lessonBox()->count() == 15);
  REQUIRE(panel->showLesson("fsdp"));
  // A lesson for any workspace says whose numbers its text quotes.
  bool says = false;
  for (const auto* label : panel->findChildren<QLabel*>())
    says = says || label->text().contains("the numbers in its text are the default workspace's");
  CHECK(says);
  CHECK_FALSE(panel->showLesson("zero-4"));
  CHECK(panel->stepList()->count() == 2);
  CHECK(panel->textView()->toPlainText().contains("Every chip holds the whole model"));

  const Scenario original = window.document()->scenario();
  QUndoStack* undo = window.document()->undoStack();
  const int edits = undo->count();
  // Step 1 (data parallelism), then step 2 (FSDP): two edits, the second's figures in the table.
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(undo->count() == edits + 1);
  CHECK(window.document()->scenario().mesh.axes.front().name == "dp");
  CHECK(panel->stepList()->currentRow() == 1);
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(undo->count() == edits + 2);
  QTableWidget* table = panel->figureTable();
  REQUIRE(table->rowCount() == 4);
  CHECK(table->item(0, 0)->text() == "memory.params");
  CHECK(table->item(0, 3)->text() == "down"); // and it holds: no "(not on this workspace)"
  CHECK(table->item(3, 0)->text() == "comm.fsdp");
  CHECK(table->item(3, 1)->text() == "0 s");
  CHECK(table->item(3, 2)->text() != "0 s");

  undo->undo();
  undo->undo();
  CHECK(window.document()->scenario() == original);
}

TEST_CASE("the Learn table follows the workspace: a repeated step, an undo, a redo, another lesson", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("fsdp"));
  QTableWidget* table = panel->figureTable();
  QUndoStack* undo = window.document()->undoStack();
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(table->rowCount() > 0);
  // The same step again: the workspace has it already, so nothing is edited and the table shows
  // the current figures (it stayed at "computing…").
  const int edits = undo->count();
  panel->stepList()->setCurrentRow(0);
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(undo->count() == edits);
  REQUIRE(table->rowCount() > 0);
  for (int r = 0; r < table->rowCount(); ++r) CHECK(table->item(r, 2)->text() != "computing…");
  // Undo: the table described the step's workspace, not the one undo brings back; it empties.
  undo->undo();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(table->rowCount() == 0);
  // Redo brings the step's workspace back, and its table with it.
  undo->redo();
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(table->rowCount() > 0);
  CHECK(table->item(0, 0)->text() == "memory.params");
  for (int r = 0; r < table->rowCount(); ++r) CHECK(table->item(r, 2)->text() != "computing…");
  undo->undo();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(table->rowCount() == 0);
  // Another lesson starts with an empty table.
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  REQUIRE(table->rowCount() > 0);
  REQUIRE(panel->showLesson("tensor-parallel"));
  CHECK(table->rowCount() == 0);
  undo->undo();
}

TEST_CASE("every lesson's every step applies in the app, draws, and undoes back to the workspace", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  QUndoStack* undo = window.document()->undoStack();
  REQUIRE(panel->lessonBox()->count() == 15);
  const auto lessons = builtinLessons();
  REQUIRE(lessons.size() == 15);
  for (int l = 0; l < panel->lessonBox()->count(); ++l) {
    panel->lessonBox()->setCurrentIndex(l);
    const int steps = panel->stepList()->count();
    INFO("lesson " << panel->lessonBox()->currentText().toStdString());
    REQUIRE(steps > 0);
    const QString start = QString::fromStdString(lessons[static_cast<std::size_t>(l)].start);
    // A lesson written for an example offers it; its first Apply elsewhere opens it and edits nothing.
    CHECK(panel->exampleButton()->isHidden() == start.isEmpty());
    if (!start.isEmpty() && window.document()->copyOf() != start) {
      CHECK(panel->exampleButton()->isEnabled());
      panel->stepList()->setCurrentRow(0);
      QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
      REQUIRE(window.waitForAnalysis(60000));
      CHECK(window.document()->copyOf() == start);
      CHECK(undo->count() == 0); // a fresh copy of the example
      CHECK(panel->textView()->toPlainText().startsWith("Opened the example " + start));
      CHECK(panel->figureTable()->rowCount() == 0);
      CHECK_FALSE(panel->exampleButton()->isEnabled());
    }
    const Scenario original = window.document()->scenario();
    const int edits = undo->index();
    for (int s = 0; s < steps; ++s) {
      panel->stepList()->setCurrentRow(s);
      QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
      REQUIRE(window.waitForAnalysis(60000));
      INFO("step " << s + 1);
      // Each step draws: the physical view of its workspace is not blank (some chip colour differs
      // from the background), and the analysis placed its mesh.
      QImage image(800, 500, QImage::Format_ARGB32);
      image.fill(Qt::white);
      QPainter painter(&image);
      window.physicalView()->render(painter, QRectF(0, 0, 800, 500));
      painter.end();
      int coloured = 0;
      for (int y = 40; y < 460; y += 7)
        for (int x = 0; x < 800; x += 7)
          if (image.pixelColor(x, y).saturation() > 60) ++coloured;
      CHECK(coloured > 20);
      CHECK_FALSE(window.runner()->lastValid()->mesh.devices.empty());
    }
    // One edit per step, but for a question asked of the workspace as it stands.
    int editing = 0;
    for (const auto& step : lessons[static_cast<std::size_t>(l)].steps) editing += !step.patch.is_null() || step.mesh;
    CHECK(undo->index() == edits + editing);
    while (undo->index() > edits) undo->undo();
    REQUIRE(window.waitForAnalysis(60000));
    CHECK(window.document()->scenario() == original);
  }
}

TEST_CASE("a lesson written for an example opens it on request, as --lesson does without a file", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("fsdp")); // written for any workspace: nothing to open
  CHECK(panel->exampleButton()->isHidden());
  panel->openExampleIfNeeded();
  CHECK(window.document()->copyOf().isEmpty());
  REQUIRE(panel->showLesson("pipelines"));
  CHECK_FALSE(panel->exampleButton()->isHidden());
  CHECK_FALSE(panel->onLessonExample());
  QTest::mouseClick(panel->exampleButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->copyOf() == "llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json");
  CHECK(panel->onLessonExample());
  CHECK_FALSE(panel->exampleButton()->isEnabled());
  // On its example the pipeline lesson's first step applies: one edit, no "not on this workspace".
  const int edits = window.document()->undoStack()->count();
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->undoStack()->count() == edits + 1);
  for (int r = 0; r < panel->figureTable()->rowCount(); ++r)
    CHECK_FALSE(panel->figureTable()->item(r, 3)->text().contains("not on this workspace"));
}

TEST_CASE("predict, then reveal: Check applies the step and grades the answer on its workspace", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("collectives"));
  CHECK_FALSE(panel->answerEdit()->isHidden());
  CHECK_FALSE(panel->checkButton()->isHidden());
  QUndoStack* undo = window.document()->undoStack();
  const int edits = undo->count();
  // An answer in the wrong kind of unit is refused where the verdict goes; nothing is applied.
  panel->answerEdit()->setText("2 GiB");
  QTest::mouseClick(panel->checkButton(), Qt::LeftButton);
  CHECK(panel->verdictLabel()->text().contains("asks in us, not in GiB"));
  CHECK(undo->count() == edits);
  // Step 1: 2 MiB over v4's wrapped X ring at 90 GB/s both ways is 23.3 µs; 23 is right.
  panel->answerEdit()->setText("23");
  QTest::mouseClick(panel->checkButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(undo->count() == edits + 1);
  CHECK(panel->verdictLabel()->text().contains("Right: 23.3 µs (yours: 23 µs)."));
  CHECK(panel->verdictLabel()->text().contains("Worked: T = V / W"));
  // Step 2: the same shards over two axes take 46.6 µs; 23 is half of it.
  REQUIRE(panel->stepList()->currentRow() == 1);
  panel->answerEdit()->setText("23 us");
  QTest::mouseClick(panel->checkButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(panel->verdictLabel()->text().contains("Not quite: 46.6 µs; yours (23 µs) is 2.0x too small."));
  // Step 3 applied without an answer: the answer is shown.
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(panel->verdictLabel()->text().contains("the answer is 46.6 µs."));
  // An undo forgets the step and its verdict.
  undo->undo();
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(panel->verdictLabel()->isHidden());
}

TEST_CASE("a lesson step that reads a report opens it in the Inspect dock", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("out-of-memory"));
  panel->stepList()->setCurrentRow(1);
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.inspectPanel()->header()->text().contains("oom-llama-3.1-8b-v4-micro-batch-128.txt"));
  CHECK(window.inspectPanel()->tree()->topLevelItemCount() > 0);
  // The report opens beside the lesson (Learn above, Inspect below), not as a tab over it.
  auto* learn = window.findChild<QDockWidget*>("LearnDock");
  auto* inspect = window.findChild<QDockWidget*>("InspectDock");
  REQUIRE(learn);
  REQUIRE(inspect);
  QApplication::processEvents();
  CHECK_FALSE(window.tabifiedDockWidgets(learn).contains(inspect));
  CHECK_FALSE(learn->visibleRegion().isEmpty());
  CHECK_FALSE(inspect->visibleRegion().isEmpty());
}

TEST_CASE("a step whose workspace cannot be analysed says so instead of 'computing…'", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("fsdp"));
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton); // the edit is made; its analysis is pending
  REQUIRE(panel->figureTable()->rowCount() > 0);
  CHECK(panel->figureTable()->item(0, 2)->text() == "computing…");
  panel->setAnalysisFailed("Failed to find assignment for logical_axis_index 1");
  CHECK(panel->figureTable()->item(0, 2)->text() == "not analysed");
  CHECK(panel->verdictLabel()->text().contains("cannot be analysed: Failed to find assignment"));
  REQUIRE(window.waitForAnalysis(60000)); // the real analysis arrives later: nothing waits for it
}

TEST_CASE("the Learn table names the step it shows, and applying that step again keeps it", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("fsdp"));
  QTableWidget* table = panel->figureTable();
  CHECK(panel->tableCaption()->isHidden());
  for (int s = 0; s < 2; ++s) {
    QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
    REQUIRE(window.waitForAnalysis(60000));
  }
  // The list stays on the last step; the caption says the table is step 2's.
  CHECK(panel->stepList()->currentRow() == 1);
  REQUIRE_FALSE(panel->tableCaption()->isHidden());
  CHECK(panel->tableCaption()->text().startsWith("What step 2"));
  REQUIRE(table->rowCount() == 4);
  CHECK(table->item(0, 3)->text() == "down");
  const QString after = table->item(0, 2)->text();
  // Apply again (the button stays enabled on the last step): nothing to edit, and the table still
  // compares the step's before and after, never the workspace with itself.
  const int edits = window.document()->undoStack()->count();
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->undoStack()->count() == edits);
  REQUIRE(table->rowCount() == 4);
  CHECK(table->item(0, 3)->text() == "down");
  CHECK(table->item(0, 2)->text() == after);
}

TEST_CASE("a lesson's first step on its example edited by another lesson starts from the example again",
          "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->showLesson("pipelines"));
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton); // opens the example
  REQUIRE(window.waitForAnalysis(60000));
  const Scenario example = window.document()->scenario();
  for (int s = 0; s < panel->stepList()->count(); ++s) {
    panel->stepList()->setCurrentRow(s);
    QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
    REQUIRE(window.waitForAnalysis(60000));
  }
  REQUIRE_FALSE(window.document()->scenario() == example);
  // pipelines-2 is written for the same example: its first Apply brings the example back (one
  // undoable edit), the second makes step 1's edit on it, and the table holds what the lesson says.
  REQUIRE(panel->showLesson("pipelines-2"));
  QUndoStack* undo = window.document()->undoStack();
  const int edits = undo->count();
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(undo->count() == edits + 1);
  CHECK(window.document()->scenario() == example);
  CHECK(panel->textView()->toPlainText().startsWith("The workspace had changed since the example"));
  CHECK(panel->figureTable()->rowCount() == 0);
  QTest::mouseClick(panel->applyButton(), Qt::LeftButton);
  REQUIRE(window.waitForAnalysis(60000));
  QTableWidget* table = panel->figureTable();
  REQUIRE(table->rowCount() > 0);
  for (int r = 0; r < table->rowCount(); ++r) {
    INFO(table->item(r, 0)->text().toStdString());
    CHECK_FALSE(table->item(r, 3)->text().contains("not on this workspace"));
  }
}

TEST_CASE("Apply step stays at one height whatever the lesson and its step", "[ui][lessons]") {
  // A newcomer's review found the button at a different height per lesson: it sat under the
  // lesson's summary and the step's text, whose lengths vary. It now sits under the steps list.
  test::app();
  ScenarioDocument document;
  LessonPanel panel(&document);
  panel.resize(420, 700);
  panel.show();
  QApplication::processEvents();
  std::optional<int> y;
  for (int l = 0; l < panel.lessonBox()->count(); ++l) {
    panel.lessonBox()->setCurrentIndex(l);
    for (int s = 0; s < panel.stepList()->count(); ++s) {
      panel.stepList()->setCurrentRow(s);
      QApplication::processEvents();
      const int at = panel.applyButton()->mapTo(&panel, QPoint(0, 0)).y();
      INFO(panel.lessonBox()->currentText().toStdString() << ", step " << s + 1);
      if (!y) y = at;
      CHECK(at == *y);
    }
  }
  REQUIRE(y);
}
