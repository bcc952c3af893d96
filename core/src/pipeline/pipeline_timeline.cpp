// SPDX-License-Identifier: Apache-2.0
// From a schedule to a timeline: jaxpp's preprocessing (stage-0 BWD_I + BWD_W merge), its greedy
// list scheduler over the linear-pipeline dependency graph, and the metrics read off a timeline.
#include "pipeline_internal.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <cmath>
#include <numeric>

namespace shardscope {

// ---------------------------------------------------------------- preprocessing

namespace {

// str(entry) in jaxpp: fwd_0__1, or FusedTask(fwd_1__0, bwdA_0__1).
std::string entryName(const ScheduleEntry& e) {
  if (e.kind != ScheduleEntry::Kind::Fused) return jaxppTaskName(e.members.front());
  std::string out = "FusedTask(";
  for (std::size_t i = 0; i < e.members.size(); ++i) out += (i ? ", " : "") + jaxppTaskName(e.members[i]);
  return out + ")";
}

std::string entryListRepr(std::vector<ScheduleEntry>::const_iterator first,
                          std::vector<ScheduleEntry>::const_iterator last) {
  std::string out = "[";
  for (auto it = first; it != last; ++it) out += (it == first ? "" : ", ") + pythonEntryRepr(*it);
  return out + "]";
}

// Rows built by hand must have the shapes the generators give: a single entry holds one task and a
// fused one at least one; a timeline takes no gaps.
void checkEntryShapes(const ScheduleRows& rows, bool gapsAllowed) {
  for (std::size_t r = 0; r < rows.size(); ++r)
    for (std::size_t p = 0; p < rows[r].size(); ++p) {
      const ScheduleEntry& e = rows[r][p];
      const char* problem = nullptr;
      switch (e.kind) {
      case ScheduleEntry::Kind::Gap:
        if (!gapsAllowed)
          problem = "is a gap, and a timeline needs preprocessed rows";
        else if (!e.members.empty())
          problem = "is a gap holding tasks";
        break;
      case ScheduleEntry::Kind::Single:
        if (e.members.size() != 1) problem = "is a single entry that does not hold exactly one task";
        break;
      case ScheduleEntry::Kind::Fused:
        if (e.members.empty()) problem = "is a fused entry without tasks";
        break;
      }
      if (problem)
        throwValueError("schedule entry at rank " + std::to_string(r) + " position " + std::to_string(p) + " " +
                        problem);
    }
}

bool isFirstStageTask(const PipelineTask& t, int first, TaskType type) { return t.stage == first && t.type == type; }

[[noreturn]] void throwUnpairedInputGrad(const std::vector<ScheduleEntry>& items, std::size_t i, int first) {
  std::string names = "[";
  for (std::size_t k = 0; k < items.size(); ++k) names += (k ? ", '" : "'") + entryName(items[k]) + "'";
  names += "]";
  const auto at = items.begin() + static_cast<std::ptrdiff_t>(i);
  throwNotImplemented("TaskType.BWD_I is not followed by TaskType.BWD_W for first_stage " + std::to_string(first) +
                      " at tasks " + std::to_string(i) + " " + entryListRepr(at, std::min(at + 2, items.end())) +
                      ".\n" + names);
}

// jaxpp walks a list pairwise: a fused entry is walked as its own list of single tasks; a
// first-stage BWD_I takes its successor along; the last entry is not looked past. These checks
// walk the same way and raise jaxpp's error on the untouched lists, before anything is merged.
void checkFusedPairs(const ScheduleEntry& group, int first) {
  const auto& ms = group.members;
  for (std::size_t i = 0; i + 1 < ms.size();) {
    if (!isFirstStageTask(ms[i], first, TaskType::BwdI)) {
      ++i;
      continue;
    }
    if (!isFirstStageTask(ms[i + 1], first, TaskType::BwdW)) {
      std::vector<ScheduleEntry> items;
      for (const auto& m : ms) items.push_back(ScheduleEntry::single(m));
      throwUnpairedInputGrad(items, i, first);
    }
    i += 2;
  }
}

void checkRowPairs(const std::vector<ScheduleEntry>& items, int first) {
  std::size_t i = 0;
  while (i + 1 < items.size()) {
    const ScheduleEntry& e = items[i];
    if (e.kind == ScheduleEntry::Kind::Fused) {
      checkFusedPairs(e, first);
      ++i;
    } else if (isFirstStageTask(e.members.front(), first, TaskType::BwdI)) {
      const ScheduleEntry& next = items[i + 1];
      if (next.kind == ScheduleEntry::Kind::Fused || !isFirstStageTask(next.members.front(), first, TaskType::BwdW))
        throwUnpairedInputGrad(items, i, first);
      i += 2;
    } else {
      ++i;
    }
  }
  if (i < items.size() && items[i].kind == ScheduleEntry::Kind::Fused) checkFusedPairs(items[i], first);
}

// Merges a checked fused group in place; one task left makes it a single entry.
void mergeInFused(ScheduleEntry& group, int first) {
  auto& ms = group.members;
  std::size_t out = 0, i = 0;
  while (i + 1 < ms.size()) {
    PipelineTask t = ms[i];
    std::size_t step = 1;
    if (isFirstStageTask(t, first, TaskType::BwdI)) {
      t.latency += ms[i + 1].latency;
      t.merged_bwd_w = true;
      step = 2;
    }
    ms[out++] = t;
    i += step;
  }
  if (i < ms.size()) ms[out++] = ms[i];
  ms.resize(out);
  if (ms.size() == 1) group.kind = ScheduleEntry::Kind::Single;
}

// Merges a checked row (gaps already removed) in place.
void mergeFirstStagePairs(std::vector<ScheduleEntry>& items, int first) {
  checkRowPairs(items, first);
  std::size_t out = 0, i = 0;
  while (i + 1 < items.size()) {
    std::size_t step = 1;
    if (items[i].kind == ScheduleEntry::Kind::Fused) {
      mergeInFused(items[i], first);
    } else if (isFirstStageTask(items[i].members.front(), first, TaskType::BwdI)) {
      PipelineTask& t = items[i].members.front();
      t.latency += items[i + 1].members.front().latency;
      t.merged_bwd_w = true;
      step = 2;
    }
    if (out != i) items[out] = std::move(items[i]);
    ++out;
    i += step;
  }
  if (i < items.size()) {
    if (items[i].kind == ScheduleEntry::Kind::Fused) mergeInFused(items[i], first);
    if (out != i) items[out] = std::move(items[i]);
    ++out;
  }
  items.resize(out);
}

} // namespace

ScheduleRows preprocessSchedule(const ScheduleRows& raw, int first_stage) {
  checkEntryShapes(raw, true);
  ScheduleRows out;
  out.reserve(raw.size());
  for (const auto& row : raw) {
    std::vector<ScheduleEntry> kept;
    kept.reserve(row.size());
    for (const auto& e : row)
      if (!e.isGap()) kept.push_back(e);
    mergeFirstStagePairs(kept, first_stage);
    out.push_back(std::move(kept));
  }
  return out;
}

ScheduleRows preprocessSchedule(ScheduleRows&& raw, int first_stage) {
  checkEntryShapes(raw, true);
  ScheduleRows out = std::move(raw);
  for (auto& row : out) {
    std::erase_if(row, [](const ScheduleEntry& e) { return e.isGap(); });
    mergeFirstStagePairs(row, first_stage);
  }
  return out;
}

// ---------------------------------------------------------------- the list scheduler

namespace {

// The dependency graph of a linear pipeline, with nodes numbered as the golden generator does:
// per microbatch, FWD of stages 0..S-1, then per stage S-1..0 its BWD, or its BWD_I followed by
// its BWD_W (none for stage 0).
struct PipelineGraph {
  std::int64_t stages = 0;
  std::int64_t microbatches = 0;
  bool partial = false;
  std::int64_t perMicrobatch = 0;

