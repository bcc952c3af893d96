// SPDX-License-Identifier: Apache-2.0
// The played step: the Play dock's controls move one instant shared with the physical view, which
// draws the chips computing at that instant; a newly opened workspace stops it; and
// `shardscope-cli render --at` / `--animate` draw the same thing headless.
#include "ui_test_app.hpp"

#include "main_window.hpp"
#include "document/analysis_runner.hpp"
#include "document/scenario_document.hpp"
#include "panels/step_player.hpp"
#include "views/color_scales.hpp"
#include "views/device_overlay.hpp"
#include "shardscope/sharding/mesh_index.hpp"
#include "views/physical_view.hpp"
#include "views/step_playback_painter.hpp"
#include "views/pipeline_timeline_view.hpp"
#include "views/view_selection.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/step/step_playback.hpp"

#include <QDir>
#include <QImage>
#include <QProcess>
#include <QTemporaryDir>
#include <QTest>

#include <catch2/catch.hpp>

#include <cmath>
#include <set>

using namespace shardscope;
using namespace shardscope::ui;

namespace {

// The middle of a compute span during which no collective runs (the chips show only compute).
double quietComputeMoment(const StepEstimate& step) {
  for (const auto& s : step.timeline) {
    if (s.part != StepPart::Compute) continue;
    const double t = s.start + 0.5 * (s.end - s.start);
    if (spansAt(step, t).size() == 1) return t;
  }
  return -1;
}

int colourDistance(QColor a, QColor b) {
  return std::abs(a.red() - b.red()) + std::abs(a.green() - b.green()) + std::abs(a.blue() - b.blue());
}

// A workspace of `axes` on `topology` with the fsdp rule set: every weight gathered over fsdp.
Scenario fsdpScenario(const std::string& topology, std::vector<MeshAxis> axes) {
  Scenario scenario = defaultScenario();
  scenario.topology = parseTopology(topology);
  scenario.mesh.axes = std::move(axes);
  scenario.rules.preset = "fsdp";
  return scenario;
}

// The first fsdp all-gather of the step.
const StepSpan* firstFsdpGather(const Analysis& analysis) {
  for (const auto& s : analysis.step.timeline)
    if (s.part == StepPart::Comm && s.kind == Collective::AllGather && s.axis == "fsdp") return &s;
  return nullptr;
}

// The physical view of `analysis` at `size`, grabbed at `fraction` of `span`.
QImage grabAt(PhysicalView& view, ViewSelection& selection, const std::shared_ptr<const Analysis>& analysis, QSize size,
              const StepSpan& span, double fraction) {
  view.setAnimationsEnabled(false);
  view.resize(size);
  view.setAnalysis(analysis);
  selection.setPlayTime(span.start + (span.end - span.start) * fraction);
  return view.grab().toImage();
}

} // namespace

TEST_CASE("the physical view draws the played step's compute at its instant", "[ui][play]") {
  test::app();
  // Data parallel only: the gradients are reduced once, behind the last backward; the forward
  // passes compute alone.
  Scenario scenario = defaultScenario();
  scenario.mesh.axes = {{"dp", 128, 1}};
  auto analysis = std::make_shared<const Analysis>(analyze(scenario));
  REQUIRE(analysis->step.estimated);
  ViewSelection selection;
  PhysicalView view(&selection);
  view.setAnimationsEnabled(false);
  view.resize(900, 600);
  view.setAnalysis(analysis);
  const double t = quietComputeMoment(analysis->step);
  REQUIRE(t > 0);
  selection.setPlayTime(t); // half of the pass' compute done: the lower half of every chip filled
  const QImage image = view.grab().toImage();
  const QPointF c = view.deviceCenter(0);
  const double pitch = std::abs(view.deviceCenter(1).x() - c.x()) + std::abs(view.deviceCenter(1).y() - c.y());
  REQUIRE(pitch > 10);
  const QColor below = image.pixelColor((c + QPointF(-0.2 * pitch, 0.2 * pitch)).toPoint());
  const QColor above = image.pixelColor((c + QPointF(-0.2 * pitch, -0.2 * pitch)).toPoint());
  CHECK(colourDistance(below, computeColor()) < 30);
  CHECK(colourDistance(above, QColor(222, 225, 231)) < 30);
  // Not playing: the overlay's own colours again, no compute fill.
  selection.setPlayTime(-1);
  const QImage still = view.grab().toImage();
  CHECK(colourDistance(still.pixelColor((c + QPointF(-0.2 * pitch, -0.2 * pitch)).toPoint()), above) > 30);
}

