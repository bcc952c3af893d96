// SPDX-License-Identifier: Apache-2.0
// The step in one sentence: how long, what MFU, what bounds it and the one change most likely to
// move it, taken from the critical checks when one fails ("tp = 16 exceeds 2·F/2550 = 11: try
// tp = 8").
#include "step_internal.hpp"

#include "shardscope/base/units.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <sstream>
#include <string_view>

namespace shardscope::step {

namespace {

std::string whole(double x) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(0) << x;
  return o.str();
}

// Each collective purpose (StepCollective::purpose) in words: what the verdict calls the
// collectives, and what they carry (payloadOf, the Play legend).
struct PurposeWords {
  std::string_view purpose, collectives, payload;
};
constexpr PurposeWords kPurposeWords[] = {
    {"fsdp_weights", "weight all-gathers", "weight shards"},
    {"fsdp_grads", "gradient reduce-scatters", "gradient shards"},
    {"dp_grads", "gradient all-reduces", "gradients"},
    {"zero_grads", "ZeRO gradient and weight collectives", "gradient shards"},
    {"zero_weights", "ZeRO gradient and weight collectives", "weight shards"},
    {"tp_activations", "tensor-parallel activation collectives", "activations"},
    {"ep_tokens", "expert all-to-alls", "tokens to and from their experts"},
    {"ep_combine", "expert combine all-reduces", "the experts' outputs"},
    {"cp_kv", "context-parallel key/value exchange", "keys and values"},
    {"cp_kv_ring", "ring attention's key/value passes", "keys and values, chip to chip round the ring"},
};

const PurposeWords* wordsOf(const std::string& purpose) {
  for (const auto& w : kPurposeWords)
    if (w.purpose == purpose) return &w;
  return nullptr;
}

std::string describe(const std::string& purpose) {
  const PurposeWords* w = wordsOf(purpose);
  return w ? std::string(w->collectives) : purpose;
}

// The largest divisor of `size` not above `limit` (the mesh must still multiply out).
std::int64_t fittingDivisor(std::int64_t size, double limit) {
  for (std::int64_t d = std::min<std::int64_t>(size, static_cast<std::int64_t>(std::floor(limit))); d > 1; --d)
    if (size % d == 0) return d;
  return 1;
}

} // namespace

namespace {

// What would move the exposed communication of one axis, from its checks and its main collective.
void adviseAxis(std::ostringstream& s, const StepEstimate& e, const StepAxis& axis, const StepCollective* main,
                const StepOptions& o) {
  const StepCritical* check = nullptr;
  for (const auto& c : e.critical)
    if (c.axis == axis.axis) check = &c;
  const std::string purpose = main ? main->purpose : std::string();
  const std::string& name = axis.axis;
  if (check && check->role == StepCritical::Role::Tensor && !check->ok) {
    const double perAxis = check->flops_per_byte * check->physical_axes;
    const std::int64_t better = fittingDivisor(check->size, check->limit);
    s << name << " = " << check->size << " exceeds "
      << (check->physical_axes > 1 ? std::to_string(check->physical_axes) + "·" : std::string()) << "F/"
      << whole(perAxis) << " = " << whole(std::floor(check->limit)) << " (F = " << whole(check->ffn) << "): ";
    if (better > 1)
      s << "try " << name << " = " << better;
    else
      s << "fold " << name << " into the batch axes";
  } else if (check && check->role == StepCritical::Role::Batch && !check->ok) {
    const double need =
        std::ceil(static_cast<double>(o.micro_batch) * check->flops_per_byte / std::max(1.0, check->tokens_per_device));
    s << whole(check->tokens_per_device) << " tokens per device is below C/W = " << whole(check->flops_per_byte)
      << ": raise micro_batch to " << whole(need) << " or shrink " << name;
  } else if (purpose == "tp_activations") {
    s << "they sit on the critical path; overlap them with the matmuls (performance.overlap_tensor_comm) or lower "
      << name;
  } else if (purpose == "ep_tokens" || purpose == "ep_combine") {
    s << "they sit on the critical path; keep " << name << " on fast links or lower it";
  } else if (purpose == "cp_kv") {
    s << "they sit on the critical path; split the sequence over fewer devices";
  } else {
    s << "more tokens per device (micro_batch) or faster links for " << name << " would hide them";
  }
}

} // namespace

