// SPDX-License-Identifier: Apache-2.0
// The step as a timeline: a hand-built pass sequence whose every span is worked out in the
// comments, and the default workspace's timeline checked against its own step figures (it ends at
// the step time, each axis' spans add up to that axis' seconds, compute to compute plus HBM).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/step/step_playback.hpp"

#include "step/step_internal.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace shardscope;

namespace {

struct Expected {
  StepPart part;
  bool forward;
  std::int64_t microbatch;
  double start, end;
};

} // namespace

TEST_CASE("the played step: passes, streamed gathers, critical collectives and the update by hand",
          "[step][playback]") {
  // Two micro-batches of a 4-layer model: forward 1 s, backward 2 s of compute per micro-batch.
  step::Work work;
  work.fwd_roofline_s = 1.0;
  work.bwd_roofline_s = 2.0;
  step::MeshRoles mesh;
  mesh.name = {"fsdp", "tensor"};
  mesh.size = {4, 2};
  // A weight all-gather every forward (0.8 s per step: 0.4 s per micro-batch) on fsdp, and tensor
  // all-reduces on the critical path (0.6 s per step) on tensor: two per layer and pass, 2 x 4
  // layers x 2 passes x 2 micro-batches = 32 calls.
  std::vector<step::Bucket> buckets(2);
  buckets[0].axis = 0;
  buckets[0].kind = Collective::AllGather;
  buckets[0].purpose = "fsdp_weights";
  buckets[0].phase = step::Phase::FwdEach;
  buckets[0].seconds = 0.8;
  buckets[1].axis = 1;
  buckets[1].kind = Collective::AllReduce;
  buckets[1].purpose = "tp_activations";
  buckets[1].phase = step::Phase::Critical;
  buckets[1].seconds = 0.6;
  buckets[1].calls = 32;
  const auto spans = step::stepTimeline(buckets, work, mesh, 2, 4, 0.5);
  // Forward 0: the gather streams 0..0.4; compute waits for the first layer's quarter (0.1 s); the
  // exposed time is max(0.4 - 1, 0.1) = 0.1, all of it that wait. The critical share is
  // 0.6 x 1/6 = 0.1 s. Then 4 layers x 2 slices = 8 slots of (1 + 0.1) / 8 = 0.1375 s from 0.1:
  // compute 1/8 = 0.125 s, then an all-reduce of 0.1/8 = 0.0125 s. Compute: 0.1 .. 0.1 + 7 x
  // 0.1375 + 0.125 = 1.1875; all-reduces 0.225 .. 1.2.
  // Backward 0: no gather, lead 0; critical 0.6 x 2/6 = 0.2 s; 8 slots of 2.2/8 = 0.275 s:
  // compute 0.25 s from 1.2 (to 3.375), all-reduces of 0.025 s from 1.45 (to 3.4). Micro-batch 1
  // repeats from 3.4; the optimizer update runs 6.8..7.3 = 2 x 3 s + 0.2 + 0.6 + 0.5.
  struct Pulsed {
    StepPart part;
    bool forward;
    std::int64_t microbatch;
    double start, end;
    std::int64_t pulses;
    double pulse;
  };
  const std::vector<Pulsed> expected{
      {StepPart::Comm, true, 0, 0.0, 0.4, 1, 0.0},         {StepPart::Compute, true, 0, 0.1, 1.1875, 8, 0.125},
      {StepPart::Comm, true, 0, 0.225, 1.2, 8, 0.0125},    {StepPart::Compute, false, 0, 1.2, 3.375, 8, 0.25},
      {StepPart::Comm, false, 0, 1.45, 3.4, 8, 0.025},     {StepPart::Comm, true, 1, 3.4, 3.8, 1, 0.0},
      {StepPart::Compute, true, 1, 3.5, 4.5875, 8, 0.125}, {StepPart::Comm, true, 1, 3.625, 4.6, 8, 0.0125},
      {StepPart::Compute, false, 1, 4.6, 6.775, 8, 0.25},  {StepPart::Comm, false, 1, 4.85, 6.8, 8, 0.025},
      {StepPart::Optimizer, false, 1, 6.8, 7.3, 1, 0.0},
  };
  REQUIRE(spans.size() == expected.size());
  for (std::size_t i = 0; i < spans.size(); ++i) {
    INFO("span " << i);
    CHECK(spans[i].part == expected[i].part);
    CHECK(spans[i].forward == expected[i].forward);
    CHECK(spans[i].microbatch == expected[i].microbatch);
    CHECK(spans[i].start == Approx(expected[i].start));
    CHECK(spans[i].end == Approx(expected[i].end));
    CHECK(spans[i].pulses == expected[i].pulses);
    if (expected[i].pulses > 1) CHECK(spans[i].pulse_s == Approx(expected[i].pulse));
  }
  CHECK(spans[0].axis == "fsdp");
  CHECK_FALSE(spans[0].exposed);
  CHECK(spans[2].axis == "tensor");
  CHECK(spans[2].kind == Collective::AllReduce);
  CHECK(spans[2].exposed);
  // Two all-reduces per layer, each after a slice of compute, never overlapping it.
  CHECK(spanPeriod(spans[1]) == Approx(0.1375));
  CHECK(spanPeriod(spans[2]) == Approx(0.1375));
  CHECK(spanBusy(spans[1]) == Approx(1.0));
  CHECK(spanBusy(spans[2]) == Approx(0.1));
  CHECK(spanBusy(spans[0]) == Approx(0.4));

  StepEstimate step;
  step.timeline = spans;
  CHECK(stepTimelineEnd(step) == Approx(7.3));
  // At 0.25 s the gather runs beside the first forward's compute and all-reduces (their envelopes),
  // the gather a little over half done.
  const auto at = spansAt(step, 0.25);
  REQUIRE(at.size() == 3);
  CHECK(spanProgress(spans[at[0]], 0.25) == Approx(0.625));
  CHECK(nextSpanEdge(step, 0.25) == Approx(0.4));
  CHECK(previousSpanEdge(step, 0.25) == Approx(0.225));
  CHECK(nextSpanEdge(step, 7.3) == Approx(7.3));
  CHECK(spansAt(step, 7.3).size() == 1); // the update, finished
  CHECK(ringStepsOf(Collective::AllGather, 4) == 3);
  CHECK(ringStepsOf(Collective::AllReduce, 4) == 6);
  CHECK(ringStepsOf(Collective::ReduceScatter, 1) == 0);
}