TEST_CASE("the Play dock plays, scrubs by events and stops, another workspace stops it", "[ui][play]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  StepPlayer* player = window.stepPlayer();
  ViewSelection* selection = window.selection();
  const auto analysis = window.runner()->lastValid();
  REQUIRE(analysis);
  const StepEstimate& step = analysis->step;
  REQUIRE(step.estimated);
  CHECK(selection->playTime() < 0);

  // Next event from the start: the first instant after 0 where a span starts or ends, found here
  // by scanning the timeline.
  double first = step.time_s;
  for (const auto& s : step.timeline) {
    if (s.start > 0) first = std::min(first, s.start);
    if (s.end > 0) first = std::min(first, s.end);
  }
  player->nextEvent();
  CHECK(selection->playTime() == Approx(first));
  CHECK(player->momentText().contains("micro-batch 1"));
  player->previousEvent();
  CHECK(selection->playTime() == Approx(0.0));

  player->togglePlay();
  CHECK(player->isPlaying());
  QTest::qWait(400);
  const double played = selection->playTime();
  CHECK(played > 0);
  CHECK(played < step.time_s);
  // 400 ms of a step played in 10 s: about 4% of it (generous bounds: the machine is shared).
  CHECK(played / step.time_s < 0.2);
  player->togglePlay();
  CHECK_FALSE(player->isPlaying());

  player->seek(2 * step.time_s); // clamped to the step
  CHECK(selection->playTime() == Approx(step.time_s));
  window.document()->newDocument();
  CHECK(selection->playTime() < 0);
}

namespace {
struct Run {
  int code = -1;
  QString out, err;
};
Run cli(const QStringList& args) {
  QProcess p;
  p.start(QStringLiteral(SHARDSCOPE_CLI_PATH), args);
  p.waitForFinished(120000);
  return {p.exitStatus() == QProcess::NormalExit ? p.exitCode() : -1, QString::fromUtf8(p.readAllStandardOutput()),
          QString::fromUtf8(p.readAllStandardError())};
}
} // namespace

TEST_CASE("shardscope-cli render --at and --animate draw the played step", "[ui][render][play]") {
  test::app();
  QTemporaryDir dir;
  const QString still = dir.filePath("still.png");
  const QString moving = dir.filePath("moving.png");
  REQUIRE(cli({"render", "--at", "0", "--size", "800x500", "--out", still}).code == 0);
  REQUIRE(cli({"render", "--view", "physical", "--at", "0.5", "--size", "800x500", "--out", moving}).code == 0);
  CHECK(QImage(still).size() == QSize(800, 500));
  CHECK(QImage(still) != QImage(moving)); // another instant, another picture

  const Run frames = cli({"render", "--animate", "--frames", "3", "--size", "400x300", "--out", dir.filePath("f")});
  REQUIRE(frames.code == 0);
  CHECK(frames.out.contains("wrote 3 frames"));
  CHECK(QDir(dir.filePath("f")).entryList({"frame-*.png"}).size() == 3);
  REQUIRE(cli({"render", "--animate", "--frames", "2", "--format", "svg", "--out", dir.filePath("s")}).code == 0);
  CHECK(QFile::exists(dir.filePath("s/frame-002.svg")));

  // Errors: out of range, both at once, another view, bad counts.
  const Run far = cli({"render", "--at", "1.5", "--out", still});
  CHECK(far.code == 2);
  CHECK(far.err.contains("--at must be a fraction of the step from 0 to 1, got '1.5'"));
  CHECK(cli({"render", "--at", "0.5", "--animate", "--out", still}).code == 2);
  const Run memory = cli({"render", "--view", "memory", "--at", "0.5", "--out", still});
  CHECK(memory.code == 2);
  CHECK(memory.err.contains("draw the physical view"));
  CHECK(cli({"render", "--animate", "--frames", "1", "--out", dir.filePath("g")}).code == 2);
  CHECK(cli({"render", "--animate", "--frames", "x", "--out", dir.filePath("g")}).code == 2);
  CHECK(cli({"render", "--at", "0.5", "--frames", "3", "--out", still}).code == 2);
}

