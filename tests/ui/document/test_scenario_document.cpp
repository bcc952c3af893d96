// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"

#include <QFile>
#include <QSignalSpy>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("document edits are undoable and consecutive edits of one value merge", "[ui][document]") {
  test::app();
  ScenarioDocument doc;
  QSignalSpy changed(&doc, &ScenarioDocument::scenarioChanged);
  const Scenario start = doc.scenario();
  doc.edit(
      "a", [](Scenario& s) { s.mesh.axes[0].ici = 1; }, "mesh.axes.0.1");
  doc.edit(
      "b", [](Scenario& s) { s.mesh.axes[0].ici = 4; }, "mesh.axes.0.1");
  CHECK(doc.undoStack()->count() == 1); // merged
  CHECK(doc.scenario().mesh.axes[0].ici == 4);
  CHECK(doc.isModified());
  doc.undoStack()->undo();
  CHECK(doc.scenario() == start);
  CHECK_FALSE(doc.isModified());
  doc.undoStack()->redo();
  CHECK(doc.scenario().mesh.axes[0].ici == 4);
  CHECK(changed.count() == 4);

  // Different values do not merge; a no-op edit pushes nothing.
  doc.edit(
      "c", [](Scenario& s) { s.mesh.axes[1].ici = 8; }, "mesh.axes.1.1");
  CHECK(doc.undoStack()->count() == 2);
  doc.edit("d", [](Scenario&) {});
  CHECK(doc.undoStack()->count() == 2);

  // Typing a value back to where it was leaves nothing to undo.
  doc.edit(
      "e", [](Scenario& s) { s.topology.slices = 2; }, "topology.slices");
  doc.edit(
      "f", [](Scenario& s) { s.topology.slices = 1; }, "topology.slices");
  CHECK(doc.undoStack()->count() == 2);
}

TEST_CASE("document saves atomically and loads what it saved", "[ui][document]") {
  test::app();
  QTemporaryDir dir;
  ScenarioDocument doc;
  doc.edit("rename", [](Scenario& s) {
    s.name = "round trip";
    s.topology.chip = "v5p";
  });
  const QString path = dir.filePath("a.json");
  QString error;
  REQUIRE(doc.save(path, &error));
  CHECK(doc.filePath() == path);
  CHECK_FALSE(doc.isModified());

  ScenarioDocument other;
  REQUIRE(other.load(path, &error));
  CHECK(other.scenario() == doc.scenario());
  CHECK(other.displayName() == "a.json");
  CHECK(other.undoStack()->count() == 0);

  // A failed save leaves the previous file byte for byte.
  QFile before(path);
  REQUIRE(before.open(QIODevice::ReadOnly));
  const QByteArray bytes = before.readAll();
  before.close();
  REQUIRE(QDir(dir.path()).mkdir("sub"));
  CHECK_FALSE(doc.save(dir.filePath("sub"), &error)); // a directory
  CHECK(error.contains("sub"));
  QFile after(path);
  REQUIRE(after.open(QIODevice::ReadOnly));
  CHECK(after.readAll() == bytes);

  // A workspace with a bad field names it.
  QFile bad(dir.filePath("bad.json"));
  REQUIRE(bad.open(QIODevice::WriteOnly));
  bad.write(R"({"mesh": {"axes": [{"name": "dp", "ici": "two"}]}})");
  bad.close();
  CHECK_FALSE(other.load(bad.fileName(), &error));
  CHECK(error.contains("ici"));
  CHECK(other.filePath() == path);
}