  // Dependencies never cross microbatches, so one table of the nodes of a microbatch (by their
  // local number) describes the whole graph without dividing node numbers.
  struct Local {
    TaskType type = TaskType::Fwd;
    int stage = 0;
    int nDeps = 0, nUses = 0;
    std::int32_t deps[2] = {0, 0};
    std::int32_t uses[2] = {0, 0}; // ascending, the order jaxpp's sets were filled in
  };
  std::vector<Local> local;

  PipelineGraph(std::int64_t s, std::int64_t m, bool partialBwd)
      : stages(s), microbatches(std::max<std::int64_t>(m, 0)), partial(partialBwd),
        perMicrobatch(partialBwd ? 3 * s - 1 : 2 * s) {
    local.resize(static_cast<std::size_t>(perMicrobatch));
    for (std::int64_t r = 0; r < perMicrobatch; ++r) {
      Local& n = local[static_cast<std::size_t>(r)];
      decode(r, n.type, n.stage);
      auto dep = [&](std::int64_t x) { n.deps[n.nDeps++] = static_cast<std::int32_t>(x); };
      auto use = [&](std::int64_t x) { n.uses[n.nUses++] = static_cast<std::int32_t>(x); };
      switch (n.type) {
      case TaskType::Fwd:
        if (n.stage > 0) dep(fwd(n.stage - 1));
        if (n.stage + 1 < stages) use(fwd(n.stage + 1));
        use(back(n.stage));
        break;
      case TaskType::Bwd:
      case TaskType::BwdI:
        dep(fwd(n.stage));
        if (n.stage + 1 < stages) dep(back(n.stage + 1));
        if (partial && n.stage != 0) use(weight(n.stage));
        if (n.stage > 0) use(back(n.stage - 1));
        break;
      case TaskType::BwdW:
        dep(back(n.stage));
        break;
      }
    }
  }

