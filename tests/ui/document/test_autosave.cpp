// SPDX-License-Identifier: Apache-2.0
#include "document/autosave.hpp"
#include "main_window.hpp"
#include "document/scenario_document.hpp"
#include "ui_test_app.hpp"

#include <QDir>
#include <QFile>
#include <QTemporaryDir>
#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("autosave writes unsaved edits and removes them when clean", "[ui][autosave]") {
  test::app();
  QTemporaryDir dir;
  ScenarioDocument document;
  Autosave autosave(&document, dir.path());
  autosave.writeNow();
  CHECK_FALSE(QFile::exists(autosave.ownFile())); // nothing unsaved, nothing written

  document.edit("tp to 8", [](Scenario& s) { s.mesh.axes[2].ici = 8; });
  autosave.writeNow();
  REQUIRE(QFile::exists(autosave.ownFile()));
  document.undoStack()->undo(); // back to the saved state: the autosave goes
  CHECK_FALSE(QFile::exists(autosave.ownFile()));
}

TEST_CASE("a crash's autosave is found, restored as unsaved work, and removed", "[ui][autosave]") {
  test::app();
  QTemporaryDir dir;
  Scenario edited = defaultScenario();
  edited.mesh.axes[0].ici = 4;
  edited.mesh.axes[1].ici = 8;
  {
    ScenarioDocument crashed;
    Autosave autosave(&crashed, dir.path());
    crashed.edit("reshape", [&](Scenario& s) { s = edited; });
    autosave.writeNow();
    // A crash leaves the file behind under a process id that no longer runs.
    REQUIRE(QFile::copy(autosave.ownFile(), dir.path() + "/autosave-999999999.shardscope.json"));
  }
  CHECK(QDir(dir.path()).entryList(QDir::Files).size() == 1); // the clean exit removed its own

  MainWindow window;
  Autosave* autosave = window.enableAutosave(dir.path());
  const auto orphans = autosave->orphans();
  REQUIRE(orphans.size() == 1);
  CHECK(orphans.front().scenario == edited);
  window.document()->restore(orphans.front().scenario, orphans.front().originalPath);
  Autosave::discard(orphans.front());
  CHECK(window.document()->scenario() == edited);
  CHECK(window.document()->isModified());
  CHECK(autosave->orphans().empty());
}

TEST_CASE("a torn autosave is ignored, not offered", "[ui][autosave]") {
  test::app();
  QTemporaryDir dir;
  QFile torn(dir.path() + "/autosave-999999998.shardscope.json");
  REQUIRE(torn.open(QIODevice::WriteOnly));
  torn.write("{\"scenario\": {\"mesh\": ");
  torn.close();
  ScenarioDocument document;
  Autosave autosave(&document, dir.path());
  CHECK(autosave.orphans().empty());
}
