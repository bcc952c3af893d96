// SPDX-License-Identifier: Apache-2.0
// Task and schedule vocabulary, jaxpp's constructor checks, stage placement and the Python reprs
// that jaxpp's messages embed.
#include "shardscope/pipeline/pipeline_schedule.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace shardscope {

std::string_view taskTypeName(TaskType type) { return nameOf(type, kTaskTypeNames); }

std::optional<TaskType> parseTaskType(std::string_view name) { return parseName(name, kTaskTypeNames); }

double defaultTaskLatency(TaskType type) { return type == TaskType::Bwd ? 2.0 : 1.0; }

bool sameTask(const PipelineTask& a, const PipelineTask& b) {
  return a.type == b.type && a.microbatch == b.microbatch && a.stage == b.stage;
}

double ScheduleEntry::latency() const {
  double sum = 0;
  for (const auto& t : members) sum += t.latency;
  return sum;
}

namespace {

struct KindName {
  PipelineScheduleKind kind;
  std::string_view name;
};

constexpr KindName kKindNames[] = {
    {PipelineScheduleKind::GPipe, "GPipe"},
    {PipelineScheduleKind::Std1F1B, "Std1F1B"},
    {PipelineScheduleKind::Eager1F1B, "Eager1F1B"},
    {PipelineScheduleKind::ZeroBubble, "ZeroBubble"},
    {PipelineScheduleKind::Interleaved1F1B, "Interleaved1F1B"},
    {PipelineScheduleKind::KimiK2, "KimiK2"},
    {PipelineScheduleKind::DualPipeV, "DualPipeV"},
    {PipelineScheduleKind::InterleavedGPipe, "InterleavedGPipe"},
};

std::string str(std::int64_t v) { return std::to_string(v); }

} // namespace

std::string_view pipelineScheduleKindName(PipelineScheduleKind kind) {
  for (const auto& k : kKindNames)
    if (k.kind == kind) return k.name;
  return "Std1F1B";
}

std::optional<PipelineScheduleKind> parsePipelineScheduleKind(std::string_view name) {
  for (const auto& k : kKindNames)
    if (k.name == name) return k.kind;
  return std::nullopt;
}

const std::vector<PipelineScheduleKind>& allPipelineScheduleKinds() {
  static const std::vector<PipelineScheduleKind> kinds = [] {
    std::vector<PipelineScheduleKind> out;
    for (const auto& k : kKindNames) out.push_back(k.kind);
    return out;
  }();
  return kinds;
}

bool takesMpmdDim(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::Interleaved1F1B || kind == PipelineScheduleKind::KimiK2 ||
         kind == PipelineScheduleKind::DualPipeV || kind == PipelineScheduleKind::InterleavedGPipe;
}

bool takesFuseSteadyState(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::Interleaved1F1B || kind == PipelineScheduleKind::KimiK2;
}

bool isPartialBwd(PipelineScheduleKind kind) {
  return kind == PipelineScheduleKind::ZeroBubble || kind == PipelineScheduleKind::DualPipeV;
}

bool isExportedByJaxpp(PipelineScheduleKind kind) { return kind != PipelineScheduleKind::InterleavedGPipe; }

void validatePipelineSchedule(const PipelineScheduleSpec& spec) {
  const std::int64_t s = spec.num_stages;
  // jaxpp's text says ">= 0" although zero is rejected too.
  if (s <= 0) throwValueError("The argument `num_stages` must be `>= 0`");
  if (takesMpmdDim(spec.kind)) {
    if (!spec.mpmd_dim) throwValueError("mpmd_dim is required for " + std::string(pipelineScheduleKindName(spec.kind)));
    const std::int64_t d = *spec.mpmd_dim;
    if (d <= 0) throwValueError("The argument `mpmd_dim` must be `>= 0`");
    if (s % d != 0)
      throwValueError("self.num_stages=" + str(s) + " can not be evenly divided by self.mpmd_dim=" + str(d) +
                      ". Remainder: divmod(self.num_stages, self.mpmd_dim)=(" + str(s / d) + ", " + str(s % d) + ")");
    if (spec.kind == PipelineScheduleKind::DualPipeV && s / d != 2)
      throwValueError("DualPipeV only supports 2 * mpmd_dim stages, self.num_stages=" + str(s) +
                      " requested with self.mpmd_dim=" + str(d));
  }
}

int pipelineRankCount(const PipelineScheduleSpec& spec) {
  if (takesMpmdDim(spec.kind) && spec.mpmd_dim) return static_cast<int>(*spec.mpmd_dim);
  return static_cast<int>(spec.num_stages);
}

int stageToRank(const PipelineScheduleSpec& spec, int stage) {
  if (!takesMpmdDim(spec.kind) || !spec.mpmd_dim || *spec.mpmd_dim <= 0) return stage;
  const int d = static_cast<int>(*spec.mpmd_dim);
  // Python's divmod floors; stages are never negative here, but keep the floor semantics.
  int q = stage / d, r = stage % d;
  if (r < 0) {
    r += d;
    --q;
  }
  if (spec.kind != PipelineScheduleKind::DualPipeV) return r;
  return q % 2 == 0 ? r : (d - 1) - r; // the V: the second half of the stages walks back
}

std::vector<int> stageToRankTable(const PipelineScheduleSpec& spec) {
  std::vector<int> out;
  out.reserve(static_cast<std::size_t>(std::max<std::int64_t>(spec.num_stages, 0)));
  for (int s = 0; s < spec.num_stages; ++s) out.push_back(stageToRank(spec, s));
  return out;
}

namespace {

// Python's repr of a number that is an int in jaxpp (latencies are ints there); a non-integral
// latency from a caller's model prints as the shortest round-trip decimal.
std::string pythonNumber(double v) {
  if (std::isfinite(v) && std::floor(v) == v && std::fabs(v) < 9.0e15) return str(static_cast<std::int64_t>(v));
  char buf[64];
  auto res = std::to_chars(buf, buf + sizeof buf, v);
  return std::string(buf, res.ptr);
}

} // namespace

std::string pythonTaskRepr(const PipelineTask& task) {
  return "Task(stage_id=" + str(task.stage) + ", mubatch_idx=" + str(task.microbatch) + ", fwd_or_bwd=TaskType." +
         std::string(taskTypeName(task.type)) + ", latency=" + pythonNumber(task.latency) + ")";
}

std::string pythonEntryRepr(const ScheduleEntry& entry) {
  switch (entry.kind) {
  case ScheduleEntry::Kind::Gap:
    return "None";
  case ScheduleEntry::Kind::Single:
    return pythonTaskRepr(entry.members.front());
  case ScheduleEntry::Kind::Fused:
    break;
  }
  // FusedTask is a tuple subclass without its own repr.
  std::string out = "(";
  for (std::size_t i = 0; i < entry.members.size(); ++i) {
    if (i) out += ", ";
    out += pythonTaskRepr(entry.members[i]);
  }
  if (entry.members.size() == 1) out += ",";
  return out + ")";
}

std::string jaxppTaskName(const PipelineTask& task) {
  std::string_view prefix = "fwd_";
  switch (task.type) {
  case TaskType::Fwd:
    prefix = "fwd_";
    break;
  case TaskType::Bwd:
    prefix = "bwd_";
    break;
  case TaskType::BwdI:
    prefix = "bwdA_";
    break;
  case TaskType::BwdW:
    prefix = "bwdW_";
    break;
  }
  return std::string(prefix) + str(task.stage) + "__" + str(task.microbatch);
}

} // namespace shardscope