namespace {

// What lowers memory, for a layout over its HBM by `excess` bytes: never an edit that raises it.
std::string outOfMemoryAdvice(const StepOptions& o, double excess) {
  std::vector<std::string> edits;
  if (o.micro_batch > 1)
    edits.push_back("a smaller micro_batch with more gradient accumulation steps (the same global batch, fewer "
                    "activations held at once)");
  if (o.recompute != Recompute::Full) edits.push_back("a heavier remat policy (full keeps only each layer's input)");
  if (o.zero_stage < 1)
    edits.push_back("sharding the optimizer state over the batch axes (ZeRO-1)");
  else if (o.zero_stage < 3)
    edits.push_back("sharding the parameters too (ZeRO-3, fsdp)");
  std::string text = "the fullest device needs " + formatBytes(excess) + " more than its HBM; first make it fit";
  if (!edits.empty()) {
    text += ": ";
    for (std::size_t i = 0; i < edits.size(); ++i)
      text += (i == 0 ? "" : i + 1 == edits.size() ? " or " : ", ") + edits[i];
  }
  return text + " (Suggest ranks the smallest edits that fit)";
}

// The axis whose exposed communication costs the most, and its main collective (null when no
// communication is exposed).
struct WorstAxis {
  const StepAxis* axis = nullptr;
  const StepCollective* main = nullptr;
};

WorstAxis worstAxisOf(const StepEstimate& e) {
  WorstAxis w;
  for (const auto& a : e.per_axis)
    if (a.exposed > 0 && (!w.axis || a.exposed > w.axis->exposed)) w.axis = &a;
  if (w.axis)
    for (const auto& c : w.axis->collectives)
      if (!w.main || c.seconds > w.main->seconds) w.main = &c;
  return w;
}

// "the tp all-gathers of activations (open rings, across hosts)": an axis' exposed collectives.
std::string axisPhrase(const StepEstimate& e, const StepInputs& in, const WorstAxis& w) {
  std::string text = "the " + w.axis->axis + " " + (w.main ? describe(w.main->purpose) : std::string("collectives"));
  const auto index = static_cast<std::size_t>(w.axis - e.per_axis.data());
  if (index < in.axes.size()) {
    const auto& r = in.axes[index];
    if (r.crosses_slices || r.uses_fabric)
      text += std::string(" (over ") + (r.crosses_slices ? "DCN" : "the network") + ")";
    else if (!r.ring_closed && !r.wraps)
      text += std::string(" (open rings") + (r.crosses_hosts ? ", across hosts" : "") + ")";
    else if (r.crosses_hosts)
      text += " (across hosts)";
  }
  return text;
}

// What the HBM-bound time is mostly spent on, and what would move it.
std::string hbmAdvice(const StepEstimate& e) {
  const double elementwise = e.elementwise_s, optimizer = e.optimizer_s;
  const double weights = e.hbm_weights_s, activations = e.hbm_activations_s;
  const double largest = std::max({elementwise, optimizer, weights, activations});
  if (largest == weights)
    return "too few tokens per device to reuse each weight it reads (" + formatSeconds(weights) +
           "); raise micro_batch";
  if (largest == activations)
    return "its matmuls are split too narrow to reuse their activations (" + formatSeconds(activations) +
           "); split the weights fewer ways";
  if (largest == optimizer)
    return "the optimizer update reads and writes every state each step (" + formatSeconds(optimizer) +
           "); accumulate more micro-batches per step or shard the optimizer state";
  return "the elementwise work between the matmuls (norms, residual adds, activations, the loss: " +
         formatSeconds(elementwise) +
         ") moves its bytes at HBM speed and grows with the tokens; a lighter remat "
         "policy re-runs less of it";
}

} // namespace

std::string boundPhrase(const StepEstimate& e, const StepInputs& in) {
  const WorstAxis worst = worstAxisOf(e);
  if (e.bound_by.part == StepPart::Comm && worst.axis) return axisPhrase(e, in, worst);
  return e.bound_by.part == StepPart::Hbm ? "HBM bandwidth" : "compute";
}