  std::int64_t size() const { return microbatches * perMicrobatch; }

  // Local numbers: FWD of stage s, BWD (or BWD_I) of stage s, BWD_W of stage s.
  std::int64_t fwd(std::int64_t s) const { return s; }
  std::int64_t back(std::int64_t s) const {
    if (!partial) return stages + (stages - 1 - s);
    return s == 0 ? 3 * stages - 2 : stages + 2 * (stages - 1 - s);
  }
  std::int64_t weight(std::int64_t s) const { return back(s) + 1; }

  void decode(std::int64_t r, TaskType& type, int& stage) const {
    if (r < stages) {
      type = TaskType::Fwd;
      stage = static_cast<int>(r);
    } else if (!partial) {
      type = TaskType::Bwd;
      stage = static_cast<int>(stages - 1 - (r - stages));
    } else if (r - stages == 2 * (stages - 1)) {
      type = TaskType::BwdI;
      stage = 0;
    } else {
      const std::int64_t q = r - stages;
      type = q % 2 == 0 ? TaskType::BwdI : TaskType::BwdW;
      stage = static_cast<int>(stages - 1 - q / 2);
    }
  }

  // The node of a task and its local number, or -1 when the graph has none (jaxpp's KeyError).
  std::int64_t index(const PipelineTask& t, std::int64_t& localNumber) const {
    if (t.stage < 0 || t.stage >= stages || t.microbatch < 0 || t.microbatch >= microbatches) return -1;
    switch (t.type) {
    case TaskType::Fwd:
      localNumber = fwd(t.stage);
      break;
    case TaskType::Bwd:
      if (partial) return -1;
      localNumber = back(t.stage);
      break;
    case TaskType::BwdI:
      if (!partial) return -1;
      localNumber = back(t.stage);
      break;
    case TaskType::BwdW:
      if (!partial || t.stage == 0) return -1;
      localNumber = weight(t.stage);
      break;
    }
    return t.microbatch * perMicrobatch + localNumber;
  }
  std::int64_t index(const PipelineTask& t) const {
    std::int64_t unused = 0;
    return index(t, unused);
  }

