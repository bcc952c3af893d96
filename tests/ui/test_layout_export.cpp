// SPDX-License-Identifier: Apache-2.0
// File › Export Layout writes what `shardscope-cli export` writes, for the workspace on screen.
#include "ui_test_app.hpp"

#include "main_window.hpp"

#include <QFile>
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
