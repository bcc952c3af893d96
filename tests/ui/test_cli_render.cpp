// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include <QFile>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

// `shardscope-cli render` runs the real executable: the command is registered from its main().
namespace {
struct Run {
  int code = -1;
  QString err;
};
Run cli(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(SHARDSCOPE_CLI_PATH), args);
  p.waitForFinished(60000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardError())};
}
} // namespace

TEST_CASE("shardscope-cli render draws the physical, logical and memory views headless", "[ui][render]") {
  shardscope::ui::test::app();
  QTemporaryDir dir;
  QFile workspace(dir.filePath("w.json"));
  REQUIRE(workspace.open(QIODevice::WriteOnly));
  workspace.write(R"({"topology": {"chip": "v4", "shape": [4, 4, 8]},
                      "mesh": {"axes": [{"name": "data", "ici": 8}, {"name": "fsdp", "ici": 4}, {"name": "tp", "ici": 4}]}})");
  workspace.close();

  const QString svg = dir.filePath("physical.svg");
  REQUIRE(cli({"render", "--view", "physical", "--out", svg, workspace.fileName()}).code == 0);
  QFile svgFile(svg);
  REQUIRE(svgFile.open(QIODevice::ReadOnly));
  const QByteArray text = svgFile.readAll();
  CHECK(text.contains("<svg"));
  CHECK(text.contains("TPU v4")); // the header names the hardware

  const QString png = dir.filePath("logical.png");
  REQUIRE(cli({"render", "--view", "logical", "--size", "640x480", "--out", png, workspace.fileName()}).code == 0);
  const QImage image(png);
  CHECK(image.size() == QSize(640, 480));

  CHECK(cli({"render", "--view", "memory", "--out", dir.filePath("memory.png"), workspace.fileName()}).code == 0);
  CHECK(QFile::exists(dir.filePath("memory.png")));
  // Every view of the catalogue renders, at its size: the communication chart too.
  REQUIRE(cli({"render", "--view", "comm", "--out", dir.filePath("comm.png"), workspace.fileName()}).code == 0);
  CHECK(QImage(dir.filePath("comm.png")).size() == QSize(1200, 600));

  // Errors: a bad view, a missing --out, an unknown format, a mesh JAX cannot place.
  CHECK(cli({"render", "--view", "sideways", "--out", png}).code == 2);
  CHECK(cli({"render", "--view", "physical"}).code == 2);
  const Run twoFiles = cli({"render", "--view", "physical", "--out", png, workspace.fileName(), workspace.fileName()});
  CHECK(twoFiles.code == 2);
  CHECK(twoFiles.err.contains("only 1 workspace file may be given"));
  const Run badType = cli({"render", "--view", "physical", "--out", dir.filePath("x.gif"), workspace.fileName()});
  CHECK(badType.code == 1);
  CHECK(badType.err.contains(".gif"));
  QFile unplaceable(dir.filePath("bad.json"));
  REQUIRE(unplaceable.open(QIODevice::WriteOnly));
  unplaceable.write(
      R"({"mesh": {"axes": [{"name": "dp", "ici": 2}, {"name": "fsdp", "ici": 64}], "allow_split_physical_axes": false}})");
  unplaceable.close();
  // No pipeline section: nothing to draw, said (it drew a placeholder and exited 0).
  const Run noPipeline = cli({"render", "--view", "pipeline", "--out", png, workspace.fileName()});
  CHECK(noPipeline.code == 1);
  CHECK(noPipeline.err.contains("the workspace has no pipeline section"));
  // An output path with no extension names no image type (it said "Unknown image type '.'").
  const Run noType = cli({"render", "--view", "physical", "--out", dir.filePath("image"), workspace.fileName()});
  CHECK(noType.code == 1);
  CHECK(noType.err.contains("names no image type: end it in .png or .svg"));
  const Run bad = cli({"render", "--view", "physical", "--out", svg, unplaceable.fileName()});
  CHECK(bad.code == 1);
  CHECK(bad.err.contains("NotImplementedError"));
}