  PipelineTask task(std::int64_t idx) const {
    PipelineTask t;
    t.microbatch = static_cast<int>(idx / perMicrobatch);
    decode(idx % perMicrobatch, t.type, t.stage);
    t.latency = defaultTaskLatency(t.type);
    return t;
  }

  // Direct users of node `base + r`, in the order a Python set of these ints iterates (jaxpp
  // walks a set; the order decides which KeyError a repeated task raises).
  int uses(std::int64_t base, std::int64_t r, std::int64_t out[2]) const {
    const Local& n = local[static_cast<std::size_t>(r)];
    for (int j = 0; j < n.nUses; ++j) out[j] = base + n.uses[j];
    if (n.nUses == 2 && !pythonSetKeepsOrder(out[0], out[1])) std::swap(out[0], out[1]);
    return n.nUses;
  }

  // CPython's 8-slot set table: `a` is inserted first at slot a & 7; `b` probes from b & 7 with
  // the perturbation step (linear probing is off in a table this small). Iteration goes by slot.
  static bool pythonSetKeepsOrder(std::int64_t a, std::int64_t b) {
    const std::uint64_t slotA = static_cast<std::uint64_t>(a) & 7U;
    std::uint64_t perturb = static_cast<std::uint64_t>(b);
    std::uint64_t i = perturb & 7U;
    while (i == slotA) {
      perturb >>= 5;
      i = (i * 5 + 1 + perturb) & 7U;
    }
    return slotA < i;
  }
};

std::string pyList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + items[i];
  return out + "]";
}

double checkedLatency(double v, TaskType type, int stage) {
  if (!std::isfinite(v) || v < 0)
    throwValueError("latency of " + std::string(taskTypeName(type)) + " on stage " + std::to_string(stage) +
                    " must be a finite number >= 0");
  return v;
}

class ListScheduler {
public:
  ListScheduler(const PipelineGraph& graph, const ScheduleRows& rows, const TaskLatencyFn& model,
                const PipelineScheduleSpec& spec)
      : graph_(graph), rows_(rows), ranks_(rows.size()), model_(model), spec_(spec) {}

  // Appends the scheduled units to `out` in scheduling order.
  void run(PipelineTimeline& out) {
    setUp(out);
    while (remaining_ > 0) {
      const int chosen = examineAll_ ? pickByFullScan() : pickCached();
      if (chosen < 0) throwDeadlock();
      execute(chosen, out);
    }
    for (std::size_t r = 0; r < ranks_; ++r) {
      if (cursor_[r] == rows_[r].size()) continue;
      throwAssertion("Loop tasks have ended but schedule contains other tasks. " +
                     entryListRepr(rows_[r].begin() + static_cast<std::ptrdiff_t>(cursor_[r]), rows_[r].end()));
    }
  }

private:
  const PipelineGraph& graph_;
  const ScheduleRows& rows_;
  std::size_t ranks_;
  const TaskLatencyFn& model_;
  const PipelineScheduleSpec& spec_;
  // Latencies of the graph's nodes, only for messages: built on first use.
  mutable std::vector<double> nodeLatency_;

  // Per node: which of its (at most two) dependencies are still unmet, whether it has run, and its
  // ready time once known.
  std::vector<std::uint8_t> unmet_, done_, hasReady_;
  std::vector<double> ready_;
  std::int64_t remaining_ = 0;
  // Where each node sits in the schedule (its only place when examineAll_ is false).
  std::vector<std::int32_t> placeRank_, placePos_;
  // jaxpp re-examines every rank each step. That is needed only when a task is repeated or
  // unknown (its errors depend on it); otherwise a rank's proposal changes only when its cursor
  // moves or a dependency of its next unit completes, so proposals are cached.
  bool examineAll_ = false;

