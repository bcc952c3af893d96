// SPDX-License-Identifier: Apache-2.0
// The per-schedule task generators: for each jaxpp schedule class, the rows its tasks(M) returns.
// Slot grids (GPipe, Std1F1B, Eager1F1B, ZeroBubble, InterleavedGPipe) keep their gaps; the other
// schedules give ordered lists.
#include "pipeline_internal.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <array>

namespace shardscope {

namespace pipeline_detail {

std::int64_t graphNodeCount(std::int64_t num_stages, std::int64_t num_microbatches, bool partial_bwd) {
  if (num_microbatches <= 0 || num_stages <= 0) return 0;
  return num_microbatches * (partial_bwd ? 3 * num_stages - 1 : 2 * num_stages);
}

namespace {

// Upper bound of the raw positions (gaps included) a schedule's rows hold. Arguments are within
// the stage and microbatch bounds, so nothing overflows.
std::int64_t rawPositions(const PipelineScheduleSpec& spec, std::int64_t m) {
  const std::int64_t s = spec.num_stages;
  const std::int64_t d = spec.mpmd_dim.value_or(s);
  const std::int64_t mPos = std::max<std::int64_t>(m, 0);
  switch (spec.kind) {
  case PipelineScheduleKind::GPipe:
  case PipelineScheduleKind::Std1F1B:
  case PipelineScheduleKind::Eager1F1B:
    return s * std::max<std::int64_t>(0, 2 * (m + s - 1));
  case PipelineScheduleKind::ZeroBubble:
    return s * std::max<std::int64_t>(0, 3 * m + s - 1);
  case PipelineScheduleKind::Interleaved1F1B:
  case PipelineScheduleKind::KimiK2:
    return 2 * s * mPos;
  case PipelineScheduleKind::DualPipeV:
    return 3 * s * mPos;
  case PipelineScheduleKind::InterleavedGPipe:
    return d * std::max<std::int64_t>(0, 2 * (2 * m + d - 1));
  }
  return 0;
}

} // namespace

void checkPipelineBounds(const PipelineScheduleSpec& spec, std::int64_t num_microbatches) {
  if (spec.num_stages > kMaxPipelineStages)
    throwValueError("num_stages must be at most " + std::to_string(kMaxPipelineStages) + ", got " +
                    std::to_string(spec.num_stages));
  if (num_microbatches > kMaxPipelineMicrobatches)
    throwValueError("num_microbatches must be at most " + std::to_string(kMaxPipelineMicrobatches) + ", got " +
                    std::to_string(num_microbatches));
  const std::int64_t m = std::max<std::int64_t>(num_microbatches, -kMaxPipelineMicrobatches);
  const std::int64_t positions = rawPositions(spec, m);
  const std::int64_t nodes = graphNodeCount(spec.num_stages, m, isPartialBwd(spec.kind));
  const std::int64_t biggest = std::max(positions, nodes);
  if (biggest > kMaxPipelineTasks)
    throwValueError("num_stages=" + std::to_string(spec.num_stages) +
                    " with num_microbatches=" + std::to_string(num_microbatches) + " needs " + std::to_string(biggest) +
                    " schedule positions or graph nodes; the limit is " + std::to_string(kMaxPipelineTasks));
}

} // namespace pipeline_detail

namespace {

using Row = std::vector<ScheduleEntry>;

PipelineTask makeTask(TaskType type, int microbatch, int stage) {
  return PipelineTask{type, microbatch, stage, defaultTaskLatency(type), false};
}

ScheduleEntry one(TaskType type, int microbatch, int stage) {
  return ScheduleEntry::single(makeTask(type, microbatch, stage));
}

// Rows of `length` gaps; a negative length gives empty rows, like `[None] * n` in Python.
ScheduleRows gapRows(int rows, int length) {
  return ScheduleRows(static_cast<std::size_t>(rows), Row(static_cast<std::size_t>(std::max(length, 0))));
}

// Python's floor division and modulo for a positive divisor.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) {
  std::int64_t q = a / b;
  if ((a % b) != 0 && a < 0) --q;
  return q;
}
std::int64_t floorMod(std::int64_t a, std::int64_t b) { return a - floorDiv(a, b) * b; }

// All forwards in order, then all backwards in reverse stage order.
ScheduleRows gpipe(int s, int m) {
  const int steps = m + s - 1;
  ScheduleRows rows = gapRows(s, 2 * steps);
  for (int step = 0; step < steps; ++step)
    for (int stage = 0; stage < s; ++stage) {
      const int mb = step - stage;
      if (mb >= 0 && mb < m) rows[stage][step] = one(TaskType::Fwd, mb, stage);
    }
  for (int step = steps; step < 2 * steps; ++step)
    for (int stage = s - 1; stage >= 0; --stage) {
      const int mb = (step - steps) - (s - stage - 1);
      if (mb >= 0 && mb < m) rows[stage][step] = one(TaskType::Bwd, mb, stage);
    }
  return rows;
}

// Std1F1B and Eager1F1B differ only in how many forwards each stage runs before the first
// backward: the standard warmup fills slots stage..S-1; the eager one also S..2S-2-stage.
ScheduleRows oneFOneB(int s, int m, bool eager) {
  const int steps = m + s - 1;
  ScheduleRows rows = gapRows(s, 2 * steps);
  std::vector<std::array<int, 2>> next(static_cast<std::size_t>(s), {0, 0}); // next microbatch: [fwd, bwd]

  const int warmupSteps = eager ? 2 * s - 1 : s;
  for (int step = 0; step < warmupSteps; ++step)
    for (int stage = 0; stage < s; ++stage) {
      const bool inWarmup = (step < s && step >= stage) || (eager && step >= s && step - s < s - 1 - stage);
      if (!inWarmup) continue;
      const int mb = next[stage][0];
      if (mb >= 0 && mb < m) {
        rows[stage][step] = one(TaskType::Fwd, mb, stage);
        ++next[stage][0];
      }
    }
  // From slot S + (S-1-stage) each stage alternates backward, forward, backward, ...
  for (int step = s; step < 2 * steps; ++step) {
    const int relative = step - s;
    for (int stage = 0; stage < s; ++stage) {
      const int inv = s - stage - 1;
      if (relative < inv) continue;
      const int which = 1 - (relative + inv) % 2; // 0 forward, 1 backward
      const int mb = next[stage][which];
      if (mb >= 0 && mb < m) {
        rows[stage][step] = one(which == 0 ? TaskType::Fwd : TaskType::Bwd, mb, stage);
        ++next[stage][which];
      }
    }
  }
  return rows;
}

// ZB-H1: forwards, then BWD_I / FWD alternation, then the BWD_I -> BWD_W -> FWD rotation that
// skips exhausted kinds. The caller has checked M >= S.
ScheduleRows zeroBubble(int s, int m) {
  const int steps = 3 * m + (s - 1);
  ScheduleRows rows = gapRows(s, steps);
  std::vector<int> fwd(static_cast<std::size_t>(s), 0), bwdI(static_cast<std::size_t>(s), 0),
      bwdW(static_cast<std::size_t>(s), 0);

  for (int stage = 0; stage < s; ++stage)
    for (int step = stage; step < s; ++step) rows[stage][step] = one(TaskType::Fwd, fwd[stage]++, stage);

  const int pivot = 2 * s;
  for (int stage = 0; stage < s; ++stage) {
    bool inputGradNext = true;
    for (int step = pivot - 1 - stage; step < pivot - 1 + stage; ++step) {
      rows[stage][step] =
          inputGradNext ? one(TaskType::BwdI, bwdI[stage]++, stage) : one(TaskType::Fwd, fwd[stage]++, stage);
      inputGradNext = !inputGradNext;
    }
  }

  auto after = [](TaskType t) {
    return t == TaskType::BwdI ? TaskType::BwdW : t == TaskType::BwdW ? TaskType::Fwd : TaskType::BwdI;
  };
  for (int stage = 0; stage < s; ++stage) {
    TaskType wanted = TaskType::BwdI;
    for (int step = pivot - 1 + stage; step < steps; ++step) {
      const TaskType start = wanted;
      TaskType current = start;
      while (true) {
        int& counter = current == TaskType::BwdI ? bwdI[stage] : current == TaskType::BwdW ? bwdW[stage] : fwd[stage];
        const TaskType following = after(current);
        if (counter < m) {
          rows[stage][step] = one(current, counter++, stage);
          wanted = following;
          break;
        }
        if (following == start) throwValueError("All tasks have been already scheduled for all mubatches");
        current = following;
      }
    }
  }
  return rows;
}

// Interleaved 1F1B (PyTorch's flexible-round variant) and KimiK2 (one more warmup forward per
// rank). The caller has checked that M splits into rounds of `perRound` microbatches.
ScheduleRows interleaved(int s, int d, int m, int perRound, bool fuseSteadyState, bool kimi) {
  ScheduleRows rows(static_cast<std::size_t>(d));
  if (m <= 0) return rows;
  const int vp = s / d;
  const int ops = m * vp;
  std::vector<int> fwdNext(static_cast<std::size_t>(s)), bwdNext(static_cast<std::size_t>(s));
  for (int rank = 0; rank < d; ++rank) {
    std::fill(fwdNext.begin(), fwdNext.end(), 0);
    std::fill(bwdNext.begin(), bwdNext.end(), 0);
    const int warmup = std::min((vp - 1) * perRound + 2 * (d - 1 - rank) + (kimi ? 1 : 0), ops);
    const int steady = ops - warmup;
    const int cooldown = ops - steady;
    auto fwdStage = [&](int step) { return ((step / perRound) % vp) * d + rank; };
    auto bwdStage = [&](int step) { return (vp - 1 - ((step - warmup) / perRound) % vp) * d + rank; };
    auto fwdTask = [&](int stage) { return makeTask(TaskType::Fwd, fwdNext[stage]++, stage); };
    auto bwdTask = [&](int stage) { return makeTask(TaskType::Bwd, bwdNext[stage]++, stage); };

    Row& row = rows[rank];
    row.reserve(static_cast<std::size_t>(2 * ops));
    for (int step = 0; step < warmup; ++step) row.push_back(ScheduleEntry::single(fwdTask(fwdStage(step))));
    for (int step = warmup; step < warmup + steady; ++step) {
      const int f = fwdStage(step);
      const PipelineTask forward = fwdTask(f);
      const PipelineTask backward = bwdTask(bwdStage(step));
      // The last stage always runs its forward and backward as one unit.
      if (!fuseSteadyState && f != s - 1) {
        row.push_back(ScheduleEntry::single(forward));
        row.push_back(ScheduleEntry::single(backward));
      } else {
        row.push_back(ScheduleEntry::fused({forward, backward}));
      }
    }
    for (int step = warmup + steady; step < warmup + steady + cooldown; ++step)
      row.push_back(ScheduleEntry::single(bwdTask(bwdStage(step))));
  }
  return rows;
}

// DeepSeek's DualPipeV recipe as jaxpp adapts it: rank r runs stage r (going down the V) and stage
// 2D-1-r (coming back up). The caller has checked S == 2D and M >= S.
Row dualPipeVRank(int d, int rank, int m) {
  const std::array<int, 2> stage = {rank, 2 * d - 1 - rank};
  std::array<int, 2> fwdNext = {0, 0}, inNext = {0, 0}, wNext = {0, 0};
  auto fwd = [&](int k) { return makeTask(TaskType::Fwd, fwdNext[k]++, stage[k]); };
  auto inputGrad = [&](int k) { return makeTask(TaskType::BwdI, inNext[k]++, stage[k]); };
  auto weightGrad = [&](int k) { return makeTask(TaskType::BwdW, wNext[k]++, stage[k]); };
  auto bwd = [&](int k) { // a whole backward: BWD_I then BWD_W as one unit
    PipelineTask i = inputGrad(k);
    PipelineTask w = weightGrad(k);
    return ScheduleEntry::fused({i, w});
  };
  auto fwdBwd = [&](int kf, int kb) { // a forward overlapped with another stage's backward
    PipelineTask i = inputGrad(kb);
    PipelineTask w = weightGrad(kb);
    PipelineTask f = fwd(kf);
    return ScheduleEntry::fused({f, i, w});
  };

  Row row;
  row.reserve(static_cast<std::size_t>(6 * m));
  const int down = 0, up = 1;
  // 1: forwards of the first stage only.
  for (int i = 0; i < 2 * (d - rank - 1); ++i) row.push_back(ScheduleEntry::single(fwd(down)));
  // 2: forwards of both stages, interleaved.
  for (int i = 0; i < rank + 1; ++i) {
    row.push_back(ScheduleEntry::single(fwd(down)));
    row.push_back(ScheduleEntry::single(fwd(up)));
  }
  // 3: split backward of the returning stage, then its next forward.
  for (int i = 0; i < d - rank - 1; ++i) {
    row.push_back(ScheduleEntry::single(inputGrad(up)));
    row.push_back(ScheduleEntry::single(weightGrad(up)));
    row.push_back(ScheduleEntry::single(fwd(up)));
  }
  // 4: the main phase, overlapped forward/backward pairs.
  for (int i = 0; i < m - 2 * d + rank + 1; ++i) {
    if (i == 0 && rank == d - 1) {
      row.push_back(ScheduleEntry::single(fwd(down)));
      row.push_back(bwd(up));
    } else {
      row.push_back(fwdBwd(down, up));
    }
    row.push_back(fwdBwd(up, down));
  }
  // 5: backward of the returning stage, then forward of it with backward of the first.
  for (int i = 0; i < d - rank - 1; ++i) {
    row.push_back(bwd(up));
    row.push_back(fwdBwd(up, down));
  }
  // 6: backwards only; from the middle on, odd ranks defer the returning stage's weight gradient
  // and even ranks (except the one holding stage 0) the first stage's.
  const int section6 = rank + 1;
  const int splitFrom = section6 / 2;
  for (int i = 0; i < section6; ++i) {
    if (i >= splitFrom && rank % 2 == 1)
      row.push_back(ScheduleEntry::single(inputGrad(up)));
    else
      row.push_back(bwd(up));
    if (stage[down] != 0 && i >= splitFrom && rank % 2 == 0)
      row.push_back(ScheduleEntry::single(inputGrad(down)));
    else
      row.push_back(bwd(down));
  }
  // 7: input gradients of the first stage (whole backwards on stage 0, which cannot be split).
  for (int i = 0; i < d - rank - 1; ++i) {
    if (stage[down] == 0)
      row.push_back(bwd(down));
    else
      row.push_back(ScheduleEntry::single(inputGrad(down)));
  }
  // 8: every deferred weight gradient, by (microbatch, stage).
  std::vector<PipelineTask> deferred;
  for (int k : {down, up})
    while (wNext[k] < m) deferred.push_back(weightGrad(k));
  std::sort(deferred.begin(), deferred.end(), [](const PipelineTask& a, const PipelineTask& b) {
    return a.microbatch != b.microbatch ? a.microbatch < b.microbatch : a.stage < b.stage;
  });
  for (const auto& t : deferred) row.push_back(ScheduleEntry::single(t));
  return row;
}

// jaxpp's InterleavedGPipe as written: its backward half advances the forward state, so every
// backward slot of rank r repeats B(r + D, 0). Reproduced, not fixed.
ScheduleRows interleavedGPipe(int s, int d, int m) {
  const int half = 2 * m + d - 1;
  ScheduleRows rows = gapRows(d, 2 * half);
  struct State {
    int stage, microbatch, count;
  };
  std::vector<std::array<State, 2>> state;
  state.reserve(static_cast<std::size_t>(d));
  for (int r = 0; r < d; ++r) state.push_back({State{r, 0, 0}, State{r + d, 0, 0}});
  auto advance = [&](int rank, bool forward, int count) {
    ++count;
    const bool firstHalf = count % s < d;
    const int stage = firstHalf == forward ? rank : rank + d;
    return State{stage, (count / s) * d + count % d, count};
  };
  for (int step = 0; step < half; ++step)
    for (int r = 0; r < d; ++r) {
      if (step < r) continue;
      const State cur = state[r][0];
      if (cur.microbatch >= 0 && cur.microbatch < m) {
        rows[r][step] = one(TaskType::Fwd, cur.microbatch, cur.stage);
        state[r][0] = advance(r, true, cur.count);
      }
    }
  for (int step = half; step < 2 * half; ++step) {
    const int relative = step - half;
    for (int r = 0; r < d; ++r) {
      if (relative < d - r - 1) continue;
      const State cur = state[r][1];
      if (cur.microbatch >= 0 && cur.microbatch < m) {
        rows[r][step] = one(TaskType::Bwd, cur.microbatch, cur.stage);
        state[r][0] = advance(r, false, cur.count); // jaxpp's bug: the forward slot is updated
      }
    }
  }
  return rows;
}

// Interleaved1F1B.microbatches_per_round: M in max(1, M // D) equal rounds. jaxpp's message
// names the wrong condition (M = 6, D = 4 passes with one round of 6).
std::int64_t microbatchesPerRound(std::int64_t m, std::int64_t d) {
  const std::int64_t rounds = std::max<std::int64_t>(1, floorDiv(m, d));
  if (floorMod(m, rounds) != 0) throwValueError("n_microbatches must be divisible by mpmd_dim");
  return floorDiv(m, rounds);
}

} // namespace