TEST_CASE("shardscope-cli render --view shards draws one parameter's blocks", "[ui][render]") {
  shardscope::ui::test::app();
  QTemporaryDir dir;
  // The default scenario (dp 2, fsdp 16, tp 4 on v4 4x4x8): down_proj is P('fsdp', 'tp').
  const QString svg = dir.filePath("shards.svg");
  const Run ok = cli({"render", "--view", "shards", "--param", "model.layers.0.mlp.down_proj.weight", "--out", svg});
  REQUIRE(ok.code == 0);
  QFile file(svg);
  REQUIRE(file.open(QIODevice::ReadOnly));
  const QByteArray text = file.readAll();
  CHECK(text.contains("64 shard(s)"));
  CHECK(text.contains("2 replica(s)"));
  CHECK(text.contains("(256, 3584)")); // 4096 / fsdp 16, 14336 / tp 4
  const Run missing = cli({"render", "--view", "shards", "--out", svg});
  CHECK(missing.code == 2);
  CHECK(missing.err.contains("--param"));
  const Run unknown = cli({"render", "--view", "shards", "--param", "no.such.weight", "--out", svg});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.contains("no parameter named 'no.such.weight'"));
}

TEST_CASE("render keeps to the view's pixels: a long pipeline aggregates, a huge image is refused", "[ui][render]") {
  shardscope::ui::test::app();
  QTemporaryDir dir;
  // GPipe with 16384 micro-batches on 4 ranks: 131,072 tasks in a 1400-pixel-wide timeline. Drawn
  // one by one they made an SVG of about 80 MB (317 MB at 65536); a pixel column holds one now.
  QFile workspace(dir.filePath("gpipe.json"));
  REQUIRE(workspace.open(QIODevice::WriteOnly));
  workspace.write(R"({"topology": {"chip": "h100", "shape": [4, 8]}, "model": {"preset": "llama-3.1-8b"},
                      "mesh": {"axes": [{"name": "pp", "ici": 4}, {"name": "tp", "ici": 8}]},
                      "pipeline": {"axis": "pp", "schedule": "GPipe", "microbatches": 16384}})");
  workspace.close();
  const QString svg = dir.filePath("pipeline.svg");
  REQUIRE(cli({"render", "--view", "pipeline", "--out", svg, workspace.fileName()}).code == 0);
  CHECK(QFile(svg).size() < 8'000'000);

  const Run huge = cli({"render", "--view", "logical", "--size", "16384x16384", "--out", dir.filePath("h.png")});
  CHECK(huge.code == 2);
  CHECK(huge.err.contains("--size 16384x16384 is 268 megapixels; at most 64"));
  CHECK(cli({"render", "--view", "logical", "--size", "8192x16", "--out", dir.filePath("w.png")}).code == 0);
}

TEST_CASE("render says nothing on stderr when it succeeds, XDG_RUNTIME_DIR unset or not", "[ui][render]") {
  shardscope::ui::test::app();
  QTemporaryDir dir;
  // Qt's "QStandardPaths: XDG_RUNTIME_DIR not set, defaulting to ..." was printed on every run.
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.remove(QStringLiteral("XDG_RUNTIME_DIR"));
  // Under the sanitizer build, LeakSanitizer's own report of the suppressions it used is not ours.
  if (env.contains(QStringLiteral("LSAN_OPTIONS")))
    env.insert(QStringLiteral("LSAN_OPTIONS"), env.value(QStringLiteral("LSAN_OPTIONS")) + ":print_suppressions=0");
  p.setProcessEnvironment(env);
  p.start(QStringLiteral(SHARDSCOPE_CLI_PATH), {"render", "--view", "logical", "--out", dir.filePath("l.png")});
  REQUIRE(p.waitForFinished(60000));
  CHECK(p.exitCode() == 0);
  CHECK(QString::fromUtf8(p.readAllStandardError()).isEmpty());
}