  std::vector<std::size_t> cursor_;
  std::vector<double> time_;
  std::vector<std::uint8_t> proposes_, dirty_;
  std::vector<double> proposal_;
  std::vector<int> dirtyList_;
  std::vector<std::int64_t> satisfied_; // members of the examined unit already found ready
  // A tournament tree over ranks: the smallest proposal, ties to the lower rank.
  std::size_t leaves_ = 1;
  std::vector<int> tree_;

  void setUp(PipelineTimeline& out) {
    const std::int64_t n = graph_.size();
    const auto un = static_cast<std::size_t>(n);
    unmet_.assign(un, 0);
    done_.assign(un, 0);
    hasReady_.assign(un, 0);
    ready_.assign(un, 0.0);
    placeRank_.assign(un, -1);
    placePos_.assign(un, -1);
    std::size_t units = 0, members = 0;
    for (const auto& row : rows_) {
      units += row.size();
      for (const auto& e : row) members += e.members.size();
    }
    out.events.reserve(units);
    out.tasks.reserve(members);
    remaining_ = n;
    for (std::int64_t base = 0; base < n; base += graph_.perMicrobatch)
      for (const auto& node : graph_.local) {
        const auto i = static_cast<std::size_t>(base + (&node - graph_.local.data()));
        unmet_[i] = static_cast<std::uint8_t>((1U << node.nDeps) - 1U);
        if (node.nDeps == 0) hasReady_[i] = 1; // ready at time 0
      }
    for (std::size_t r = 0; r < ranks_; ++r)
      for (std::size_t p = 0; p < rows_[r].size(); ++p) {
        const ScheduleEntry& e = rows_[r][p];
        for (const auto& t : e.members) {
          const std::int64_t idx = graph_.index(t);
          if (idx < 0) {
            examineAll_ = true;
            continue;
          }
          const auto u = static_cast<std::size_t>(idx);
          if (placeRank_[u] >= 0) examineAll_ = true;
          placeRank_[u] = static_cast<std::int32_t>(r);
          placePos_[u] = static_cast<std::int32_t>(p);
        }
      }
    cursor_.assign(ranks_, 0);
    time_.assign(ranks_, 0.0);
    proposes_.assign(ranks_, 0);
    proposal_.assign(ranks_, 0.0);
    dirty_.assign(ranks_, 1);
    dirtyList_.resize(ranks_);
    std::iota(dirtyList_.begin(), dirtyList_.end(), 0);
    while (leaves_ < std::max<std::size_t>(ranks_, 1)) leaves_ *= 2;
    tree_.assign(2 * leaves_, -1);
  }

  // jaxpp's readiness test of a rank's next unit, with its side effect: a member whose unmet
  // dependencies are all earlier members of the unit gets the latest of their ready times.
  // Returns whether the unit can start, and its start in `start`.
  bool examine(std::size_t r, double& start) {
    if (cursor_[r] >= rows_[r].size()) return false;
    const ScheduleEntry& e = rows_[r][cursor_[r]];
    satisfied_.clear();
    auto isSatisfied = [&](std::int64_t x) {
      return std::find(satisfied_.begin(), satisfied_.end(), x) != satisfied_.end();
    };
    for (const auto& t : e.members) {
      std::int64_t localNo = 0;
      const std::int64_t idx = graph_.index(t, localNo);
      if (idx < 0) throw Error(ErrorKind::KeyError, pythonTaskRepr(t));
      const auto u = static_cast<std::size_t>(idx);
      const PipelineGraph::Local& node = graph_.local[static_cast<std::size_t>(localNo)];
      const int k = done_[u] ? 0 : node.nDeps;
      bool anyUnmet = false;
      double latest = 0;
      for (int j = 0; j < k; ++j) {
        if (!(unmet_[u] & (1U << j))) continue;
        const std::int64_t dep = idx - localNo + node.deps[j];
        if (!isSatisfied(dep)) return false;
        const auto du = static_cast<std::size_t>(dep);
        if (!hasReady_[du]) throw Error(ErrorKind::KeyError, pythonTaskRepr(nodeTask(dep)));
        latest = anyUnmet ? std::max(latest, ready_[du]) : ready_[du];
        anyUnmet = true;
      }
      if (anyUnmet) {
        ready_[u] = latest;
        hasReady_[u] = 1;
      }
      if (!hasReady_[u]) throwAssertion("");
      satisfied_.push_back(idx);
    }
    start = time_[r];
    for (const auto& t : e.members) start = std::max(start, ready_[static_cast<std::size_t>(graph_.index(t))]);
    return true;
  }

