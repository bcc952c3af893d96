// SPDX-License-Identifier: Apache-2.0
// jaxpp's pipeline schedules and list scheduler, checked independently of the golden file: the
// spec's S=4 M=8 excerpt (makespan, bubble, peak in-flight), the validation errors, jaxpp's own
// test shapes, the preprocessing and scheduler errors, latency models and the engine's bounds.
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

using namespace shardscope;

namespace {

PipelineScheduleSpec specOf(PipelineScheduleKind kind, std::int64_t stages,
                            std::optional<std::int64_t> mpmdDim = std::nullopt, bool fuse = false) {
  PipelineScheduleSpec spec;
  spec.kind = kind;
  spec.num_stages = stages;
  spec.mpmd_dim = mpmdDim;
  spec.fuse_steady_state = fuse;
  return spec;
}

struct Run {
  ScheduleRows raw;
  ScheduleRows preprocessed;
  PipelineTimeline timeline;
  PipelineMetrics metrics;
};

Run runSchedule(const PipelineScheduleSpec& spec, std::int64_t microbatches, const TaskLatencyFn& latency = {}) {
  Run run;
  run.raw = pipelineTasks(spec, microbatches);
  run.preprocessed = preprocessSchedule(run.raw, 0);
  run.timeline = simulateTimeline(spec, microbatches, run.preprocessed, latency);
  run.metrics = pipelineMetrics(run.timeline, pipelineRankCount(spec));
  return run;
}

// Throws `kind` with exactly `message`.
template <class F>
void checkError(F&& f, ErrorKind kind, const std::string& message) {
  try {
    f();
    FAIL("expected an error: " << message);
  } catch (const Error& e) {
    CHECK(e.kind() == kind);
    CHECK(std::string(e.what()) == message);
  }
}

// Every node of the dependency graph runs exactly once, on the rank that owns its stage, the
// events are sorted by (start, end), and the events of one rank never overlap.
void checkEveryTaskOnce(const PipelineScheduleSpec& spec, int microbatches, const PipelineTimeline& tl) {
  const bool partial = isPartialBwd(spec.kind);
  std::map<std::tuple<int, int, int>, int> seen; // (type, stage, microbatch) -> count
  for (const auto& t : tl.tasks) ++seen[{static_cast<int>(t.type), t.stage, t.microbatch}];
  std::size_t expected = 0;
  for (int s = 0; s < spec.num_stages; ++s)
    for (int m = 0; m < microbatches; ++m) {
      std::vector<TaskType> types = {TaskType::Fwd};
      if (!partial)
        types.push_back(TaskType::Bwd);
      else {
        types.push_back(TaskType::BwdI);
        if (s != 0) types.push_back(TaskType::BwdW);
      }
      for (TaskType type : types) {
        INFO("task " << taskTypeName(type) << " stage " << s << " microbatch " << m);
        CHECK(seen[{static_cast<int>(type), s, m}] == 1);
        ++expected;
      }
    }
  CHECK(tl.tasks.size() == expected);

  std::map<int, double> rankFree;
  for (std::size_t i = 0; i < tl.events.size(); ++i) {
    const auto& ev = tl.events[i];
    if (i > 0) {
      const auto& prev = tl.events[i - 1];
      CHECK((prev.start < ev.start || (prev.start == ev.start && prev.end <= ev.end)));
    }
    for (const auto& t : tl.members(ev)) CHECK(stageToRank(spec, t.stage) == ev.rank);
    CHECK(ev.start >= rankFree[ev.rank]);
    rankFree[ev.rank] = ev.end;
    CHECK(ev.end <= tl.makespan);
  }
}

} // namespace