TEST_CASE("the played step: compute that waits for its gathers waits in every slice", "[step][playback]") {
  // One micro-batch of a 2-layer model, forward 1 s of compute; a weight gather of 1.6 s per
  // forward (the compute hides 1 s of it) and 0.2 s of critical all-reduces, one per layer and pass
  // (4 calls): forward exposed = max(1.6 - 1, 0.8) = 0.8, of which the lead is the first layer's
  // 0.8. So no wait in the slices: 2 slots of (1 + 0 + 0.2 x 1/3) / 2 from 0.8.
  step::Work work;
  work.fwd_roofline_s = 1.0;
  work.bwd_roofline_s = 2.0;
  step::MeshRoles mesh;
  mesh.name = {"fsdp", "tensor"};
  mesh.size = {4, 2};
  std::vector<step::Bucket> buckets(2);
  buckets[0].axis = 0;
  buckets[0].phase = step::Phase::FwdEach;
  buckets[0].seconds = 1.6;
  buckets[1].axis = 1;
  buckets[1].kind = Collective::AllReduce;
  buckets[1].phase = step::Phase::Critical;
  buckets[1].seconds = 0.2;
  buckets[1].calls = 4;
  const auto spans = step::stepTimeline(buckets, work, mesh, 1, 2, 0);
  REQUIRE(spans.size() == 5);
  const double slot = (1.0 + 0.2 / 3.0) / 2.0;
  CHECK(spans[1].part == StepPart::Compute);
  CHECK(spans[1].start == Approx(0.8));
  CHECK(spans[1].pulses == 2);
  CHECK(spanPeriod(spans[1]) == Approx(slot));
  CHECK(spans[2].start == Approx(0.8 + 0.5));
  CHECK(spans[2].end == Approx(0.8 + 2 * slot));
  // The forward ends at 1 + 0.8 + 0.2/3; the backward (2 s, 0.2 x 2/3 s of all-reduces) after it.
  StepEstimate step;
  step.timeline = spans;
  CHECK(stepTimelineEnd(step) == Approx(1.0 + 0.8 + 2.0 + 0.2));
}

TEST_CASE("the played step: identical middle micro-batches merge beyond 64, the total stays", "[step][playback]") {
  step::Work work;
  work.fwd_roofline_s = 1.0;
  work.bwd_roofline_s = 2.0;
  step::MeshRoles mesh;
  mesh.name = {"data"};
  mesh.size = {8};
  std::vector<step::Bucket> buckets(1);
  buckets[0].kind = Collective::AllReduce;
  buckets[0].purpose = "dp_grads";
  buckets[0].phase = step::Phase::BwdLast;
  buckets[0].seconds = 5.0;
  // 1000 micro-batches: passes 0, 1..998 (merged) and 999. The gradient all-reduce runs once,
  // behind the last backward (2 s): 5 - 2 = 3 s exposed. 1000 x 3 s + 3 s = 3003 s.
  const auto spans = step::stepTimeline(buckets, work, mesh, 1000, 32, 0);
  StepEstimate step;
  step.timeline = spans;
  CHECK(stepTimelineEnd(step) == Approx(3003.0));
  CHECK(spans.size() == 7); // 6 compute passes and the all-reduce
  int merged = 0;
  for (const auto& s : spans)
    if (s.microbatches == 998) {
      ++merged;
      CHECK(s.microbatch == 1);
      CHECK(s.end - s.start == Approx(998.0 * (s.forward ? 1.0 : 2.0)));
    }
  CHECK(merged == 2);
}