  int pickByFullScan() {
    int best = -1;
    double bestStart = 0;
    for (std::size_t r = 0; r < ranks_; ++r) {
      double start = 0;
      if (!examine(r, start)) continue;
      if (best < 0 || start < bestStart) {
        best = static_cast<int>(r);
        bestStart = start;
      }
    }
    if (best >= 0) proposal_[static_cast<std::size_t>(best)] = bestStart;
    return best;
  }

  bool better(int a, int b) const {
    if (a < 0) return false;
    if (b < 0) return true;
    const double pa = proposal_[static_cast<std::size_t>(a)], pb = proposal_[static_cast<std::size_t>(b)];
    return pa < pb || (pa == pb && a < b);
  }

  void setLeaf(std::size_t r) {
    std::size_t pos = leaves_ + r;
    tree_[pos] = proposes_[r] ? static_cast<int>(r) : -1;
    for (pos /= 2; pos >= 1; pos /= 2) {
      const int a = tree_[2 * pos], b = tree_[2 * pos + 1];
      tree_[pos] = better(a, b) ? a : b;
    }
  }

  int pickCached() {
    for (int r : dirtyList_) {
      const auto ur = static_cast<std::size_t>(r);
      dirty_[ur] = 0;
      double start = 0;
      proposes_[ur] = examine(ur, start) ? 1 : 0;
      proposal_[ur] = start;
      setLeaf(ur);
    }
    dirtyList_.clear();
    return tree_[1];
  }

  void markDirty(std::size_t r) {
    if (examineAll_ || dirty_[r]) return;
    dirty_[r] = 1;
    dirtyList_.push_back(static_cast<int>(r));
  }

  // A node as the messages print it: with the latency the schedule gives it, else the model's
  // (or jaxpp's default).
  PipelineTask nodeTask(std::int64_t idx) const {
    if (nodeLatency_.empty()) {
      nodeLatency_.resize(static_cast<std::size_t>(graph_.size()));
      for (std::int64_t i = 0; i < graph_.size(); ++i) {
        const PipelineTask t = graph_.task(i);
        nodeLatency_[static_cast<std::size_t>(i)] = model_ ? model_(t.type, t.stage) : t.latency;
      }
      for (const auto& row : rows_)
        for (const auto& e : row)
          for (const auto& t : e.members)
            if (const std::int64_t n = graph_.index(t); n >= 0) nodeLatency_[static_cast<std::size_t>(n)] = t.latency;
    }
    PipelineTask t = graph_.task(idx);
    t.latency = nodeLatency_[static_cast<std::size_t>(idx)];
    return t;
  }