ScheduleRows pipelineTasks(const PipelineScheduleSpec& spec, std::int64_t num_microbatches) {
  validatePipelineSchedule(spec);
  const std::int64_t s64 = spec.num_stages;
  const std::int64_t m64 = num_microbatches;
  const std::int64_t d64 = spec.mpmd_dim.value_or(s64);

  // The checks jaxpp's tasks(M) makes, before the engine's bounds.
  std::int64_t perRound = 0;
  switch (spec.kind) {
  case PipelineScheduleKind::ZeroBubble:
    if (m64 < s64)
      throwAssertion("Expect num of microbatches >= num of stages, but " + std::to_string(m64) + " microbatches and " +
                     std::to_string(s64) + " stages found");
    // jaxpp then asserts on a local variable that only its BWD_I/FWD warmup assigns, and that
    // warmup is empty for a single stage: Python raises UnboundLocalError (Python 3.11 text).
    if (s64 == 1)
      throw Error(ErrorKind::UnboundLocalError,
                  "cannot access local variable 'next_kind' where it is not associated with a value");
    break;
  case PipelineScheduleKind::Interleaved1F1B:
  case PipelineScheduleKind::KimiK2:
    perRound = microbatchesPerRound(m64, d64);
    break;
  case PipelineScheduleKind::DualPipeV:
    if (!(m64 > 0 && m64 >= s64))
      throwValueError("DualPipeV requires n_mubatches=" + std::to_string(m64) +
                      " >= self.num_stages=" + std::to_string(s64) + " (self.mpmd_dim=" + std::to_string(d64) + ")");
    break;
  default:
    break;
  }
  pipeline_detail::checkPipelineBounds(spec, m64);

  const int s = static_cast<int>(s64);
  const int d = static_cast<int>(d64);
  // Below -M_max every formula gives empty rows already.
  const int m = static_cast<int>(std::max<std::int64_t>(m64, -kMaxPipelineMicrobatches));
  switch (spec.kind) {
  case PipelineScheduleKind::GPipe:
    return gpipe(s, m);
  case PipelineScheduleKind::Std1F1B:
    return oneFOneB(s, m, false);
  case PipelineScheduleKind::Eager1F1B:
    return oneFOneB(s, m, true);
  case PipelineScheduleKind::ZeroBubble:
    return zeroBubble(s, m);
  case PipelineScheduleKind::Interleaved1F1B:
    return interleaved(s, d, m, static_cast<int>(perRound), spec.fuse_steady_state, false);
  case PipelineScheduleKind::KimiK2:
    return interleaved(s, d, m, static_cast<int>(perRound), spec.fuse_steady_state, true);
  case PipelineScheduleKind::DualPipeV: {
    ScheduleRows rows;
    rows.reserve(static_cast<std::size_t>(d));
    for (int r = 0; r < d; ++r) rows.push_back(dualPipeVRank(d, r, m));
    return rows;
  }
  case PipelineScheduleKind::InterleavedGPipe:
    return interleavedGPipe(s, d, m);
  }
  return {};
}

ScheduleRows pipelineTasks(PipelineScheduleKind kind, std::int64_t num_stages, std::int64_t num_microbatches,
                           std::optional<std::int64_t> mpmd_dim, bool fuse_steady_state) {
  PipelineScheduleSpec spec;
  spec.kind = kind;
  spec.num_stages = num_stages;
  spec.mpmd_dim = mpmd_dim;
  spec.fuse_steady_state = fuse_steady_state;
  return pipelineTasks(spec, num_microbatches);
}

} // namespace shardscope