TEST_CASE("schedule names parse and describe the schedule", "[pipeline_schedule]") {
  for (auto kind : allPipelineScheduleKinds()) CHECK(parsePipelineScheduleKind(pipelineScheduleKindName(kind)) == kind);
  CHECK_FALSE(parsePipelineScheduleKind("1F1B"));
  CHECK(allPipelineScheduleKinds().size() == 8);
  CHECK(isPartialBwd(PipelineScheduleKind::ZeroBubble));
  CHECK(isPartialBwd(PipelineScheduleKind::DualPipeV));
  CHECK_FALSE(isPartialBwd(PipelineScheduleKind::Interleaved1F1B));
  CHECK_FALSE(isExportedByJaxpp(PipelineScheduleKind::InterleavedGPipe));
  CHECK(parseTaskType("BWD_I") == TaskType::BwdI);
  CHECK(defaultTaskLatency(TaskType::Bwd) == 2.0);
  CHECK(defaultTaskLatency(TaskType::BwdW) == 1.0);
  CHECK(stageToRankTable(specOf(PipelineScheduleKind::Interleaved1F1B, 8, 4)) ==
        std::vector<int>{0, 1, 2, 3, 0, 1, 2, 3});
  CHECK(stageToRankTable(specOf(PipelineScheduleKind::DualPipeV, 8, 4)) == std::vector<int>{0, 1, 2, 3, 3, 2, 1, 0});
  CHECK(stageToRankTable(specOf(PipelineScheduleKind::GPipe, 3)) == std::vector<int>{0, 1, 2});
}

TEST_CASE("the spec's S=4 M=8 excerpt: makespan, bubble and peak in-flight", "[pipeline_schedule]") {
  struct Row {
    PipelineScheduleKind kind;
    int stages;
    std::optional<int> mpmdDim;
    int microbatches;
    double makespan;
    std::optional<double> bubble;
    std::vector<int> peak;
  };
  using K = PipelineScheduleKind;
  const std::vector<Row> rows = {
      {K::Std1F1B, 4, std::nullopt, 8, 33, 0.273, {4, 3, 2, 1}},
      {K::ZeroBubble, 4, std::nullopt, 8, 27, 0.111, {4, 4, 4, 4}},
      {K::GPipe, 4, std::nullopt, 8, 33, 0.273, {8, 8, 8, 8}},
      {K::Eager1F1B, 4, std::nullopt, 8, 33, 0.273, {7, 5, 3, 1}},
      {K::Interleaved1F1B, 8, 4, 8, 57, std::nullopt, {11, 9, 7, 5}},
      {K::KimiK2, 8, 4, 8, 57, std::nullopt, {12, 10, 8, 6}},
      {K::DualPipeV, 8, 4, 8, 53, 0.094, {9, 9, 9, 9}},
      {K::Std1F1B, 4, std::nullopt, 2, 15, 0.600, {2, 2, 2, 1}},
  };
  for (const auto& row : rows) {
    INFO(pipelineScheduleKindName(row.kind) << " S=" << row.stages << " M=" << row.microbatches);
    const auto spec = specOf(row.kind, row.stages, row.mpmdDim);
    const Run run = runSchedule(spec, row.microbatches);
    CHECK(run.timeline.makespan == row.makespan);
    CHECK(run.metrics.makespan == row.makespan);
    // Bubble: per rank 1 - busy / makespan, averaged over ranks (the spec prints 3 decimals).
    if (row.bubble) CHECK(run.metrics.bubble_overall == Approx(*row.bubble).margin(0.0005));
    CHECK(run.metrics.peak_in_flight == row.peak);
    checkEveryTaskOnce(spec, row.microbatches, run.timeline);
  }
  // Std1F1B: every rank does 8 forwards (1) and 8 backwards (2), so each is busy 24 of 33.
  const Run std1f1b = runSchedule(specOf(PipelineScheduleKind::Std1F1B, 4), 8);
  for (double busy : std1f1b.metrics.busy) CHECK(busy == 24);
  for (double bubble : std1f1b.metrics.bubble) CHECK(bubble == Approx(9.0 / 33.0));
}