  void execute(int chosen, PipelineTimeline& out) {
    const auto r = static_cast<std::size_t>(chosen);
    const ScheduleEntry& e = rows_[r][cursor_[r]];
    const double start = proposal_[r];
    double end = start;
    for (const auto& t : e.members) {
      std::int64_t r0 = 0;
      const std::int64_t idx = graph_.index(t, r0);
      const std::int64_t base = idx - r0;
      const auto u = static_cast<std::size_t>(idx);
      if (!done_[u]) {
        done_[u] = 1;
        --remaining_;
      }
      // The running end: a user whose last dependency completes here is ready from this point,
      // even if later members of the unit are still running (jaxpp's FIXME).
      end += t.latency;
      std::int64_t users[2];
      const int nu = graph_.uses(base, r0, users);
      for (int j = 0; j < nu; ++j) {
        const auto v = static_cast<std::size_t>(users[j]);
        if (done_[v]) throw Error(ErrorKind::KeyError, std::to_string(users[j]));
        const PipelineGraph::Local& user = graph_.local[static_cast<std::size_t>(users[j] - base)];
        int bit = -1;
        for (int q = 0; q < user.nDeps; ++q)
          if (base + user.deps[q] == idx) bit = q;
        if (bit < 0 || !(unmet_[v] & (1U << bit))) throw Error(ErrorKind::KeyError, std::to_string(idx));
        unmet_[v] = static_cast<std::uint8_t>(unmet_[v] & ~(1U << bit));
        if (unmet_[v] == 0 && !hasReady_[v]) {
          ready_[v] = end;
          hasReady_[v] = 1;
        }
        const std::int32_t owner = placeRank_[v];
        if (owner >= 0 && static_cast<std::size_t>(placePos_[v]) == cursor_[static_cast<std::size_t>(owner)])
          markDirty(static_cast<std::size_t>(owner));
      }
    }
    TimelineEvent ev;
    ev.rank = e.members.empty() ? chosen : stageToRank(spec_, e.members.front().stage);
    ev.start = start;
    ev.end = end;
    ev.first_task = static_cast<std::uint32_t>(out.tasks.size());
    ev.task_count = static_cast<std::uint32_t>(e.members.size());
    out.tasks.insert(out.tasks.end(), e.members.begin(), e.members.end());
    out.events.push_back(ev);
    out.makespan = std::max(out.makespan, end);
    ++cursor_[r];
    time_[r] = end;
    markDirty(r);
  }

  [[noreturn]] void throwDeadlock() const {
    std::vector<std::string> available;
    for (std::int64_t i = 0; i < graph_.size(); ++i) {
      const auto u = static_cast<std::size_t>(i);
      if (!done_[u] && unmet_[u] == 0) available.push_back(pythonTaskRepr(nodeTask(i)));
    }
    std::string positions = "{";
    bool firstPos = true;
    for (std::size_t r = 0; r < ranks_; ++r) {
      if (cursor_[r] >= rows_[r].size()) continue;
      positions += (firstPos ? "" : ", ") + std::to_string(r) + ": (" + std::to_string(cursor_[r]) + ", " +
                   pythonEntryRepr(rows_[r][cursor_[r]]) + ")";
      firstPos = false;
    }
    positions += "}";
    throwAssertion("Schedule does not honor data dependencies.\nTasks available for scheduling " + pyList(available) +
                   ".\nCurrent position in schedule for ranks " + positions + ".");
  }
};

} // namespace

PipelineTimeline simulateTimeline(const PipelineScheduleSpec& spec, std::int64_t num_microbatches,
                                  const ScheduleRows& preprocessed, const TaskLatencyFn& latency) {
  validatePipelineSchedule(spec);
  pipeline_detail::checkPipelineBounds(spec, num_microbatches);
  checkEntryShapes(preprocessed, false);
  const PipelineGraph graph(spec.num_stages, num_microbatches, isPartialBwd(spec.kind));

  // With a latency model every task is re-costed; a merged stage-0 BWD_I pays for both halves.
  ScheduleRows costed;
  const ScheduleRows* rows = &preprocessed;
  if (latency) {
    costed = preprocessed;
    for (auto& row : costed)
      for (auto& e : row)
        for (auto& t : e.members) {
          t.latency = checkedLatency(latency(t.type, t.stage), t.type, t.stage);
          if (t.merged_bwd_w) t.latency += checkedLatency(latency(TaskType::BwdW, t.stage), TaskType::BwdW, t.stage);
        }
    rows = &costed;
  }

  PipelineTimeline out;
  ListScheduler(graph, *rows, latency, spec).run(out);
  // jaxpp sorts by (start, end); the sort is stable, so ties keep the scheduling order.
  std::stable_sort(out.events.begin(), out.events.end(), [](const TimelineEvent& a, const TimelineEvent& b) {
    return a.start != b.start ? a.start < b.start : a.end < b.end;
  });
  return out;
}

