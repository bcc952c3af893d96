// SPDX-License-Identifier: Apache-2.0
// GUI benchmarks: painting the physical view offscreen at 1600x1000, the frame budget being 16 ms
// for a v5p full pod (8960 chips). Compiled only in builds with the GUI.
#ifdef SHARDSCOPE_BENCH_WITH_GUI

#include "document/offscreen_app.hpp"
#include "views/physical_layout.hpp"
#include "views/physical_view.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"

#include <QImage>
#include <QPainter>

#include <benchmark/benchmark.h>

namespace {

void benchApp() { shardscope::ui::offscreenApp({"shardscope-bench"}); }

shardscope::Scenario scenarioFor(const char* topology, std::vector<shardscope::MeshAxis> axes) {
  shardscope::Scenario s = shardscope::defaultScenario();
  s.topology = shardscope::parseTopology(topology);
  s.mesh.axes = std::move(axes);
  s.mesh.allow_split_physical_axes = true; // dp 2 on v4 4x4x8 splits y, as in the app's default
  return s;
}

// `played`: every iteration draws the next of 60 instants of the played step (chips computing,
// collectives on their rings), as the Play dock does frame after frame.
void paintPhysical(benchmark::State& state, const shardscope::Scenario& scenario, shardscope::ui::OverlayMode mode,
                   bool played = false) {
  benchApp();
  std::shared_ptr<const shardscope::Analysis> analysis;
  try {
    analysis = std::make_shared<const shardscope::Analysis>(shardscope::analyze(scenario));
  } catch (const std::exception& e) {
    state.SkipWithError(e.what());
    return;
  }
  shardscope::ui::ViewSelection selection;
  selection.setMode(mode);
  shardscope::ui::PhysicalView view(&selection);
  view.setAnimationsEnabled(false);
  view.resize(1600, 1000);
  view.setAnalysis(analysis);
  selection.setDevice(0); // a selected chip: group outline and ring included
  QImage image(1600, 1000, QImage::Format_ARGB32_Premultiplied);
  if (played && !analysis->step.estimated) {
    state.SkipWithError("the step was not estimated: nothing to play");
    return;
  }
  int frame = 0;
  for (auto _ : state) {
    if (played) selection.setPlayTime(analysis->step.time_s * (frame++ % 60) / 59.0);
    QPainter painter(&image);
    view.render(painter, QRectF(0, 0, 1600, 1000), true);
    painter.end();
    benchmark::DoNotOptimize(image.constBits());
  }
  state.counters["chips"] = static_cast<double>(analysis->mesh.devices.size());
}

void BM_PaintV4(benchmark::State& state) {
  paintPhysical(state, scenarioFor("v4:4x4x8", {{"dp", 2, 1}, {"fsdp", 16, 1}, {"tp", 4, 1}}),
                shardscope::ui::OverlayMode::Coordinate);
}
void BM_PaintV5pPod(benchmark::State& state) {
  paintPhysical(state, scenarioFor("v5p:16x20x28", {{"data", 28, 1}, {"fsdp", 20, 1}, {"tp", 16, 1}}),
                shardscope::ui::OverlayMode::Group);
}
void BM_PlayV5pPod(benchmark::State& state) {
  paintPhysical(state, scenarioFor("v5p:16x20x28", {{"data", 28, 1}, {"fsdp", 20, 1}, {"tp", 16, 1}}),
                shardscope::ui::OverlayMode::Group, true);
}
void BM_LayoutV5pPod(benchmark::State& state) {
  benchApp();
  const auto devices = shardscope::makeDevices(shardscope::parseTopology("v5p:16x20x28"));
  for (auto _ : state) benchmark::DoNotOptimize(shardscope::ui::PhysicalLayout::build(devices, 1.6));
}

} // namespace

BENCHMARK(BM_PaintV4)->Name("gui/paint-physical/v4-4x4x8")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PaintV5pPod)->Name("gui/paint-physical/v5p-16x20x28")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PlayV5pPod)->Name("gui/animate-frame/v5p-16x20x28")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayoutV5pPod)->Name("gui/layout-physical/v5p-16x20x28")->Unit(benchmark::kMillisecond);

#endif