TEST_CASE("slot grids keep jaxpp's gaps and orders", "[pipeline_schedule]") {
  SECTION("Std1F1B rank 3 alternates F, B from its first slot; rank 0 warms up with 4 forwards") {
    const auto raw = pipelineTasks(PipelineScheduleKind::Std1F1B, 4, 8);
    REQUIRE(raw.size() == 4);
    CHECK(raw[0].size() == 22); // 2 * (M + S - 1) slots
    for (int slot = 0; slot < 4; ++slot) {
      REQUIRE(raw[0][slot].kind == ScheduleEntry::Kind::Single);
      CHECK(raw[0][slot].members[0].type == TaskType::Fwd);
      CHECK(raw[0][slot].members[0].microbatch == slot);
    }
    CHECK(raw[0][4].isGap());
    CHECK(raw[3][2].isGap());
    CHECK(raw[3][3].members[0].type == TaskType::Fwd);
    CHECK(raw[3][4].members[0].type == TaskType::Bwd);
  }
  SECTION("ZeroBubble rows are 3M + S - 1 slots; stage 0 merges BWD_I + BWD_W into one BWD_I of latency 2") {
    const auto raw = pipelineTasks(PipelineScheduleKind::ZeroBubble, 4, 8);
    for (const auto& row : raw) CHECK(row.size() == 27);
    const auto pre = preprocessSchedule(raw, 0);
    for (const auto& e : pre[0]) {
      REQUIRE(e.kind == ScheduleEntry::Kind::Single);
      CHECK(e.members[0].type != TaskType::BwdW);
      if (e.members[0].type == TaskType::BwdI) {
        CHECK(e.members[0].latency == 2);
        CHECK(e.members[0].merged_bwd_w);
      }
    }
    CHECK(pre[1].size() == 24);
  }
  SECTION("DualPipeV fused groups: forward of one stage with the other's BWD_I + BWD_W") {
    const auto raw = pipelineTasks(PipelineScheduleKind::DualPipeV, 4, 4, 2);
    int fused3 = 0;
    for (const auto& row : raw)
      for (const auto& e : row) {
        CHECK_FALSE(e.isGap());
        if (e.kind == ScheduleEntry::Kind::Fused && e.members.size() == 3) {
          ++fused3;
          CHECK(e.members[0].type == TaskType::Fwd);
          CHECK(e.members[1].type == TaskType::BwdI);
          CHECK(e.members[2].type == TaskType::BwdW);
        }
      }
    CHECK(fused3 > 0);
  }
  SECTION(
      "Interleaved1F1B fuses the last stage's forward with its backward; fuse_steady_state fuses every steady pair") {
    for (bool fuse : {false, true}) {
      const auto raw = pipelineTasks(PipelineScheduleKind::Interleaved1F1B, 8, 8, 4, fuse);
      for (const auto& row : raw)
        for (const auto& e : row)
          if (e.kind == ScheduleEntry::Kind::Fused) {
            REQUIRE(e.members.size() == 2);
            CHECK(e.members[0].type == TaskType::Fwd);
            CHECK(e.members[1].type == TaskType::Bwd);
            if (!fuse) CHECK(e.members[0].stage == 7);
          }
    }
  }
}

TEST_CASE("InterleavedGPipe is reproduced with jaxpp's bug, and its timeline fails as jaxpp's does",
          "[pipeline_schedule]") {
  const auto spec = specOf(PipelineScheduleKind::InterleavedGPipe, 4, 2);
  const auto raw = pipelineTasks(spec, 4);
  REQUIRE(raw.size() == 2);
  int repeats = 0;
  for (const auto& e : raw[0])
    if (!e.isGap() && e.members[0].type == TaskType::Bwd) {
      CHECK(e.members[0].stage == 2);
      CHECK(e.members[0].microbatch == 0);
      ++repeats;
    }
  CHECK(repeats == 8);
  const auto pre = preprocessSchedule(raw, 0);
  checkError([&] { simulateTimeline(spec, 4, pre); }, ErrorKind::KeyError, "5");
  // With as many stages as ranks the backward names a stage the graph does not have.
  const auto small = specOf(PipelineScheduleKind::InterleavedGPipe, 2, 2);
  checkError([&] { simulateTimeline(small, 2, preprocessSchedule(pipelineTasks(small, 2), 0)); }, ErrorKind::KeyError,
             "Task(stage_id=2, mubatch_idx=0, fwd_or_bwd=TaskType.BWD, latency=2)");
}

