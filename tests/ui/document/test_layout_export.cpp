// SPDX-License-Identifier: Apache-2.0
// File › Export Layout writes what `shardscope-cli export` writes, for the workspace on screen; File ›
// Open (and a drop) imports a MaxText config as `shardscope-cli import maxtext` does.
#include "ui_test_app.hpp"

#include "document/scenario_document.hpp"
#include "main_window.hpp"

#include <QApplication>
#include <QDragEnterEvent>
#include <QDropEvent>
#include <QFile>
#include <QMimeData>
#include <QTest>
#include <QUndoStack>
#include <QUrl>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

using namespace shardscope::ui;

TEST_CASE("Export Layout writes JAX code and MaxText overrides of the workspace on screen", "[ui][export]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  QTemporaryDir dir;
  REQUIRE(dir.isValid());
  QString error;
  REQUIRE(window.exportLayout(false, dir.filePath("layout.py"), &error));
  QFile py(dir.filePath("layout.py"));
  REQUIRE(py.open(QIODevice::ReadOnly));
  const QString code = QString::fromUtf8(py.readAll());
  // The default workspace: dp 2 x fsdp 16 x tp 4 on one v4 slice.
  CHECK(code.contains("MESH_SHAPE = (2, 16, 4)"));
  CHECK(code.contains("mesh_utils.create_device_mesh("));
  CHECK(code.contains("'model.embed_tokens.weight': P("));

  QStringList notes;
  REQUIRE(window.exportLayout(true, dir.filePath("overrides.yml"), &error, &notes));
  QFile yml(dir.filePath("overrides.yml"));
  REQUIRE(yml.open(QIODevice::ReadOnly));
  const QString overrides = QString::fromUtf8(yml.readAll());
  CHECK(overrides.contains("ici_fsdp_parallelism: 16\n"));
  CHECK(overrides.contains("ici_tensor_parallelism: 4\n"));
  CHECK_FALSE(notes.isEmpty()); // 'selective' is MaxText's 'minimal': said, not hidden

  CHECK_FALSE(window.exportLayout(false, dir.filePath("missing-dir/layout.py"), &error));
  CHECK(error.contains("Cannot write"));
}

TEST_CASE("a MaxText config opens as an untitled workspace, by File > Open and by a drop", "[ui][import]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  // The test base.yml names no compile_topology: opened as it is, the error says which key.
  QString error;
  CHECK_FALSE(window.openFile(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/data/maxtext/base.yml"), &error));
  CHECK(error.contains("compile_topology"));

  // With one named (v5p-256: 128 chips as MaxText's accelerator map lists it), MaxText's default model.
  QTemporaryDir dir;
  QFile source(QStringLiteral(SHARDSCOPE_SOURCE_DIR "/tests/data/maxtext/base.yml"));
  REQUIRE(source.open(QIODevice::ReadOnly));
  QByteArray text = source.readAll();
  REQUIRE(text.contains("compile_topology: ''"));
  text.replace("compile_topology: ''", "compile_topology: 'v5p-256'");
  QFile config(dir.filePath("run.yml"));
  REQUIRE(config.open(QIODevice::WriteOnly));
  config.write(text);
  config.close();
  REQUIRE(window.openFile(config.fileName(), &error));
  REQUIRE(window.waitForAnalysis(60000));
  const auto& s = window.document()->scenario();
  CHECK(s.training.framework == shardscope::Framework::MaxText);
  CHECK(s.topology.chip == "v5p");
  CHECK(s.topology.shape[0] * s.topology.shape[1] * s.topology.shape[2] == 128);
  CHECK(window.document()->filePath().isEmpty()); // Save asks where: never JSON over the .yml
  CHECK(window.document()->displayName() == "run.yml (copy)");
  CHECK_FALSE(window.document()->importNotes().isEmpty());

  // A broken config: one error naming the file, the workspace on screen stays.
  QFile bad(dir.filePath("bad.yml"));
  REQUIRE(bad.open(QIODevice::WriteOnly));
  bad.write("ici_fsdp_parallelism: [1, 2\n");
  bad.close();
  const auto before = window.document()->scenario();
  CHECK_FALSE(window.openFile(dir.filePath("bad.yml"), &error));
  CHECK(error.contains("bad.yml"));
  CHECK(window.document()->scenario() == before);

  // Dropped on the window: accepted and opened after the drop returns.
  QMimeData mime;
  mime.setUrls({QUrl::fromLocalFile(
      QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/gpt2-h100-2-hosts.shardscope.json"))});
  QDragEnterEvent enter(QPoint(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  QApplication::sendEvent(&window, &enter);
  CHECK(enter.isAccepted());
  QDropEvent drop(QPointF(10, 10), Qt::CopyAction, &mime, Qt::LeftButton, Qt::NoModifier);
  window.document()->undoStack()->setClean(); // nothing unsaved: no prompt
  QApplication::sendEvent(&window, &drop);
  QTest::qWait(50);
  REQUIRE(window.waitForAnalysis(60000));
  CHECK(window.document()->scenario().model.preset == "gpt2");
}