TEST_CASE("the default workspace's played step adds up to its step figures", "[step][playback]") {
  const Analysis a = analyze(defaultScenario());
  const StepEstimate& step = a.step;
  REQUIRE(step.estimated);
  REQUIRE_FALSE(step.timeline.empty());
  CHECK(stepTimelineEnd(step) == Approx(step.time_s).epsilon(1e-9));
  std::map<std::string, double> perAxis;
  double compute = 0, update = 0;
  for (const auto& s : step.timeline) {
    CHECK(s.end >= s.start);
    if (s.part == StepPart::Comm) perAxis[s.axis] += spanBusy(s);
    if (s.part == StepPart::Compute) compute += spanBusy(s);
    if (s.part == StepPart::Optimizer) update += spanBusy(s);
  }
  for (const auto& axis : step.per_axis) CHECK(perAxis[axis.axis] == Approx(axis.seconds).epsilon(1e-9));
  CHECK(compute == Approx(step.compute_s + step.hbm_s - step.optimizer_s).epsilon(1e-9));
  CHECK(update == Approx(step.optimizer_s).epsilon(1e-9));
  for (std::size_t i = 1; i < step.timeline.size(); ++i) CHECK(step.timeline[i - 1].start <= step.timeline[i].start);
  // The default workspace's tensor axis: two all-reduces per layer in every pass (after attention
  // and after the MLP), between 2 x 32 slices of compute (Llama 3.1 8B has 32 layers).
  const std::int64_t layers = 32;
  int pulsedTp = 0;
  for (const auto& s : step.timeline)
    if (s.part == StepPart::Comm && s.axis == "tp") {
      CHECK(s.pulses == 2 * layers);
      ++pulsedTp;
    }
  CHECK(pulsedTp == 2);
}

TEST_CASE("under a pipeline the played step is the schedule: each rank's tasks and its hand-overs",
          "[step][playback][pipeline]") {
  // Llama-3.1-70B on four H100 hosts, a Std1F1B pipeline over pp = 4 with M = 8 micro-batches.
  Scenario s = defaultScenario();
  s.topology = parseTopology("h100:4x8");
  s.mesh.axes = {{"pp", 4, 1}, {"tp", 8, 1}};
  s.model.preset = "llama-3.1-70b";
  s.rules.preset = "tp";
  s.training.batch_axes = {};
  s.training.seq_axes = {};
  PipelineConfig pipe;
  pipe.axis = "pp";
  pipe.schedule = PipelineScheduleKind::Std1F1B;
  pipe.microbatches = 8;
  s.pipeline = pipe;
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  REQUIRE(a.pipeline->scheduled);
  REQUIRE(a.pipeline->time_unit == PipelineTimeUnit::Seconds);
  const StepEstimate& step = a.step;
  CHECK(stepTimelineEnd(step) == Approx(step.time_s).epsilon(1e-9));
  // Each rank's tasks add up to the busy time the schedule reports for it; 1F1B runs one forward
  // and one backward of each of the 8 micro-batches on each of the 4 ranks: 64 tasks.
  std::vector<double> busy(4, 0.0);
  int tasks = 0, forward = 0, backward = 0;
  for (const auto& span : step.timeline) {
    if (span.part != StepPart::Handover || span.rank < 0) continue;
    CHECK(span.to_rank == span.rank + (span.forward ? 1 : -1)); // stage s on rank s
    (span.forward ? forward : backward)++;
  }
  for (const auto& span : step.timeline) {
    if (span.part != StepPart::Compute) continue;
    REQUIRE(span.rank >= 0);
    REQUIRE(span.rank < 4);
    busy[static_cast<std::size_t>(span.rank)] += span.end - span.start;
    ++tasks;
  }
  CHECK(tasks == 64);
  for (int r = 0; r < 4; ++r)
    CHECK(busy[static_cast<std::size_t>(r)] == Approx(a.pipeline->ranks[static_cast<std::size_t>(r)].busy));
  // Activations cross 3 rank boundaries forward and their gradients 3 back, for each micro-batch.
  CHECK(forward == 3 * 8);
  CHECK(backward == 3 * 8);
  // In the middle of the schedule some rank works while another idles (the bubble) at the start:
  // at the first task's midpoint only rank 0 runs.
  const StepSpan* first = nullptr;
  for (const auto& span : step.timeline)
    if (span.part == StepPart::Compute && (!first || span.start < first->start)) first = &span;
  REQUIRE(first);
  CHECK(first->rank == 0);
  int running = 0;
  for (std::size_t i : spansAt(step, 0.5 * (first->start + first->end)))
    if (step.timeline[i].part == StepPart::Compute) ++running;
  CHECK(running == 1);
}