TEST_CASE("validation errors carry jaxpp's types and texts", "[pipeline_schedule]") {
  using K = PipelineScheduleKind;
  const std::string stagesText = "The argument `num_stages` must be `>= 0`";
  for (auto kind : {K::GPipe, K::Std1F1B, K::Eager1F1B, K::ZeroBubble})
    checkError([&] { pipelineTasks(kind, 0, 4); }, ErrorKind::ValueError, stagesText);
  checkError([&] { pipelineTasks(K::DualPipeV, 0, 4, 1); }, ErrorKind::ValueError, stagesText);
  checkError([&] { pipelineTasks(K::KimiK2, 4, 4, 0); }, ErrorKind::ValueError,
             "The argument `mpmd_dim` must be `>= 0`");
  checkError([&] { pipelineTasks(K::Interleaved1F1B, 6, 4, 4); }, ErrorKind::ValueError,
             "self.num_stages=6 can not be evenly divided by self.mpmd_dim=4. Remainder: divmod(self.num_stages, "
             "self.mpmd_dim)=(1, 2)");

  // The microbatch rule: M splits into max(1, M // D) equal rounds. M=9, D=4 does not; M=6, D=4
  // does (one round of 6) although the message speaks of divisibility by mpmd_dim.
  for (auto kind : {K::Interleaved1F1B, K::KimiK2}) {
    checkError([&] { pipelineTasks(kind, 8, 9, 4); }, ErrorKind::ValueError,
               "n_microbatches must be divisible by mpmd_dim");
    const auto spec = specOf(kind, 8, 4);
    const Run run = runSchedule(spec, 6);
    checkEveryTaskOnce(spec, 6, run.timeline);
  }

  checkError([&] { pipelineTasks(K::ZeroBubble, 4, 3); }, ErrorKind::AssertionError,
             "Expect num of microbatches >= num of stages, but 3 microbatches and 4 stages found");
  checkError([&] { pipelineTasks(K::DualPipeV, 12, 12, 4); }, ErrorKind::ValueError,
             "DualPipeV only supports 2 * mpmd_dim stages, self.num_stages=12 requested with self.mpmd_dim=4");
  checkError([&] { pipelineTasks(K::DualPipeV, 8, 7, 4); }, ErrorKind::ValueError,
             "DualPipeV requires n_mubatches=7 >= self.num_stages=8 (self.mpmd_dim=4)");
  // jaxpp's ZeroBubble(1) fails in Python with UnboundLocalError; the message is Python's.
  checkError([&] { pipelineTasks(K::ZeroBubble, 1, 2); }, ErrorKind::UnboundLocalError,
             "cannot access local variable 'next_kind' where it is not associated with a value");
  CHECK_THROWS_AS(pipelineTasks(K::Interleaved1F1B, 4, 4), Error); // mpmd_dim is required
}

TEST_CASE("jaxpp's test shapes run and schedule every task once", "[pipeline_schedule]") {
  using K = PipelineScheduleKind;
  struct Shape {
    K kind;
    int stages;
    std::optional<int> mpmdDim;
    bool fuse;
    int microbatches;
  };
  const std::vector<Shape> shapes = {
      {K::Std1F1B, 1, std::nullopt, false, 2},
      {K::Eager1F1B, 3, std::nullopt, false, 3},
      {K::Eager1F1B, 3, std::nullopt, false, 8},
      {K::Interleaved1F1B, 1, 1, false, 4},
      {K::Interleaved1F1B, 8, 4, false, 8},
      {K::Interleaved1F1B, 4, 2, false, 8},
      {K::Interleaved1F1B, 8, 4, false, 6},
      {K::KimiK2, 8, 4, true, 8},
      {K::ZeroBubble, 4, std::nullopt, false, 4},
      {K::ZeroBubble, 4, std::nullopt, false, 8},
      {K::DualPipeV, 6, 3, false, 6},
      {K::DualPipeV, 6, 3, false, 10},
      {K::DualPipeV, 16, 8, false, 18},
      {K::GPipe, 4, std::nullopt, false, 8},
  };
  for (const auto& s : shapes) {
    INFO(pipelineScheduleKindName(s.kind) << " S=" << s.stages << " M=" << s.microbatches);
    const auto spec = specOf(s.kind, s.stages, s.mpmdDim, s.fuse);
    const Run run = runSchedule(spec, s.microbatches);
    CHECK(run.timeline.makespan > 0);
    checkEveryTaskOnce(spec, s.microbatches, run.timeline);
  }
}