TEST_CASE("a ring over z is drawn as stubs at its chips, not as diagonals across the panels", "[ui][render][play]") {
  test::app();
  // The default workspace 3% into its step: the fsdp all-gather runs over y and z (8 panels, two
  // rows of four). Its z hops join chips in different panels; drawn whole they crossed the band
  // between the two rows of panels as long diagonals. Nothing of the collective's colour (orange:
  // saturated, hue 15-45 degrees) may be in that band now.
  QTemporaryDir dir;
  const QString out = dir.filePath("play.png");
  REQUIRE(cli({"render", "--at", "0.03", "--size", "1366x768", "--out", out}).code == 0);
  const QImage image(out);
  REQUIRE(image.size() == QSize(1366, 768));
  int orange = 0;
  for (int y = 380; y < 440; ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      const int hue = c.hslHue();
      if (hue >= 15 && hue <= 45 && c.hslSaturation() > 100 && c.lightness() > 70 && c.lightness() < 200) ++orange;
    }
  CHECK(orange == 0);
  // The rings are still drawn: the panels hold the collective's colour.
  int inPanels = 0;
  for (int y = 100; y < 340; ++y)
    for (int x = 0; x < image.width(); ++x) {
      const QColor c = image.pixelColor(x, y);
      if (c.hslHue() >= 15 && c.hslHue() <= 45 && c.hslSaturation() > 100) ++inPanels;
    }
  CHECK(inPanels > 500);
}

TEST_CASE("a 4-device ring all-gather's chunks are drawn where the hop count puts them", "[ui][play]") {
  test::app();
  // v4 2x2x1 with one fsdp axis of 4: every weight is all-gathered over a ring of 4 each forward.
  Scenario scenario = fsdpScenario("v4:2x2x1", {{"fsdp", 4, 1}});
  auto analysis = std::make_shared<const Analysis>(analyze(scenario));
  REQUIRE(analysis->step.estimated);
  const StepSpan* gather = firstFsdpGather(*analysis);
  REQUIRE(gather);
  // A ring of 4 takes 3 hand-overs; at (1 + 1/4) / 3 of the span the second hand-over is a
  // quarter done: each chunk a quarter of the way from a device to its ring neighbour (and, the
  // ring being closed on the torus, one a quarter of the way back).
  ViewSelection selection;
  PhysicalView view(&selection);
  const QImage image = grabAt(view, selection, analysis, QSize(900, 700), *gather, 1.25 / 3.0);
  REQUIRE(spanProgress(*gather, selection.playTime()) == Approx(1.25 / 3.0));
  const MeshIndex index(analysis->mesh);
  const auto ring = index.groupMembers(0, 0);
  REQUIRE(ring.size() == 4);
  const QColor chunk = commColor(0);
  for (std::size_t k = 0; k < ring.size(); ++k) {
    const QPointF a = view.deviceCenter(ring[k]), b = view.deviceCenter(ring[(k + 1) % ring.size()]);
    const QPointF along = b - a;
    const double length = std::hypot(along.x(), along.y());
    REQUIRE(length > 40);
    // 4 px off the link, sideways: inside a chunk's disc (radius 6 here), clear of the 3-px line.
    const QPointF side(-along.y() / length * 4.0, along.x() / length * 4.0);
    INFO("ring link " << k);
    CHECK(colourDistance(image.pixelColor((a + 0.25 * along + side).toPoint()), chunk) < 40);
    CHECK(colourDistance(image.pixelColor((a + 0.5 * along + side).toPoint()), chunk) > 60);
  }
}