std::vector<PipelineTask> taskDependencies(const PipelineTask& task, std::int64_t num_stages, bool partial_bwd) {
  std::vector<PipelineTask> out;
  const TaskType back = partial_bwd ? TaskType::BwdI : TaskType::Bwd;
  auto add = [&](TaskType type, int stage) { out.push_back({type, task.microbatch, stage, 0.0, false}); };
  switch (task.type) {
  case TaskType::Fwd:
    if (task.stage > 0) add(TaskType::Fwd, task.stage - 1);
    break;
  case TaskType::Bwd:
  case TaskType::BwdI:
    add(TaskType::Fwd, task.stage);
    if (task.stage + 1 < num_stages) add(back, task.stage + 1);
    break;
  case TaskType::BwdW:
    add(TaskType::BwdI, task.stage);
    break;
  }
  return out;
}

// ---------------------------------------------------------------- metrics

PipelineMetrics pipelineMetrics(const PipelineTimeline& timeline, int rank_count) {
  PipelineMetrics m;
  const auto ranks = static_cast<std::size_t>(std::max(rank_count, 0));
  m.makespan = timeline.makespan;
  m.busy.assign(ranks, 0.0);
  m.bubble.assign(ranks, 0.0);
  m.peak_in_flight.assign(ranks, 0);

  // How many backward pieces each (stage, microbatch) has, to know which one is the last.
  int maxStage = -1, maxMb = -1;
  for (const auto& t : timeline.tasks) {
    maxStage = std::max(maxStage, t.stage);
    maxMb = std::max(maxMb, t.microbatch);
  }
  const std::size_t width = static_cast<std::size_t>(maxMb + 1);
  std::vector<int> piecesLeft(static_cast<std::size_t>(maxStage + 1) * width, 0);
  auto key = [&](const PipelineTask& t) {
    return static_cast<std::size_t>(t.stage) * width + static_cast<std::size_t>(t.microbatch);
  };
  for (const auto& t : timeline.tasks)
    if (t.type != TaskType::Fwd && t.stage >= 0 && t.microbatch >= 0) ++piecesLeft[key(t)];

  // Events of one rank never overlap, and their order by start is their order on the rank.
  std::vector<int> held(ranks, 0);
  for (const auto& ev : timeline.events) {
    if (ev.rank < 0 || static_cast<std::size_t>(ev.rank) >= ranks) continue;
    const auto r = static_cast<std::size_t>(ev.rank);
    m.busy[r] += ev.end - ev.start;
    for (const auto& t : timeline.members(ev)) {
      if (t.stage < 0 || t.microbatch < 0) continue;
      if (t.type == TaskType::Fwd) {
        m.peak_in_flight[r] = std::max(m.peak_in_flight[r], ++held[r]);
      } else if (--piecesLeft[key(t)] == 0) {
        --held[r];
      }
    }
  }
  double sum = 0;
  for (std::size_t r = 0; r < ranks; ++r) {
    m.bubble[r] = m.makespan > 0 ? 1.0 - m.busy[r] / m.makespan : 0.0;
    sum += m.bubble[r];
  }
  m.bubble_overall = ranks ? sum / static_cast<double>(ranks) : 0.0;
  return m;
}

} // namespace shardscope