TEST_CASE("no microbatches give empty schedules like jaxpp", "[pipeline_schedule]") {
  const auto raw = pipelineTasks(PipelineScheduleKind::Std1F1B, 4, 0);
  REQUIRE(raw.size() == 4);
  CHECK(raw[0].size() == 6); // 2 * (0 + 4 - 1) gaps
  const auto spec = specOf(PipelineScheduleKind::Std1F1B, 4);
  const auto tl = simulateTimeline(spec, 0, preprocessSchedule(raw, 0));
  CHECK(tl.events.empty());
  CHECK(tl.makespan == 0);
  const auto interleaved = pipelineTasks(PipelineScheduleKind::KimiK2, 8, 0, 4);
  REQUIRE(interleaved.size() == 4);
  for (const auto& row : interleaved) CHECK(row.empty());
}

TEST_CASE("preprocessing and the scheduler raise jaxpp's errors on hand-built rows", "[pipeline_schedule]") {
  auto task = [](TaskType type, int mb, int stage) {
    return PipelineTask{type, mb, stage, defaultTaskLatency(type), false};
  };
  using T = TaskType;
  const auto zb = specOf(PipelineScheduleKind::ZeroBubble, 2);

  SECTION("a stage-0 BWD_I not followed by its BWD_W") {
    ScheduleRows rows = {{ScheduleEntry::single(task(T::Fwd, 0, 0)), ScheduleEntry::single(task(T::BwdI, 0, 0)),
                          ScheduleEntry::single(task(T::Fwd, 1, 0)), ScheduleEntry::single(task(T::BwdW, 0, 0))}};
    checkError([&] { preprocessSchedule(rows, 0); }, ErrorKind::NotImplementedError,
               "TaskType.BWD_I is not followed by TaskType.BWD_W for first_stage 0 at tasks 1 "
               "[Task(stage_id=0, mubatch_idx=0, fwd_or_bwd=TaskType.BWD_I, latency=1), "
               "Task(stage_id=0, mubatch_idx=1, fwd_or_bwd=TaskType.FWD, latency=1)].\n"
               "['fwd_0__0', 'bwdA_0__0', 'fwd_0__1', 'bwdW_0__0']");
  }
  SECTION("inside a fused group the group's own list is reported") {
    ScheduleRows rows = {{ScheduleEntry::fused({task(T::Fwd, 0, 0), task(T::BwdI, 0, 0), task(T::Fwd, 0, 1)}),
                          ScheduleEntry::single(task(T::BwdW, 0, 0))}};
    checkError([&] { preprocessSchedule(rows, 0); }, ErrorKind::NotImplementedError,
               "TaskType.BWD_I is not followed by TaskType.BWD_W for first_stage 0 at tasks 1 "
               "[Task(stage_id=0, mubatch_idx=0, fwd_or_bwd=TaskType.BWD_I, latency=1), "
               "Task(stage_id=1, mubatch_idx=0, fwd_or_bwd=TaskType.FWD, latency=1)].\n"
               "['fwd_0__0', 'bwdA_0__0', 'fwd_1__0']");
  }
  SECTION("an order that contradicts the dependencies deadlocks") {
    const auto spec = specOf(PipelineScheduleKind::Std1F1B, 2);
    ScheduleRows rows = {{ScheduleEntry::single(task(T::Fwd, 0, 0)), ScheduleEntry::single(task(T::Bwd, 0, 0))},
                         {ScheduleEntry::single(task(T::Bwd, 0, 1)), ScheduleEntry::single(task(T::Fwd, 0, 1))}};
    checkError([&] { simulateTimeline(spec, 1, rows); }, ErrorKind::AssertionError,
               "Schedule does not honor data dependencies.\n"
               "Tasks available for scheduling [Task(stage_id=1, mubatch_idx=0, fwd_or_bwd=TaskType.FWD, latency=1)].\n"
               "Current position in schedule for ranks {0: (1, Task(stage_id=0, mubatch_idx=0, "
               "fwd_or_bwd=TaskType.BWD, latency=2)), "
               "1: (0, Task(stage_id=1, mubatch_idx=0, fwd_or_bwd=TaskType.BWD, latency=2))}.");
  }
  SECTION("tasks left once the graph is done") {
    const auto spec = specOf(PipelineScheduleKind::Std1F1B, 1);
    ScheduleRows rows = {{ScheduleEntry::single(task(T::Fwd, 0, 0)), ScheduleEntry::single(task(T::Bwd, 0, 0)),
                          ScheduleEntry::fused({task(T::Fwd, 1, 0), task(T::Bwd, 1, 0)})}};
    checkError([&] { simulateTimeline(spec, 1, rows); }, ErrorKind::AssertionError,
               "Loop tasks have ended but schedule contains other tasks. "
               "[(Task(stage_id=0, mubatch_idx=1, fwd_or_bwd=TaskType.FWD, latency=1), "
               "Task(stage_id=0, mubatch_idx=1, fwd_or_bwd=TaskType.BWD, latency=2))]");
  }
  SECTION("a stage-0 BWD_W has no node in a split-backward graph") {
    ScheduleRows rows = {{ScheduleEntry::single(task(T::Fwd, 0, 0)), ScheduleEntry::single(task(T::BwdW, 0, 0))},
                         {ScheduleEntry::single(task(T::Fwd, 0, 1))}};
    checkError([&] { simulateTimeline(zb, 1, rows); }, ErrorKind::KeyError,
               "Task(stage_id=0, mubatch_idx=0, fwd_or_bwd=TaskType.BWD_W, latency=1)");
  }
  SECTION("malformed entries are refused") {
    ScheduleRows gap = {{ScheduleEntry::gap()}};
    CHECK_THROWS_AS(simulateTimeline(zb, 1, gap), Error);
    ScheduleRows empty = {{ScheduleEntry::fused({})}};
    CHECK_THROWS_AS(preprocessSchedule(empty, 0), Error);
  }
}

