// SPDX-License-Identifier: Apache-2.0
// The memory chart at the sizes people run: 16, 512 and 8960 devices (the full v5p pod). At every
// size the drawn chart keeps the per-category breakdown (its legend names parameters, gradients,
// optimizer state and activations, and their colours are on the picture), the HBM line, and a
// label per bar that fits its bar.
#include "ui_test_app.hpp"

#include "charts/memory_chart.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <QBarCategoryAxis>
#include <QChart>
#include <QChartView>
#include <QFile>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>

#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
std::shared_ptr<const Analysis> analyzeFile(const std::string& path) {
  return std::make_shared<const Analysis>(analyze(loadScenarioFile(std::filesystem::path(path))));
}

// Whether the picture has a pixel of exactly this colour (bars and legend swatches are flat fills).
bool hasColour(const QImage& image, QRgb colour) {
  const QImage rgb = image.convertToFormat(QImage::Format_RGB32);
  for (int y = 0; y < rgb.height(); ++y) {
    const auto* line = reinterpret_cast<const QRgb*>(rgb.constScanLine(y));
    for (int x = 0; x < rgb.width(); ++x)
      if ((line[x] & 0xffffff) == (colour & 0xffffff)) return true;
  }
  return false;
}

// The chart as a dock shows it, grabbed; checks what every size must keep.
void checkTrainingChart(const std::shared_ptr<const Analysis>& analysis, const QString& png) {
  ViewSelection selection;
  MemoryChart chart(&selection);
  chart.resize(560, 340);
  chart.show();
  chart.setAnalysis(analysis);
  QApplication::processEvents();
  REQUIRE(chart.hasData());
  const QImage image = chart.grab().toImage();
  image.save(png); // kept for a look when the test runs with a directory that stays
  // The four categories of a training job, in stacking order, in the legend and drawn.
  CHECK(chart.categoryNames() == QStringList{"Parameters", "Gradients", "Optimizer", "Activations"});
  const QString legend = chart.legendLabel()->text();
  for (const char* name : {"Parameters", "Gradients", "Optimizer", "Activations", "HBM"}) {
    INFO(name);
    CHECK(legend.contains(name));
  }
  // The series colours: parameters, gradients, optimizer, activations, and the HBM line.
  for (QRgb colour : {0x4e79a7u, 0xf28e2bu, 0x59a14fu, 0xe15759u, 0xd62728u}) {
    INFO(std::hex << colour);
    CHECK(hasColour(image, colour));
  }
  // Every device is behind exactly one bar, and the first bar is the fullest device's breakdown.
  std::size_t covered = 0;
  for (const auto& bar : chart.barDevices()) covered += bar.size();
  if (chart.showsClasses()) CHECK(covered == analysis->mesh.devices.size());
  REQUIRE_FALSE(chart.barDevices().empty());
  if (chart.showsClasses()) {
    const auto& fullest = analysis->memory.per_device[static_cast<std::size_t>(chart.barDevices().front().front())];
    CHECK(fullest.total() == Approx(analysis->memory.max_bytes));
  }
  // Labels: one per bar, none longer than its bar is wide (or, rotated, than a text line).
  const QStringList labels = chart.barLabels();
  CHECK(labels.size() == static_cast<int>(chart.barDevices().size()));
  CHECK(static_cast<int>(chart.barDevices().size()) <= chart.barCapacity());
  for (const QString& label : labels) CHECK_FALSE(label.contains(QChar(0x2026)));
}
} // namespace

TEST_CASE("the memory chart keeps its breakdown at 16, 512 and 8960 devices", "[ui][memory][screenshot]") {
  test::app();
  QTemporaryDir dir;
  REQUIRE(dir.isValid());

  SECTION("16 devices: one bar per device, in id order") {
    const QString path = dir.filePath("v4-16.shardscope.json");
    QFile file(path);
    REQUIRE(file.open(QIODevice::WriteOnly));
    file.write(R"({"format": "shardscope-scenario", "version": 1,
      "topology": {"chip": "v4", "shape": [2, 2, 4]},
      "mesh": {"axes": [{"name": "fsdp", "ici": -1}, {"name": "tp", "ici": 2}]},
      "model": {"preset": "llama-3.1-8b"}, "rules": {"preset": "fsdp-tp"},
      "training": {"micro_batch": 16, "seq_len": 4096, "batch_axes": ["fsdp"]}})");
    file.close();
    const auto analysis = analyzeFile(path.toStdString());
    REQUIRE(analysis->mesh.devices.size() == 16);
    checkTrainingChart(analysis, dir.filePath("memory-16.png"));
    ViewSelection selection;
    MemoryChart chart(&selection);
    chart.resize(560, 340);
    chart.show();
    chart.setAnalysis(analysis);
    REQUIRE_FALSE(chart.showsClasses());
    // Ids 0..15 in order (the torus' mesh order is not), whole.
    QStringList ids;
    for (int i = 0; i < 16; ++i) ids << QString::number(i);
    CHECK(chart.barLabels() == ids);
  }
  SECTION("512 devices: the v5p-512 example") {
    const auto analysis =
        analyzeFile(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/llama-3.1-70b-v5p-512.shardscope.json");
    REQUIRE(analysis->mesh.devices.size() == 512);
    checkTrainingChart(analysis, dir.filePath("memory-512.png"));
  }
  SECTION("8960 devices: the full v5p pod") {
    const auto analysis = analyzeFile(SHARDSCOPE_SOURCE_DIR "/docs/screenshots/v5p-full-pod.shardscope.json");
    REQUIRE(analysis->mesh.devices.size() == 8960);
    checkTrainingChart(analysis, dir.filePath("memory-8960.png"));
  }
}