TEST_CASE("a pipeline plays rank by rank: the first task fills only rank 0's chips, the schedule shows the cursor",
          "[ui][play][pipeline]") {
  test::app();
  MainWindow window;
  window.show();
  QString error;
  REQUIRE(window.openFile(
      QStringLiteral(SHARDSCOPE_SOURCE_DIR "/resources/scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json"),
      &error));
  REQUIRE(window.waitForAnalysis(60000));
  const auto analysis = window.runner()->lastValid();
  REQUIRE(analysis->pipeline);
  const StepSpan* first = nullptr;
  for (const auto& s : analysis->step.timeline)
    if (s.part == StepPart::Compute && (!first || s.start < first->start)) first = &s;
  REQUIRE(first);
  REQUIRE(first->rank == 0);
  // Halfway through rank 0's first forward: its devices half filled, rank 3's idle (the bubble).
  window.selection()->setPlayTime(0.5 * (first->start + first->end));
  CHECK(window.stepPlayer()->momentText().contains("rank 0: forward mb 1 of stage 0 50%"));
  CHECK(window.findChild<PipelineTimelineView*>()->playTime() == Approx(0.5 * (first->start + first->end)));
  PhysicalView* view = window.findChild<PhysicalView*>();
  REQUIRE(view);
  const QImage image = view->grab().toImage();
  const auto& rank0 = analysis->pipeline->ranks[0].device_positions;
  const auto& rank3 = analysis->pipeline->ranks[3].device_positions;
  REQUIRE_FALSE(rank0.empty());
  REQUIRE_FALSE(rank3.empty());
  const QPointF a = view->deviceCenter(rank0.front()), b = view->deviceCenter(rank3.front());
  const double pitch = std::abs(view->deviceCenter(rank0[1]).x() - a.x());
  REQUIRE(pitch > 8);
  // Below the chip's middle: filled on rank 0 (compute colour), idle dark grey on rank 3.
  CHECK(colourDistance(image.pixelColor((a + QPointF(-0.2 * pitch, 0.25 * pitch)).toPoint()), computeColor()) < 40);
  CHECK(colourDistance(image.pixelColor((b + QPointF(-0.2 * pitch, 0.25 * pitch)).toPoint()), QColor(150, 153, 160)) <
        40);
}

TEST_CASE("a 2-D torus all-gather runs on the rings of both dimensions, chunks where the hop count puts them",
          "[ui][play]") {
  test::app();
  // v4 4x4x4, mesh tp 4 x fsdp 16: tp takes z, each fsdp group takes x and y whole with their
  // wraparound (one panel of the view), and the cost form gathers over both at once. Each line of 4 chips along either
  // dimension is a closed ring of 3 hand-overs: at (1 + 1/4) / 3 of the gather every chunk is a quarter of the way from
  // a chip to its neighbour along that line.
  Scenario scenario = fsdpScenario("v4:4x4x4", {{"tp", 4, 1}, {"fsdp", 16, 1}});
  scenario.training.batch_axes = {"fsdp"};
  auto analysis = std::make_shared<const Analysis>(analyze(scenario));
  REQUIRE(analysis->step.estimated);
  const int fsdp = analysis->mesh.axisIndex("fsdp");
  REQUIRE(fsdp == 1);
  REQUIRE(analysis->comm[1].wraps);
  const StepSpan* gather = firstFsdpGather(*analysis);
  REQUIRE(gather);
  ViewSelection selection;
  PhysicalView view(&selection);
  const QImage image = grabAt(view, selection, analysis, QSize(1400, 900), *gather, 1.25 / 3.0);
  image.save(QDir::temp().filePath("shardscope-2d-torus-gather.png"));
  const QColor chunk = commColor(fsdp);
  const auto rings = axisRingsOf(*analysis)[1];
  REQUIRE(rings.size() == 32);
  std::set<int> dimensionsChecked;
  for (const auto& ring : rings) {
    REQUIRE(ring.size() == 4);
    // The links k -> k+1 (the wraparound link 3 -> 0 is drawn back across the line, its chunks
    // landing on the same quarter points).
    const auto& c0 = *analysis->mesh.devices[static_cast<std::size_t>(ring[0])].coords;
    const auto& c1 = *analysis->mesh.devices[static_cast<std::size_t>(ring[1])].coords;
    for (int d = 0; d < 3; ++d)
      if (c0[static_cast<std::size_t>(d)] != c1[static_cast<std::size_t>(d)]) dimensionsChecked.insert(d);
    for (std::size_t k = 0; k + 1 < ring.size(); ++k) {
      const QPointF a = view.deviceCenter(ring[k]), b = view.deviceCenter(ring[k + 1]);
      const QPointF along = b - a;
      const double length = std::hypot(along.x(), along.y());
      REQUIRE(length > 30);
      const QPointF side(-along.y() / length * 3.0, along.x() / length * 3.0);
      INFO("ring from device " << ring[0] << ", link " << k);
      CHECK(colourDistance(image.pixelColor((a + 0.25 * along + side).toPoint()), chunk) < 40);
      CHECK(colourDistance(image.pixelColor((a + 0.5 * along + side).toPoint()), chunk) > 60);
    }
  }
  CHECK(dimensionsChecked.size() == 2); // lines along both of the group's dimensions were checked
}