TEST_CASE("a fused unit readies its users at the member that completes them", "[pipeline_schedule]") {
  // jaxpp's FIXME: rank 0 runs [F(0,0) + F(0,1)] over [0, 2); F(1,0) on rank 1 waits only for the
  // end of F(0,0), at 1, not for the end of the unit.
  auto task = [](TaskType type, int mb, int stage) {
    return PipelineTask{type, mb, stage, defaultTaskLatency(type), false};
  };
  using T = TaskType;
  const auto spec = specOf(PipelineScheduleKind::GPipe, 2);
  const ScheduleRows rows = {{ScheduleEntry::fused({task(T::Fwd, 0, 0), task(T::Fwd, 1, 0)}),
                              ScheduleEntry::single(task(T::Bwd, 0, 0)), ScheduleEntry::single(task(T::Bwd, 1, 0))},
                             {ScheduleEntry::single(task(T::Fwd, 0, 1)), ScheduleEntry::single(task(T::Bwd, 0, 1)),
                              ScheduleEntry::single(task(T::Fwd, 1, 1)), ScheduleEntry::single(task(T::Bwd, 1, 1))}};
  const auto tl = simulateTimeline(spec, 2, rows);
  const std::vector<std::pair<double, double>> expected = {{0, 2}, {1, 2}, {2, 4}, {4, 5}, {4, 6}, {5, 7}, {7, 9}};
  REQUIRE(tl.events.size() == expected.size());
  for (std::size_t i = 0; i < expected.size(); ++i) {
    CHECK(tl.events[i].start == expected[i].first);
    CHECK(tl.events[i].end == expected[i].second);
  }
  CHECK(tl.events[1].rank == 1);
  CHECK(tl.members(tl.events[0]).size() == 2);
  // At 4 both ranks can start; the tie goes to rank 0 (B(0,0)), yet F(1,1) sorts first by end.
  CHECK(tl.members(tl.events[4]).front().type == T::Bwd);
  CHECK(tl.makespan == 9);
}

TEST_CASE("a latency model re-costs the timeline", "[pipeline_schedule]") {
  const auto spec = specOf(PipelineScheduleKind::Std1F1B, 4);
  const Run unit = runSchedule(spec, 8, [](TaskType type, int) { return defaultTaskLatency(type); });
  CHECK(unit.timeline.makespan == 33);
  const Run doubled = runSchedule(spec, 8, [](TaskType type, int) { return 2 * defaultTaskLatency(type); });
  CHECK(doubled.timeline.makespan == 66);
  // Seconds per stage: a slow last stage dominates.
  const Run slowLast = runSchedule(spec, 8, [](TaskType type, int stage) {
    return (stage == 3 ? 0.5 : 0.25) * (type == TaskType::Bwd ? 2.0 : 1.0);
  });
  CHECK(slowLast.timeline.makespan > 8 * 1.5);
  CHECK(slowLast.metrics.bubble[3] < slowLast.metrics.bubble[0]);

  // A merged stage-0 BWD_I pays for both halves.
  const auto zb = specOf(PipelineScheduleKind::ZeroBubble, 2);
  const Run merged = runSchedule(zb, 2, [](TaskType type, int) { return type == TaskType::BwdW ? 10.0 : 1.0; });
  for (const auto& t : merged.timeline.tasks)
    if (t.stage == 0 && t.type == TaskType::BwdI) CHECK(t.latency == 11);

  CHECK_THROWS_AS(runSchedule(spec, 8, [](TaskType, int) { return -1.0; }), Error);
}