std::string summarize(const StepEstimate& e, const StepInputs& in, const StepOptions& o,
                      const std::vector<std::string>& idleAxes) {
  std::ostringstream s;
  s << "bound by " << e.bound_phrase;
  const WorstAxis worst = worstAxisOf(e);
  const bool commBound = e.bound_by.part == StepPart::Comm && worst.axis;
  const bool commMatters = worst.axis && worst.axis->exposed >= 0.05 * e.time_s;
  // Replicas without a sequence of their own compute padding: that, not the links, is the fix.
  std::int64_t replicas = 1;
  const Shape shape = in.mesh->shape();
  for (std::size_t a = 0; a < shape.size() && a < in.mesh->axis_names.size(); ++a)
    if (std::find(o.batch_axes.begin(), o.batch_axes.end(), in.mesh->axis_names[a]) != o.batch_axes.end())
      replicas *= shape[a];
  const bool padded = replicas > o.micro_batch;
  // An axis that repeats the work (a mesh edit that left the batch axes behind): every figure is off
  // by its size, the memory's included, until the batch or a weight is split over it.
  if (!idleAxes.empty()) {
    std::string axes;
    for (std::size_t i = 0; i < idleAxes.size(); ++i)
      axes += (i == 0 ? "" : i + 1 == idleAxes.size() ? " and " : ", ") + idleAxes[i];
    s << "; but " << axes << " split" << (idleAxes.size() == 1 ? "s" : "")
      << " neither the batch nor any weight, so every device along " << (idleAxes.size() == 1 ? "it" : "them")
      << " repeats the same work: add " << (idleAxes.size() == 1 ? "it" : "them")
      << " to training.batch_axes (the Workload dock's Batch axes) or shard weights over "
      << (idleAxes.size() == 1 ? "it" : "them") << " first";
    if (o.memory_excess_bytes) s << " (the layout is also " << formatBytes(*o.memory_excess_bytes) << " over its HBM)";
    s << ".";
    return s.str();
  }
  if (o.memory_excess_bytes) {
    s << "; but the layout does not fit: " << outOfMemoryAdvice(o, *o.memory_excess_bytes) << ".";
    return s.str();
  }
  if (padded && e.bound_by.part == StepPart::Compute) {
    s << ", but only " << o.micro_batch << " of the " << replicas
      << " batch replicas have a sequence (the rest compute padding): raise micro_batch to " << replicas << ".";
    return s.str();
  }
  if (commBound) {
    s << ": ";
    adviseAxis(s, e, *worst.axis, worst.main, o);
  } else {
    if (e.bound_by.part == StepPart::Hbm) s << ": " << hbmAdvice(e);
    if (commMatters) {
      s << "; " << axisPhrase(e, in, worst) << " add " << formatPercent(worst.axis->exposed / e.time_s) << " on top: ";
      adviseAxis(s, e, *worst.axis, worst.main, o);
    } else if (e.bound_by.part != StepPart::Hbm) {
      s << ": communication hides behind it; ";
      if (o.recompute == Recompute::Full && e.hardware_flops > 0)
        s << "full recompute re-runs " << formatPercent(e.recompute_flops / e.hardware_flops)
          << " of the FLOPs: selective recompute would save most of that if memory allows";
      else
        s << "only fewer FLOPs or more chips would move it";
    }
  }
  if (padded)
    s << "; only " << o.micro_batch << " of the " << replicas
      << " batch replicas have a sequence (the rest compute padding)";
  s << ".";
  return s.str();
}

} // namespace shardscope::step

namespace shardscope {

std::string payloadOf(const std::string& purpose) {
  const step::PurposeWords* w = step::wordsOf(purpose);
  return w ? std::string(w->payload) : purpose;
}

std::string collectiveLabel(Collective kind, const std::string& purpose) {
  // Ring attention is priced on an all-gather's ring but runs as sends to the next chip.
  if (purpose == "cp_kv_ring") return "ring send/recv";
  return std::string(collectiveName(kind));
}

void setSummary(StepEstimate& e, const std::string& verdict) {
  e.summary = formatSeconds(e.time_s) + " per step, " + formatPercent(e.mfu) + " MFU, " + verdict;
  e.verdict = verdict;
  if (!e.verdict.empty() && e.verdict[0] >= 'a' && e.verdict[0] <= 'z')
    e.verdict[0] = static_cast<char>(e.verdict[0] - 'a' + 'A');
}

StepBound largestSegment(const std::vector<StepSegment>& segments) {
  // The HBM-bound time and the optimizer update are one part, HBM bandwidth, where they compete.
  double hbm = 0;
  for (const auto& s : segments)
    if (s.kind == StepPart::Hbm || s.kind == StepPart::Optimizer) hbm += s.seconds;
  StepBound bound{StepPart::Compute, ""};
  double worst = -1;
  bool hbmSeen = false;
  for (const auto& s : segments) {
    const bool isHbm = s.kind == StepPart::Hbm || s.kind == StepPart::Optimizer;
    if (isHbm && hbmSeen) continue;
    hbmSeen = hbmSeen || isHbm;
    const double seconds = isHbm ? hbm : s.seconds;
    if (seconds > worst) {
      worst = seconds;
      bound = {isHbm ? StepPart::Hbm : s.kind, s.axis};
    }
  }
  return bound;
}

std::string boundText(const StepBound& bound) {
  switch (bound.part) {
  case StepPart::Comm:
    return "comm:" + bound.axis;
  case StepPart::Bubble:
  case StepPart::Handover:
    return "pipeline";
  default:
    return std::string(stepPartName(bound.part));
  }
}

} // namespace shardscope