TEST_CASE("the Play dock's memory lane follows the selected device's bytes through the step", "[ui][play]") {
  test::app();
  MainWindow window;
  window.show();
  REQUIRE(window.waitForAnalysis(60000));
  StepPlayer* player = window.stepPlayer();
  ViewSelection* selection = window.selection();
  const auto analysis = window.runner()->lastValid();
  REQUIRE(analysis);
  REQUIRE_FALSE(analysis->pipeline);
  const StepTimelineStrip* strip = player->strip();
  // No device selected: the fullest. At the end of the first forward pass it holds everything the
  // memory estimate counts; after the update, all but the activations.
  REQUIRE(strip->memoryDevice() == analysis->memory.argmax);
  const DeviceMemory& d = analysis->memory.per_device[static_cast<std::size_t>(analysis->memory.argmax)];
  const StepSpan* forward = nullptr;
  for (const auto& s : analysis->step.timeline)
    if (s.part == StepPart::Compute && s.rank < 0 && s.forward) {
      forward = &s;
      break;
    }
  REQUIRE(forward);
  CHECK(strip->memoryAt(forward->end) == Approx(d.total()));
  CHECK(strip->memoryAt(forward->start + 0.5 * (forward->end - forward->start)) ==
        Approx(d.total() - 0.5 * d.activations));
  CHECK(strip->memoryAt(analysis->step.time_s) == Approx(d.total() - d.activations));
  // The caption says it at the cursor.
  selection->setPlayTime(forward->end);
  CHECK(player->momentText().contains(
      QStringLiteral("device %1 holds %2")
          .arg(analysis->mesh.devices[static_cast<std::size_t>(analysis->memory.argmax)].id)
          .arg(formatBytes(d.total()))));
  // Selecting another device moves the lane to it.
  selection->setDevice(1);
  CHECK(strip->memoryDevice() == 1);
}

TEST_CASE("the links a played collective loads: ring edges routed over the physical links", "[ui][play]") {
  test::app();
  // v4 2x2x1 (no wraparound), fsdp 4: one ring in mesh order, chips (0,0) (1,0) (0,1) (1,1). The
  // edges (1,0)->(0,1) and (1,1)->(0,0) cross the square's diagonal, routed x first: 2 hops each.
  // Link (0,0)-(1,0) carries edges 0->1 and 1->2; (0,0)-(0,1) edges 1->2 and 3->0; (0,1)-(1,1)
  // edges 2->3 and 3->0; (1,0)-(1,1) none. Three links at load 2, 6 in all.
  Scenario scenario = fsdpScenario("v4:2x2x1", {{"fsdp", 4, 1}});
  const auto square = analyze(scenario);
  const auto squareLoads = ringLinkLoadsOf(square, axisRingsOf(square));
  REQUIRE(squareLoads.per_axis.size() == 1);
  int loaded = 0, total = 0;
  for (int load : squareLoads.per_axis[0]) {
    loaded += load > 0 ? 1 : 0;
    total += load;
    CHECK((load == 0 || load == 2));
  }
  CHECK(loaded == 3);
  CHECK(total == 6);
  // v5p 4x4x1 (no wraparound below a full cube), fsdp 16: one open ring of 16 in mesh order. Its
  // edges add up to the ring's hop count, each hop one link crossed: sum of loads = sum of hops.
  scenario.topology = parseTopology("v5p:4x4x1");
  scenario.mesh.axes = {{"fsdp", 16, 1}};
  const auto line = analyze(scenario);
  const auto rings = axisRingsOf(line);
  REQUIRE(rings[0].size() == 1);
  const auto lineLoads = ringLinkLoadsOf(line, rings);
  int hops = 0;
  const auto& ring = rings[0][0];
  for (std::size_t k = 0; k < ring.size(); ++k)
    hops += line.links->hops(
        line.links->nodeOfDevice(line.mesh.devices[static_cast<std::size_t>(ring[k])].id),
        line.links->nodeOfDevice(line.mesh.devices[static_cast<std::size_t>(ring[(k + 1) % ring.size()])].id));
  int sum = 0, busiest = 0;
  for (int load : lineLoads.per_axis[0]) {
    sum += load;
    busiest = std::max(busiest, load);
  }
  CHECK(sum == hops);
  CHECK(hops > 16);    // the open ring's closing edge comes back across the slice
  CHECK(busiest == 2); // so some links carry two of its edges: drawn hotter than the rest
}