TEST_CASE("the engine refuses requests beyond its bounds, naming the field", "[pipeline_schedule]") {
  auto messageOf = [](auto&& f) -> std::string {
    try {
      f();
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::ValueError);
      return e.what();
    }
    return "";
  };
  CHECK_THAT(messageOf([] { pipelineTasks(PipelineScheduleKind::GPipe, kMaxPipelineStages + 1, 4); }),
             Catch::Contains("num_stages"));
  CHECK_THAT(messageOf([] { pipelineTasks(PipelineScheduleKind::Std1F1B, 4, kMaxPipelineMicrobatches + 1); }),
             Catch::Contains("num_microbatches"));
  CHECK_THAT(messageOf([] { pipelineTasks(PipelineScheduleKind::GPipe, 1024, 2048); }), Catch::Contains("limit"));
  // jaxpp's own checks come first.
  CHECK_THAT(messageOf([] { pipelineTasks(PipelineScheduleKind::DualPipeV, 2048, 10, 1024); }),
             Catch::Contains("n_mubatches=10"));
}

TEST_CASE("DualPipeV S=16 M=64 is scheduled quickly", "[pipeline_schedule]") {
  const auto spec = specOf(PipelineScheduleKind::DualPipeV, 16, 8);
  const Run run = runSchedule(spec, 64);
  checkEveryTaskOnce(spec, 64, run.timeline);
  CHECK(run.metrics.peak_in_flight.size() == 8);
}

TEST_CASE("eval pipeline_schedule: fields, warnings and opt-in metrics", "[pipeline_schedule][eval]") {
  auto request = [](Json extra) {
    Json r = {{"op", "pipeline_schedule"},
              {"schedule", "Std1F1B"},
              {"num_stages", 4},
              {"num_microbatches", 8},
              {"mpmd_dim", nullptr}};
    for (auto& [k, v] : extra.items()) r[k] = v;
    return r;
  };
  const Json plain = evalRequest(request(Json::object()));
  REQUIRE(plain["ok"] == true);
  CHECK(plain["result"]["timeline"]["makespan"] == 33);
  CHECK_FALSE(plain["result"].contains("metrics"));

  const Json withMetrics = evalRequest(request({{"metrics", true}}));
  REQUIRE(withMetrics["ok"] == true);
  CHECK(withMetrics["result"]["metrics"]["peak_in_flight"] == Json::array({4, 3, 2, 1}));
  CHECK(withMetrics["result"]["metrics"]["bubble_overall"].get<double>() == Approx(9.0 / 33.0));

  const Json missingDim = evalRequest(request({{"schedule", "DualPipeV"}, {"num_stages", 8}}));
  CHECK(missingDim["ok"] == false);
  CHECK(missingDim["error"]["type"] == "ValueError");
  const Json extraDim = evalRequest(request({{"mpmd_dim", 2}}));
  CHECK(extraDim["ok"] == false);
  const Json fuseOnGPipe = evalRequest(request({{"schedule", "GPipe"}, {"fuse_steady_state", true}}));
  CHECK(fuseOnGPipe["ok"] == false);
  const Json unknown = evalRequest(request({{"schedule", "OneFOneB"}}));
  CHECK(unknown["ok"] == false);
  CHECK_THAT(unknown["error"]["message"].get<std::string>(), Catch::Contains("DualPipeV"));

  const Json broken =
      evalRequest(request({{"schedule", "InterleavedGPipe"}, {"mpmd_dim", 2}, {"num_microbatches", 4}}));
  REQUIRE(broken["ok"] == true);
  REQUIRE(broken.contains("warnings"));
  CHECK(broken["result"]["timeline_error"]["type"] == "KeyError");
}
