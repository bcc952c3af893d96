// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "charts/memory_chart.hpp"
#include "views/view_selection.hpp"

#include <QLabel>

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

namespace {
std::shared_ptr<const Analysis> analysisWithMemory(int devices, double scale, double hbm) {
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
  CHECK_FALSE(chart.showsHistogram());
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

  // Big pods get a histogram.
  chart.setAnalysis(analysisWithMemory(MemoryChart::maxBars + 1, 1.0, 32e9));
  CHECK(chart.showsHistogram());
  selection.setDevice(5); // highlighting a device in a histogram must not fail
}