namespace {

// The most separate runs of exactly `colour` along any one row of `image`.
int mostRunsInARow(const QImage& image, QColor colour) {
  int most = 0;
  for (int y = 0; y < image.height(); ++y) {
    int runs = 0;
    bool inside = false;
    for (int x = 0; x < image.width(); ++x) {
      const bool match = image.pixelColor(x, y).rgb() == colour.rgb();
      if (match && !inside) ++runs;
      inside = match;
    }
    most = std::max(most, runs);
  }
  return most;
}

int pixelsOf(const QImage& image, QColor colour, int top) {
  int n = 0;
  for (int y = top; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (image.pixelColor(x, y).rgb() == colour.rgb()) ++n;
  return n;
}

} // namespace

TEST_CASE("the Play strip draws two tensor all-reduces per layer between slices of compute", "[ui][play]") {
  test::app();
  // The default workspace: Llama 3.1 8B (32 layers) with tp = 4 (the third mesh axis), its
  // activation all-reduces on the critical path, one micro-batch. Each pass is 32 x 2 slices of
  // compute, each followed by an all-reduce: 64 tp bursts per pass, 128 in the step, each a run of
  // the tp colour of its own at 1600 px.
  auto analysis = std::make_shared<const Analysis>(analyze(defaultScenario()));
  REQUIRE(analysis->step.estimated);
  REQUIRE(analysis->mesh.axis_names.at(2) == "tp");
  StepTimelineStrip strip;
  strip.setAnalysis(analysis);
  strip.resize(1600, strip.sizeHint().height());
  const QImage image = strip.grab().toImage();
  CHECK(mostRunsInARow(image, commColor(2)) == 128);
  CHECK(mostRunsInARow(image, computeColor()) >= 128);
}

TEST_CASE("while the step plays, the legend names each running collective in its colour and what it moves",
          "[ui][play]") {
  test::app();
  auto analysis = std::make_shared<const Analysis>(analyze(defaultScenario()));
  REQUIRE(analysis->step.estimated);
  // Halfway through the fsdp reduce-scatter of the gradients, in the backward pass, its tp
  // all-reduces run too (between its slices of compute).
  const StepSpan* scatter = nullptr;
  for (const auto& s : analysis->step.timeline)
    if (s.part == StepPart::Comm && s.axis == "fsdp" && s.kind == Collective::ReduceScatter) scatter = &s;
  REQUIRE(scatter);
  ViewSelection selection;
  PhysicalView view(&selection);
  const QImage image = grabAt(view, selection, analysis, QSize(1366, 700), *scatter, 0.5);
  std::set<std::string> running;
  for (std::size_t i : spansAt(analysis->step, selection.playTime()))
    if (analysis->step.timeline[i].part == StepPart::Comm) running.insert(analysis->step.timeline[i].axis);
  REQUIRE(running == std::set<std::string>{"fsdp", "tp"});
  // The legend is the bottom 30 px: a 13 x 13 swatch of each running axis' colour (fsdp the second
  // axis, tp the third), none of the idle dp's.
  CHECK(pixelsOf(image, commColor(1), image.height() - 30) >= 13 * 13);
  CHECK(pixelsOf(image, commColor(2), image.height() - 30) >= 13 * 13);
  CHECK(pixelsOf(image, commColor(0), image.height() - 30) == 0);
  CHECK(QString::fromStdString(payloadOf("fsdp_grads")) == QStringLiteral("gradient shards"));
}

TEST_CASE("a selected device's ring over z is drawn as stubs too, not as diagonals across the view", "[ui][render]") {
  test::app();
  // The default workspace on v4 4x4x8, device 21 selected, its fsdp ring (y and z): the z hops
  // join chips in panels drawn apart. Nothing of the ring's red may cross the band between the two
  // rows of panels (as in the played step's test above, at the same size).
  auto analysis = std::make_shared<const Analysis>(analyze(defaultScenario()));
  ViewSelection selection;
  PhysicalView view(&selection);
  view.setAnimationsEnabled(false);
  view.resize(1366, 768);
  view.setAnalysis(analysis);
  int position = -1;
  for (std::size_t i = 0; i < analysis->mesh.devices.size(); ++i)
    if (analysis->mesh.devices[i].id == 21) position = static_cast<int>(i);
  REQUIRE(position >= 0);
  selection.setAxis(1); // fsdp
  selection.setDevice(position);
  const QImage image = view.grab().toImage();
  const auto red = [](QColor c) {
    const int hue = c.hslHue();
    return (hue >= 350 || (hue >= 0 && hue <= 8)) && c.hslSaturation() > 120 && c.lightness() > 60;
  };
  int crossing = 0;
  for (int y = 380; y < 440; ++y)
    for (int x = 0; x < image.width(); ++x) crossing += red(image.pixelColor(x, y)) ? 1 : 0;
  CHECK(crossing == 0);
  // The ring is still drawn: its red is on the panels.
  int onPanels = 0;
  for (int y = 100; y < 340; ++y)
    for (int x = 0; x < image.width(); ++x) onPanels += red(image.pixelColor(x, y)) ? 1 : 0;
  CHECK(onPanels > 50);
}

TEST_CASE("the played step's legend flows onto more rows in a narrow view: no entry is cut", "[ui][play]") {
  test::app();
  auto analysis = std::make_shared<const Analysis>(analyze(defaultScenario()));
  const StepSpan* gather = firstFsdpGather(*analysis);
  REQUIRE(gather);
  ViewSelection selection;
  PhysicalView view(&selection);
  // The centre of a 1366x768 window: about 500 px. Playing the fsdp all-gather beside tp's
  // all-reduces, the legend has the compute fill, both collectives, the wraparound links and the
  // marks: more than one line's worth.
  grabAt(view, selection, analysis, QSize(500, 380), *gather, 0.3);
  const double band = 500 - 2 * 8.0; // the view's margins
  const auto places = view.playLegendLayout(band);
  REQUIRE(places.size() == 5);
  CHECK(places[1].entry.label.startsWith("fsdp all_gather"));
  CHECK(places[2].entry.label.startsWith("tp all_reduce"));
  CHECK(places.back().entry.label.contains("diagonal: a hop in z")); // a 3-D torus
  for (const auto& p : places) {
    INFO(p.entry.label.toStdString());
    CHECK(p.x + p.width <= band); // whole: never shortened
  }
  const int rows = places.back().row + 1;
  CHECK(rows > 1);
  // The band is as tall as the step's busiest instant needs, whichever collectives run now: the
  // view keeps its size while the step plays (this instant is one of the busiest).
  CHECK(view.legendHeight(500) == 30 + (rows - 1) * 21);
  int most = 0;
  for (const StepSpan& s : analysis->step.timeline) {
    const auto at = view.playLegendLayout(band, QColor(), 0.5 * (s.start + s.end));
    most = std::max(most, at.back().row + 1);
  }
  CHECK(most == rows);
  CHECK(view.legendHeight(500) == 30 + (std::min(4, most) - 1) * 21);
  // Not playing: one line.
  selection.setPlayTime(-1);
  CHECK(view.legendHeight(500) == 30);
}

TEST_CASE("a hop in z is drawn as oblique stubs, up and to the right towards higher z", "[ui][play]") {
  test::app();
  // farLinkStub: x and y hops along their line (backwards for a wraparound), z hops oblique.
  const QPointF right(1, 0);
  CHECK(farLinkStub(right, 6, false, 0) == QPointF(6, 0));
  CHECK(farLinkStub(right, 6, true, 0) == QPointF(-6, 0));
  const QPointF up = farLinkStub(right, 6, false, 1);
  CHECK(up.x() == Approx(6 / std::sqrt(2.0)));
  CHECK(up.y() == Approx(-6 / std::sqrt(2.0)));
  CHECK(farLinkStub(right, 6, false, -1) == -up);
  // On the default workspace (v4 4x4x8), a chip and the one above it in z, drawn 100 px apart in
  // panels side by side: the edge is two oblique stubs, the first leaving up-right, the second
  // arriving from down-left; the wraparound from z = 7 to z = 0 also leaves towards +z.
  const Analysis analysis = analyze(defaultScenario());
  const auto& devices = analysis.mesh.devices;
  const auto at = [&](int x, int y, int z) {
    for (std::size_t i = 0; i < devices.size(); ++i)
      if (devices[i].coords == std::array<int, 3>{x, y, z}) return static_cast<int>(i);
    return -1;
  };
  const int z0 = at(1, 2, 0), z1 = at(1, 2, 1), z7 = at(1, 2, 7);
  REQUIRE(z0 >= 0);
  REQUIRE(z1 >= 0);
  REQUIRE(z7 >= 0);
  const QPointF a(50, 50), b(150, 50);
  const auto lines = ringEdgeLines(analysis, z0, z1, a, b, 10);
  REQUIRE(lines.size() == 2);
  CHECK(lines[0].p1() == a);
  CHECK(lines[0].dx() > 0);
  CHECK(lines[0].dy() < 0);
  CHECK(std::abs(lines[0].dx()) == Approx(std::abs(lines[0].dy())));
  CHECK(lines[1].p2() == b);
  CHECK(lines[1].dx() > 0); // from down-left of b up to b
  CHECK(lines[1].dy() < 0);
  const auto wrapLines = ringEdgeLines(analysis, z7, z0, b, a, 10);
  REQUIRE(wrapLines.size() == 2);
  CHECK(wrapLines[0].dx() > 0);
  CHECK(wrapLines[0].dy() < 0);
  // An x hop between chips drawn far apart keeps its stubs along the row.
  const int x0 = at(0, 2, 0), x3 = at(3, 2, 0);
  const auto rowLines = ringEdgeLines(analysis, x0, x3, a, b, 10);
  REQUIRE(rowLines.size() == 2);
  CHECK(rowLines[0].dy() == Approx(0));
}

TEST_CASE("the played instant's caption is cut at whole items, never inside one", "[ui][play]") {
  // The review saw "…fsdp all_gathe…" at 1920: the caption was elided mid-word. It now keeps the
  // time and as many whole items as fit, and counts the rest.
  test::app();
  QFont font;
  font.setPixelSize(12);
  const QFontMetrics metrics(font);
  const QStringList items{"0.41 s of 1.32 s", "forward", "computing 40%", "fsdp all-gather (weights) 30%",
                          "tp all-reduce (tp_activations, exposed) 10%"};
  const QString text = items.join(QStringLiteral(" · "));
  CHECK(fitMomentText(text, metrics, metrics.horizontalAdvance(text)) == text);
  // Room for the first three items and the count, a few pixels short of the fourth item.
  const QString three = QStringList(items.mid(0, 3)).join(QStringLiteral(" · ")) + QStringLiteral(" · +2 more");
  CHECK(fitMomentText(text, metrics, metrics.horizontalAdvance(three) + 2) == three);
  // At any width, every item shown is whole, and the count says how many are left out.
  for (int width = 40; width < metrics.horizontalAdvance(text); width += 7) {
    const QString shown = fitMomentText(text, metrics, width);
    INFO(width << ": " << shown.toStdString());
    const QStringList parts = shown.split(QStringLiteral(" · "));
    if (parts.size() == 1) continue; // not even the time and a count fit: the time alone, elided
    for (qsizetype i = 0; i + 1 < parts.size(); ++i) CHECK(items.contains(parts[i]));
    CHECK(parts.back() == QStringLiteral("+%1 more").arg(items.size() - (parts.size() - 1)));
    CHECK(metrics.horizontalAdvance(shown) <= width);
  }
}
