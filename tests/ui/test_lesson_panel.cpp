// SPDX-License-Identifier: Apache-2.0
// The Learn dock: a lesson step is one undoable edit of the workspace, and the table shows the
// watched figures before and after with the direction the lesson expects.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"
#include "panels/lesson_panel.hpp"

#include <QComboBox>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QTest>
#include <QTextBrowser>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("a lesson step applies as one undo step and shows its figures", "[ui][lessons]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  LessonPanel* panel = window.lessonPanel();
  REQUIRE(panel->lessonBox()->count() == 8);
  REQUIRE(panel->showLesson("fsdp"));
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
