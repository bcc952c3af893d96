// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "charts/memory_chart.hpp"
#include "views/view_selection.hpp"

#include "shardscope/base/units.hpp"

#include <QApplication>
#include <QChart>
#include <QChartView>
#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
std::shared_ptr<Analysis> analysisWithMemory(int devices, double scale, double hbm) {
  auto a = std::make_shared<Analysis>();
  MemorySummary& m = a->memory;
  for (int i = 0; i < devices; ++i) {
    a->mesh.devices.push_back(Device{i, Platform::Tpu, "TPU v4", std::array<int, 3>{i, 0, 0}, 0, 0, std::nullopt});
    DeviceMemory d;
    d.params = scale * (1 + i % 3) * 1e9;
    d.grads = d.params;
    d.optimizer = 2 * d.params;
    d.activations = 1e9;
    m.per_device.push_back(d);
    if (d.total() > m.max_bytes) {
      m.max_bytes = d.total();
      m.argmax = i;
    }
    m.mean_bytes += d.total() / devices;
  }
  m.hbm_bytes = hbm;
  m.out_of_memory = m.max_bytes > hbm;
  return a;
}
} // namespace

TEST_CASE("the memory chart shows per-device bars, the maximum and the OOM badge", "[ui][memory]") {
  test::app();
  ViewSelection selection;
  MemoryChart chart(&selection);
  chart.resize(800, 300);
  CHECK_FALSE(chart.hasData());
  CHECK(chart.shownMaxBytes() == 0);

  chart.setAnalysis(analysisWithMemory(8, 1.0, 32e9));
  CHECK(chart.hasData());
  CHECK_FALSE(chart.showsClasses());
  CHECK(chart.shownMaxBytes() == Approx(3 * 4e9 + 1e9));
  CHECK(chart.summaryLabel()->text().contains("device 2"));
  CHECK(chart.findChildren<QLabel*>().size() >= 2);

  // A heavier sharding: the maximum follows, and over HBM the badge shows.
  chart.setAnalysis(analysisWithMemory(8, 3.0, 32e9));
  CHECK(chart.shownMaxBytes() == Approx(3 * 12e9 + 1e9));
  bool oomVisible = false;
  for (QLabel* l : chart.findChildren<QLabel*>())
    if (l->text() == "OUT OF MEMORY") oomVisible = !l->isHidden();
  CHECK(oomVisible);

  // More devices than bars fit: one bar per memory class. Device i holds (1 + i % 3) GB of
  // parameters, so 300 devices form 3 classes of 100, the fullest (i % 3 == 2, first device 2) first.
  chart.setAnalysis(analysisWithMemory(300, 1.0, 32e9));
  REQUIRE(chart.showsClasses());
  CHECK(chart.barLabels() == QStringList{"2 (×100)", "1 (×100)", "0 (×100)"});
  REQUIRE(chart.barDevices().size() == 3);
  CHECK(chart.barDevices()[0].front() == 2);
  CHECK(chart.barDevices()[2].front() == 0);
  CHECK(chart.legendLabel()->text().contains("3 memory classes"));
  selection.setDevice(5); // highlighting a device of a class must not fail
}

TEST_CASE("the memory chart shows representative classes when there are more than fit", "[ui][memory]") {
  test::app();
  ViewSelection selection;
  MemoryChart chart(&selection);
  chart.resize(400, 300);
  // 200 devices, each its own class (parameters grow with the id): more classes than bars fit.
  auto a = std::make_shared<Analysis>();
  for (int i = 0; i < 200; ++i) {
    a->mesh.devices.push_back(Device{i, Platform::Tpu, "TPU v4", std::array<int, 3>{i, 0, 0}, 0, 0, std::nullopt});
    DeviceMemory d;
    d.params = (1 + i) * 1e8;
    a->memory.per_device.push_back(d);
  }
  a->memory.max_bytes = 200 * 1e8;
  a->memory.argmax = 199;
  a->memory.hbm_bytes = 32e9;
  chart.setAnalysis(a);
  REQUIRE(chart.showsClasses());
  const auto& bars = chart.barDevices();
  REQUIRE(static_cast<int>(bars.size()) == chart.barCapacity());
  // The fullest (device 199) first, the least full (device 0) last, one device per class.
  CHECK(bars.front() == std::vector<int>{199});
  CHECK(bars.back() == std::vector<int>{0});
  CHECK(chart.legendLabel()->text().contains(QStringLiteral("%1 of 200 memory classes").arg(bars.size())));
}

TEST_CASE("a bar's tooltip gives its bytes by category and what the activations are made of", "[ui][memory]") {
  test::app();
  ViewSelection selection;
  MemoryChart chart(&selection);
  chart.resize(800, 300);
  const std::shared_ptr<Analysis> a = analysisWithMemory(2, 1.0, 32e9);
  // 1e9 bytes of activations: 10 layers of 40 MB kept, and at the loss's backward the output
  // layer's 200 MB with the gradient's 400 MB beside it (larger than a re-run layer's 300 MB).
  a->memory.activations.per_layer = 40e6;
  a->memory.activations.layers = 10;
  a->memory.activations.output_layer = 200e6;
  a->memory.activations.loss_gradient = 400e6;
  a->memory.activations.recompute_layer = 300e6;
  chart.setAnalysis(a);
  const QString tip = chart.barToolTip(1); // device 1: 2 GB of parameters
  CHECK(tip.contains("Device 1"));
  CHECK(tip.contains(QString::fromStdString(shardscope::formatBytes(2e9))));
  CHECK(tip.contains("kept by 10 layers"));
  CHECK(tip.contains(QString::fromStdString(shardscope::formatBytes(400e6))));
  CHECK(tip.contains("output layer and the loss's backward"));
  CHECK(tip.contains(QString::fromStdString(shardscope::formatBytes(600e6))));
  CHECK_FALSE(tip.contains("re-run"));
  // When a re-run layer is the larger moment, it is the one named.
  a->memory.activations.loss_gradient = 0;
  chart.setAnalysis(a);
  CHECK(chart.barToolTip(0).contains("one layer re-run in its backward"));
  CHECK(chart.barToolTip(2).isEmpty());
  CHECK(chart.barAt(QPoint(0, 0)) == -1); // the chart's corner: no bar

  // Resting the pointer halfway up bar 1 asks the view for a tooltip: it names device 1.
  chart.show();
  auto* view = chart.findChild<QChartView*>();
  REQUIRE(view);
  QChart* c = view->chart();
  const QPointF middle =
      c->mapToPosition(QPointF(1, a->memory.per_device[1].total() / 2 / (1024.0 * 1024 * 1024)), c->series().front());
  const QPoint at = view->mapFromScene(c->mapToScene(middle));
  CHECK(chart.barAt(at) == 1);
  QHelpEvent help(QEvent::ToolTip, at, view->viewport()->mapToGlobal(at));
  QApplication::sendEvent(view->viewport(), &help);
  CHECK(QToolTip::text().contains("Device 1"));
}