TEST_CASE("a collective over two whole wrapped torus dimensions runs on one ring per line of each",
          "[step][playback]") {
  // v4 4x4x4 (every dimension wraps), mesh fsdp 16 x tp 4: each fsdp group of 16 chips takes two
  // physical dimensions whole. The cost form gathers over both at once (V / (W n_axes)), so the
  // rings are the group's lines along each dimension: 4 + 4 rings of 4 per group, 4 groups.
  Scenario s = defaultScenario();
  s.topology = parseTopology("v4:4x4x4");
  s.mesh.axes = {{"fsdp", 16, 1}, {"tp", 4, 1}};
  const Analysis a = analyze(s);
  REQUIRE(a.comm.size() == 2);
  REQUIRE(a.comm[0].wraps);
  int spanned = 0;
  for (int e : a.comm[0].extents) spanned += e == 4 ? 1 : 0;
  REQUIRE(spanned == 2);
  const auto rings = collectiveRings(a.mesh, 0, true);
  REQUIRE(rings.size() == 4 * 8);
  std::map<int, int> ringsOf; // device position -> rings it is in
  for (const auto& ring : rings) {
    REQUIRE(ring.size() == 4);
    // One line: exactly one coordinate varies, through 0..3 in order.
    const auto& first = *a.mesh.devices[static_cast<std::size_t>(ring[0])].coords;
    int varying = -1;
    for (int d = 0; d < 3; ++d)
      if ((*a.mesh.devices[static_cast<std::size_t>(ring[1])].coords)[static_cast<std::size_t>(d)] !=
          first[static_cast<std::size_t>(d)])
        varying = d;
    REQUIRE(varying >= 0);
    for (std::size_t k = 0; k < 4; ++k) {
      const auto& c = *a.mesh.devices[static_cast<std::size_t>(ring[k])].coords;
      CHECK(c[static_cast<std::size_t>(varying)] == static_cast<int>(k));
      for (int d = 0; d < 3; ++d)
        if (d != varying) CHECK(c[static_cast<std::size_t>(d)] == first[static_cast<std::size_t>(d)]);
      ++ringsOf[ring[k]];
    }
  }
  CHECK(ringsOf.size() == 64);
  for (const auto& [pos, count] : ringsOf) CHECK(count == 2); // one ring per dimension
  // Without perDimension: the groups in mesh order, 4 of 16.
  const auto groups = collectiveRings(a.mesh, 0, false);
  REQUIRE(groups.size() == 4);
  CHECK(groups[0].size() == 16);
  // The tp axis (one dimension): its 16 groups of 4.
  CHECK(collectiveRings(a.mesh, 1, false).size() == 16);
}

TEST_CASE("the activations a device holds rise through each forward and fall through its backward",
          "[step][playback]") {
  // The default workspace with two micro-batches: forward 0, backward 0, forward 1, backward 1.
  Scenario s = defaultScenario();
  s.training.microbatches = 2;
  const Analysis a = analyze(s);
  REQUIRE(a.step.estimated);
  std::vector<const StepSpan*> passes;
  for (const auto& span : a.step.timeline)
    if (span.part == StepPart::Compute && span.rank < 0) passes.push_back(&span);
  REQUIRE(passes.size() == 4);
  REQUIRE(passes[0]->forward);
  REQUIRE_FALSE(passes[1]->forward);
  auto at = [&](const StepSpan* p, double f) { return p->start + f * (p->end - p->start); };
  CHECK(activationShareAt(a.step, 0.0) == Approx(0.0));
  CHECK(activationShareAt(a.step, at(passes[0], 0.25)) == Approx(0.25));
  CHECK(activationShareAt(a.step, at(passes[0], 1.0)) == Approx(1.0)); // held until the backward starts
  CHECK(activationShareAt(a.step, at(passes[1], 0.75)) == Approx(0.25));
  CHECK(activationShareAt(a.step, at(passes[2], 0.5)) == Approx(0.5));
  CHECK(activationShareAt(a.step, a.step.time_s) == Approx(0.0)); // the update: everything freed
}
