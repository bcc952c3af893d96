// SPDX-License-Identifier: Apache-2.0
// The pipeline stage of analyze(): from the workspace's pipeline section and the mesh to jaxpp's
// schedule and timeline, memory per pipeline rank over that schedule, the activation hand-over
// between MPMD groups on the real links, and jaxpp's rule that a process lies in one group.
#include "analysis_stages.hpp"

#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/pipeline/pipeline_memory.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <map>
#include <numeric>
#include <set>
#include <string_view>

namespace shardscope {

std::int64_t defaultPipelineStages(PipelineScheduleKind kind, std::int64_t ranks) {
  return kind == PipelineScheduleKind::DualPipeV ? 2 * ranks : ranks;
}

std::vector<std::int64_t> pipelineLayerSplit(std::int64_t layers, std::int64_t stages) {
  if (stages < 1) throwValueError("a pipeline needs at least one stage, got " + std::to_string(stages));
  if (layers < 0) throwValueError("the layer count must not be negative, got " + std::to_string(layers));
  std::vector<std::int64_t> out(static_cast<std::size_t>(stages), layers / stages);
  const std::int64_t extra = layers % stages; // < stages, so stages S-1-extra .. S-2 exist
  for (std::int64_t s = stages - 1 - extra; s < stages - 1; ++s) ++out[static_cast<std::size_t>(s)];
  return out;
}

TaskLatencyFn pipelineUnitLatency(std::vector<std::int64_t> layers_per_stage, std::int64_t rank_count) {
  std::int64_t total = 0;
  for (auto l : layers_per_stage) total += l;
  // One rank's even share of the layers is one unit; without layers every stage weighs the same.
  const double share = total > 0 && rank_count > 0 ? static_cast<double>(total) / static_cast<double>(rank_count) : 0;
  const double stages = static_cast<double>(std::max<std::size_t>(layers_per_stage.size(), 1));
  return [layers = std::move(layers_per_stage), share, stages, rank_count](TaskType type, int stage) {
    const double unit = defaultTaskLatency(type);
    if (share <= 0) return unit * static_cast<double>(rank_count) / stages;
    if (stage < 0 || static_cast<std::size_t>(stage) >= layers.size()) return unit;
    return unit * static_cast<double>(layers[static_cast<std::size_t>(stage)]) / share;
  };
}

namespace analysis {

namespace {

bool allDigits(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
}

bool mentionsEmbedding(std::string_view path) {
  std::string lower(path);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  for (const char* word : {"embed", "wte", "wpe", "tok_embeddings"})
    if (lower.find(word) != std::string::npos) return true;
  return false;
}

// Where a parameter sits in the network: its layer (the first all-digit component of its path,
// "model.layers.7.mlp..." -> 7, "transformer.h.3..." -> 3), else the embedding (a path naming an
// embedding), else the output side (final norm, head, and layers past num_layers such as
// DeepSeek-V3's multi-token-prediction layer). Returns -1 for the embedding, `layers` for the
// output side.
std::int64_t layerOf(std::string_view path, std::int64_t layers) {
  std::size_t start = 0;
  while (start <= path.size()) {
    std::size_t stop = path.find_first_of("./", start);
    if (stop == std::string_view::npos) stop = path.size();
    const std::string_view part = path.substr(start, stop - start);
    if (allDigits(part) && part.size() <= 9) {
      const std::int64_t index = std::stoll(std::string(part));
      return index < layers ? index : layers;
    }
    start = stop + 1;
  }
  return mentionsEmbedding(path) ? -1 : layers;
}

std::string axisList(const Mesh& mesh) {
  std::string names;
  for (const auto& n : mesh.axis_names) names += (names.empty() ? "" : ", ") + n;
  return names;
}

std::string intList(const std::vector<std::int64_t>& xs) {
  std::string out;
  for (auto x : xs) out += (out.empty() ? "" : " and ") + std::to_string(x);
  return out;
}

// jaxpp's MpmdMesh asserts that every process's devices lie in one MPMD group (mpmd_mesh.hpp
// raises at the first offender); checked here on the scenario's placement for every process. The
// first few straddling processes are named one diagnostic each, the rest counted in one more (a
// pod of single-device processes would otherwise print one line per device).
void checkProcessGroups(const PipelineAnalysis& p, Analysis& out) {
  constexpr std::size_t kNamed = 4;
  std::map<int, std::set<std::int64_t>> groupsOf;
  for (std::size_t r = 0; r < p.ranks.size(); ++r)
    for (int pos : p.ranks[r].device_positions)
      groupsOf[out.mesh.devices[static_cast<std::size_t>(pos)].process_index].insert(static_cast<std::int64_t>(r));
  if (groupsOf.size() < 2) return; // one process: jaxpp does not check (single-process MPMD)
  std::size_t straddling = 0;
  for (const auto& [process, groups] : groupsOf) {
    if (groups.size() < 2) continue;
    if (++straddling > kNamed) continue;
    const std::vector<std::int64_t> list(groups.begin(), groups.end());
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Pipeline, "process " + std::to_string(process),
         "process " + std::to_string(process) + " holds devices of pipeline groups " + intList(list) + " along '" +
             p.axis + "'; jaxpp requires each process to lie in one MPMD group (MpmdMesh raises \"Process " +
             std::to_string(process) + " found in two mpmd indices: " + std::to_string(list[0]) + " " +
             std::to_string(list[1]) + "\"). Put '" + p.axis + "' on the axis that crosses hosts.");
  }
  if (straddling > kNamed)
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Pipeline, "processes",
         std::to_string(straddling - kNamed) + " more processes (" + std::to_string(straddling) + " of " +
             std::to_string(groupsOf.size()) + " in all) hold devices of several pipeline groups along '" + p.axis +
             "'");
}

// The stage count the schedule accepts on `ranks` groups, or the reason it does not.
std::string stageCountProblem(PipelineScheduleKind kind, std::int64_t stages, std::int64_t ranks,
                              const std::string& axis) {
  const std::string name(pipelineScheduleKindName(kind));
  const std::string axisText = "the size of axis '" + axis + "' (" + std::to_string(ranks) + ")";
  const std::string head = "pipeline.num_stages is " + std::to_string(stages) + ", but ";
  switch (kind) {
  case PipelineScheduleKind::Interleaved1F1B:
  case PipelineScheduleKind::KimiK2:
  case PipelineScheduleKind::InterleavedGPipe:
    if (stages % ranks != 0)
      return head + name + " places stage s on rank s % " + std::to_string(ranks) +
             ", so the stage count must be a multiple of " + axisText;
    return {};
  case PipelineScheduleKind::DualPipeV:
    if (stages != 2 * ranks)
      return head + "DualPipeV places two stages on every rank (a V), so it needs exactly twice " + axisText + ": " +
             std::to_string(2 * ranks);
    return {};
  default:
    if (stages != ranks)
      return head + name + " runs one stage per rank, so it must equal " + axisText +
             " (Interleaved1F1B and KimiK2 take multiples)";
    return {};
  }
}

// The jaxpp constraints on M, in the workspace's words; jaxpp's own check (and text) follows.
std::string microbatchProblem(PipelineScheduleKind kind, std::int64_t m, std::int64_t stages, std::int64_t ranks) {
  const std::string name(pipelineScheduleKindName(kind));
  const std::string head = "pipeline.microbatches is " + std::to_string(m) + ", but ";
  if ((kind == PipelineScheduleKind::ZeroBubble || kind == PipelineScheduleKind::DualPipeV) && m < stages)
    return head + name + " needs at least as many micro-batches as stages (" + std::to_string(stages) + ")";
  if (kind == PipelineScheduleKind::Interleaved1F1B || kind == PipelineScheduleKind::KimiK2) {
    const std::int64_t rounds = std::max<std::int64_t>(1, m / ranks);
    if (m % rounds != 0)
      return head + name + " runs max(1, M // " + std::to_string(ranks) + ") = " + std::to_string(rounds) +
             " rounds and M must split evenly into them (try a multiple of " + std::to_string(ranks) + ")";
  }
  return {};
}

// A parameter shard shape with the pipeline axis taken out of its spec, as jaxpp's MpmdSharding
// filters the MPMD axis: each group holds whole copies of what its stages use.
Shape shardWithoutAxis(const ArrayLayout& layout, int axis, std::int64_t axisSize) {
  Shape shard = layout.shard_shape;
  for (std::size_t d = 0; d < layout.dims.size() && d < shard.size(); ++d) {
    const auto& dim = layout.dims[d];
    if (std::find(dim.axes.begin(), dim.axes.end(), axis) == dim.axes.end()) continue;
    const std::int64_t ways = std::max<std::int64_t>(1, dim.ways / axisSize);
    shard[d] = (layout.shape[d] + ways - 1) / ways;
  }
  return shard;
}

void fillMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan, PipelineAnalysis& p,
                Analysis& out) {
  const std::int64_t layers =
      static_cast<std::int64_t>(std::accumulate(p.layers_per_stage.begin(), p.layers_per_stage.end(), std::int64_t{0}));
  // The micro-batches flow through every stage, so the pipeline axis never splits the batch.
  Scenario local = scenario;
  for (auto* axes : {&local.training.batch_axes, &local.training.seq_axes}) {
    const auto it = std::find(axes->begin(), axes->end(), p.axis);
    if (it == axes->end()) continue;
    note(out, Diagnostic::Severity::Warning, DiagnosticSection::Pipeline, p.axis,
         "'" + p.axis + "' is the pipeline axis and also listed in training." +
             (axes == &local.training.batch_axes ? "batch_axes" : "seq_axes") +
             "; micro-batches pass through every stage, so it does not split them here");
    axes->erase(it);
  }
  std::size_t sharded = 0;
  for (const auto& g : plan.plans)
    if (static_cast<std::size_t>(p.axis_index) < g.layout.axis_used.size() &&
        g.layout.axis_used[static_cast<std::size_t>(p.axis_index)])
      ++sharded;
  if (sharded > 0)
    note(out, Diagnostic::Severity::Warning, DiagnosticSection::Pipeline, p.axis,
         std::to_string(sharded) + " parameter group(s) have specs using the pipeline axis '" + p.axis +
             "'; jaxpp removes the MPMD axis from specs, so each group holds them whole along it");

  const auto buckets = static_cast<std::size_t>(layers + 2);
  const auto& params = model.params;
  auto bucketOf = [&](std::size_t i) { return static_cast<int>(layerOf(params[i].path, layers) + 1); };
  auto shardOf = [&](std::uint32_t g, const Shape& shard) {
    const auto& layout = plan.plans[g].layout;
    if (static_cast<std::size_t>(p.axis_index) >= layout.axis_used.size() ||
        !layout.axis_used[static_cast<std::size_t>(p.axis_index)])
      return shard;
    return shardWithoutAxis(layout, p.axis_index, p.rank_count);
  };
  std::vector<DeviceParamShards> byBucket = paramShardsByBucket(local, plan, out.mesh, buckets, bucketOf, shardOf);
  PipelineParamBuckets split;
  split.embedding = byBucket.front();
  split.head = byBucket.back();
  split.layers.assign(byBucket.begin() + 1, byBucket.end() - 1);
  split.tied_embeddings = model.config && model.config->tie_embeddings;

  PipelineMemoryOptions options;
  options.memory = deviceMemoryOptions(local, plan, model, out, /*noteMissingAxes=*/false);
  options.layers_per_stage = p.layers_per_stage;
  options.stage_to_rank = p.stage_to_rank;
  options.rank_count = static_cast<int>(p.rank_count);
  const PipelineMemoryEstimate estimate = estimatePipelineMemory(split, p.timeline, model, options);

  p.has_memory = true;
  p.hbm_bytes = estimate.hbm_bytes;
  p.worst_rank = estimate.worst_rank;
  p.layer_activation_bytes = estimate.layer_activation_bytes;
  p.output_activation_bytes = estimate.output_activation_bytes;
  for (std::size_t r = 0; r < p.ranks.size(); ++r) {
    const PipelineRankMemory& m = estimate.ranks[r];
    PipelineRankSummary& rank = p.ranks[r];
    rank.holds_embedding = m.holds_embedding;
    rank.holds_head = m.holds_head;
    rank.param_bytes = m.bytes.params;
    rank.grad_bytes = m.bytes.grads;
    rank.optimizer_bytes = m.bytes.optimizer + m.bytes.master_weights;
    rank.activation_bytes = m.bytes.activations;
    rank.transient_bytes = m.transient_bytes;
    rank.kv_cache_bytes = m.bytes.kv_cache;
    rank.peak_time = m.peak_time;
    rank.activation_profile = estimate.activation_profile[r];
  }

  // Every device now shows its rank's figures: it holds only its stages' layers.
  MemorySummary& mem = out.memory;
  mem.per_device.assign(out.mesh.devices.size(), DeviceMemory{});
  for (const auto& rank : p.ranks)
    for (int pos : rank.device_positions)
      mem.per_device[static_cast<std::size_t>(pos)] = {rank.param_bytes, rank.grad_bytes, rank.optimizer_bytes,
                                                       rank.activation_bytes, rank.kv_cache_bytes};
  double sum = 0;
  mem.argmax = -1;
  mem.max_bytes = 0;
  for (std::size_t i = 0; i < mem.per_device.size(); ++i) {
    const double total = mem.per_device[i].total();
    sum += total;
    if (mem.argmax < 0 || total > mem.max_bytes) {
      mem.max_bytes = total;
      mem.argmax = static_cast<int>(i);
    }
  }
  mem.mean_bytes = mem.per_device.empty() ? 0.0 : sum / static_cast<double>(mem.per_device.size());
  mem.hbm_bytes = estimate.hbm_bytes;
  mem.out_of_memory = mem.hbm_bytes > 0 && mem.max_bytes > mem.hbm_bytes;
  note(out, Diagnostic::Severity::Info, DiagnosticSection::Pipeline, "",
       "memory per device is its pipeline rank's: its stages' layers, and the activations of the micro-batches "
       "the " +
           std::string(pipelineScheduleKindName(p.schedule)) + " schedule keeps in flight on it");
}

void fillTransfers(const Scenario& scenario, const Model* model, const ShardGroups* plan, PipelineAnalysis& p,
                   Analysis& out) {
  if (!out.links || !plan) return;
  if (!model || !model->config || model->config->hidden <= 0) {
    note(out, Diagnostic::Severity::Info, DiagnosticSection::Pipeline, "",
         "the model has no hidden size: the stage-to-stage activation transfers are not priced");
    return;
  }
  // One micro-batch's activation at a stage boundary, per device: [b, s, h] in 16 bits, the batch
  // and sequence split as the memory estimate splits them; tensor parallelism replicates it, except
  // in MaxText, whose activations are sharded over the tensor axis too, and under Megatron's
  // sequence parallelism, whose stages send each tensor rank's s / t rows (get_tensor_shapes in
  // megatron/core/pipeline_parallel/schedules.py).
  Scenario local = scenario;
  for (auto* axes : {&local.training.batch_axes, &local.training.seq_axes})
    axes->erase(std::remove(axes->begin(), axes->end(), p.axis), axes->end());
  const MemoryOptions o = deviceMemoryOptions(local, *plan, *model, out, false);
  const auto ceilDiv = [](std::int64_t n, std::int64_t d) { return static_cast<double>((n + d - 1) / d); };
  const double embedSplit =
      o.framework == Framework::MaxText || o.sequence_parallel ? static_cast<double>(o.tensor_degree) : 1.0;
  const double bytes = ceilDiv(o.micro_batch, o.batch_degree) * ceilDiv(o.seq_len, o.seq_degree) *
                       static_cast<double>(model->config->hidden) * 2.0 / embedSplit;
  for (std::size_t s = 0; s + 1 < p.stage_to_rank.size(); ++s) {
    const int a = p.stage_to_rank[s], b = p.stage_to_rank[s + 1];
    if (a == b) continue;
    const GroupTransferCost cost = groupTransferCost(*out.links, out.mesh, p.axis_index, a, b, bytes);
    PipelineTransfer t;
    t.from_stage = static_cast<int>(s);
    t.to_stage = static_cast<int>(s + 1);
    t.from_rank = a;
    t.to_rank = b;
    t.bytes = bytes;
    t.seconds = cost.seconds;
    t.max_hops = cost.max_hops;
    t.max_link_load = cost.max_link_load;
    t.slowest_link = cost.uses_links ? std::string(linkClassName(cost.slowest_link)) : std::string("none");
    t.crosses_hosts = cost.crosses_hosts;
    t.crosses_slices = cost.crosses_slices;
    p.transfers.push_back(std::move(t));
  }
}

} // namespace

std::int64_t resolvedPipelineMicrobatches(const PipelineConfig& cfg, const Mesh& mesh) {
  if (cfg.microbatches) return *cfg.microbatches;
  const std::int64_t ranks = mesh.axisSize(cfg.axis);
  if (ranks < 1) return 1;
  return 2 * cfg.num_stages.value_or(defaultPipelineStages(cfg.schedule, ranks));
}

namespace {

// Seconds of one jaxpp unit (a forward of one rank's even share of the layers, one micro-batch)
// from the step estimate, which priced every layer on one device for M micro-batches: its compute,
// HBM and exposed communication time without the optimizer update (tensor-parallel collectives sit
// inside each layer; the others are spread over the layers too), over M micro-batches of three
// units each (forward 1, backward 2) and D ranks each running 1/D of the layers. 0 without an
// estimate.
double unitSeconds(const StepEstimate& step, std::int64_t microbatches, std::int64_t ranks) {
  if (!step.estimated || microbatches < 1 || ranks < 1) return 0;
  // The output projection and the loss run on the last stage only (headLatency); the unit is the
  // layers' work.
  const double head = static_cast<double>(microbatches) * (step.head_fwd_s + step.head_bwd_s);
  const double perStep = step.compute_s + step.hbm_s - step.optimizer_s + step.exposed_comm_s - head;
  return perStep > 0 ? perStep / (3.0 * static_cast<double>(microbatches) * static_cast<double>(ranks)) : 0;
}

// The step under the pipeline. A device holds and runs 1/D of the layers, so its compute, HBM
// traffic, optimizer update and every collective are 1/D of what the engine priced for all layers;
// the schedule's makespan holds the work and the bubbles, the optimizer update follows it:
// time = makespan + optimizer. The bubble is a segment of its own; the rates, the comm section's
// per-step seconds and the sentence follow.
void pipelineStepTime(const PipelineAnalysis& p, StepEstimate& step, std::vector<AxisComm>& comm) {
  const double spmd = step.time_s;
  if (!(spmd > 0) || p.rank_count < 1) return;
  const double ranks = static_cast<double>(p.rank_count);
  step.compute_s /= ranks;
  step.hbm_s /= ranks;
  step.optimizer_s /= ranks;
  step.elementwise_s /= ranks;
  step.hbm_weights_s /= ranks;
  step.hbm_activations_s /= ranks;
  step.padding_s /= ranks;
  step.exposed_comm_s /= ranks;
  step.hbm_bytes /= ranks;
  for (auto& axis : step.per_axis) {
    axis.bytes /= ranks;
    axis.seconds /= ranks;
    axis.exposed /= ranks;
    axis.overlapped /= ranks;
    for (auto& c : axis.collectives) {
      c.count /= ranks;
      c.bytes /= ranks;
      c.seconds /= ranks;
    }
  }
  for (std::size_t i = 0; i < comm.size() && i < step.per_axis.size(); ++i) {
    comm[i].step_bytes = step.per_axis[i].bytes;
    comm[i].step_s = step.per_axis[i].seconds;
    comm[i].overlapped_s = step.per_axis[i].overlapped;
    comm[i].exposed_s = step.per_axis[i].exposed;
  }
  // The activation hand-overs between ranks: the steady state overlaps them with other tasks, but
  // the fill and the drain cross every rank boundary once each way on the critical path (a lower
  // bound for the interleaved schedules and the V, which cross more often).
  double handover = 0;
  for (const auto& t : p.transfers) handover += 2 * t.seconds;
  const double time = p.makespan + step.optimizer_s + handover;
  const double bubble = std::max(0.0, time - handover - step.compute_s - step.hbm_s - step.exposed_comm_s);
  for (auto& segment : step.segments) {
    if (segment.kind == StepPart::Compute) segment.seconds = step.compute_s;
    if (segment.kind == StepPart::Hbm) segment.seconds = step.hbm_s;
    if (segment.kind == StepPart::Comm) segment.seconds /= ranks;
  }
  step.segments.push_back({StepPart::Bubble, "", bubble});
  if (handover > 0) step.segments.push_back({StepPart::Handover, "", handover});
  step.time_s = time;
  step.timeline = pipelineStepSpans(p, handover, step.optimizer_s);
  step.tokens_per_s *= spmd / time;
  step.mfu *= spmd / time;
  if (bubble > step.compute_s && bubble > step.hbm_s && bubble > step.exposed_comm_s)
    step.bound_by = {StepPart::Bubble, ""};

  // The engine's sentence priced the layout without the pipeline; keep only what bounds a stage.
  const std::string inside = step.bound_phrase;
  char text[400];
  std::snprintf(text, sizeof text,
                "%.3g s per step, %.0f%% MFU: the %s pipeline (%lld stages on %lld ranks, %lld micro-batches) "
                "idles %.0f%% of its %.3g s schedule in bubbles",
                time, 100 * step.mfu, std::string(pipelineScheduleKindName(p.schedule)).c_str(),
                static_cast<long long>(p.num_stages), static_cast<long long>(p.rank_count),
                static_cast<long long>(p.microbatches), 100.0 * p.bubble_overall, p.makespan);
  step.summary = text;
  if (p.bubble_overall > 0.1)
    step.summary += ": more micro-batches per step or an interleaved or zero-bubble schedule would shrink them";
  if (!inside.empty()) step.summary += "; inside each stage the work is bound by " + inside;
  step.summary += ".";
  step.notes.push_back(
      "the step is the pipeline schedule's makespan (" + numberText(std::round(1e5 * p.makespan) / 100) + " ms, " +
      numberText(std::round(1e5 * bubble) / 100) +
      " ms of it idle on average) plus the optimizer update and the activation hand-overs of the fill and the "
      "drain (" +
      numberText(std::round(1e5 * handover) / 100) + " ms); a device runs 1/" + std::to_string(p.rank_count) +
      " of the layers, so its compute, HBM traffic, optimizer update and collectives are that share "
      "of the engine's; task times split its compute, HBM and exposed communication over layers, "
      "micro-batches and F/B (1:2)");
}

} // namespace

void analyzePipeline(const Scenario& scenario, const Model* model, const ShardGroups* plan, Analysis& out) {
  const PipelineConfig& cfg = *scenario.pipeline;
  PipelineAnalysis& p = out.pipeline.emplace();
  p.axis = cfg.axis;
  p.schedule = cfg.schedule;
  p.fuse_steady_state = cfg.fuse_steady_state;
  auto fail = [&](const std::string& field, const std::string& message) {
    if (p.error.empty()) p.error = message;
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Pipeline, field, message);
  };
  try {
    p.axis_index = out.mesh.axisIndex(cfg.axis);
    if (p.axis_index < 0) {
      fail("pipeline.axis", "pipeline.axis '" + cfg.axis + "' is not an axis of the mesh (" + axisList(out.mesh) +
                                "); add it to the mesh or name one of these");
      return;
    }
    p.rank_count = out.mesh.shape()[static_cast<std::size_t>(p.axis_index)];
    // The devices of each MPMD group, by their coordinate along the axis.
    p.ranks.resize(static_cast<std::size_t>(p.rank_count));
    {
      // The coordinate along the axis of every grid cell (MpmdMesh::groupOfGridPositions without
      // its constructor's process check, which stops at the first straddling process).
      const auto& shape = out.mesh.shape();
      std::int64_t inner = 1;
      for (std::size_t a = static_cast<std::size_t>(p.axis_index) + 1; a < shape.size(); ++a) inner *= shape[a];
      const auto& cells = out.mesh.grid.data();
      for (std::size_t c = 0; c < cells.size(); ++c)
        p.ranks[static_cast<std::size_t>((static_cast<std::int64_t>(c) / inner) % p.rank_count)]
            .device_positions.push_back(cells[c]);
      for (std::size_t r = 0; r < p.ranks.size(); ++r) p.ranks[r].rank = static_cast<int>(r);
    }
    checkProcessGroups(p, out);

    p.num_stages = cfg.num_stages.value_or(defaultPipelineStages(cfg.schedule, p.rank_count));
    if (const std::string why = stageCountProblem(cfg.schedule, p.num_stages, p.rank_count, cfg.axis); !why.empty()) {
      fail("pipeline.num_stages", why);
      return;
    }
    PipelineScheduleSpec spec;
    spec.kind = cfg.schedule;
    spec.num_stages = p.num_stages;
    if (takesMpmdDim(cfg.schedule)) spec.mpmd_dim = p.rank_count;
    spec.fuse_steady_state = cfg.fuse_steady_state && takesFuseSteadyState(cfg.schedule);
    validatePipelineSchedule(spec);
    p.stage_to_rank = stageToRankTable(spec);
    for (std::size_t s = 0; s < p.stage_to_rank.size(); ++s)
      p.ranks[static_cast<std::size_t>(p.stage_to_rank[s])].stages.push_back(static_cast<int>(s));

    // Layers per stage: the model's count split evenly, or the user's list checked against it.
    const std::int64_t modelLayers = model && model->config ? model->config->num_layers : 0;
    bool layersOk = modelLayers > 0;
    if (!cfg.layers_per_stage.empty()) {
      std::int64_t sum = 0;
      for (auto l : cfg.layers_per_stage) sum += l;
      if (static_cast<std::int64_t>(cfg.layers_per_stage.size()) != p.num_stages) {
        fail("pipeline.layers_per_stage", "pipeline.layers_per_stage has " +
                                              std::to_string(cfg.layers_per_stage.size()) + " entries but there are " +
                                              std::to_string(p.num_stages) + " stages");
        layersOk = false;
      } else if (modelLayers > 0 && sum != modelLayers) {
        fail("pipeline.layers_per_stage", "pipeline.layers_per_stage sums to " + std::to_string(sum) +
                                              " layers but the model has " + std::to_string(modelLayers));
        layersOk = false;
      } else {
        p.layers_per_stage = cfg.layers_per_stage;
        layersOk = true;
      }
    } else if (modelLayers > 0) {
      p.layers_per_stage = pipelineLayerSplit(modelLayers, p.num_stages);
    }
    if (modelLayers <= 0 && model)
      note(out, Diagnostic::Severity::Info, DiagnosticSection::Pipeline, "",
           "the model has no layer count: stages are timed alike and memory per rank is not estimated");
    if (!p.layers_per_stage.empty())
      for (auto& rank : p.ranks)
        for (int s : rank.stages) rank.layers += p.layers_per_stage[static_cast<std::size_t>(s)];

    p.microbatches = cfg.microbatches.value_or(2 * p.num_stages);
    if (const std::string why = microbatchProblem(cfg.schedule, p.microbatches, p.num_stages, p.rank_count);
        !why.empty()) {
      fail("pipeline.microbatches", why);
      return;
    }
    try {
      p.tasks = preprocessSchedule(pipelineTasks(spec, p.microbatches), 0);
      // A wrong layer list still gets a timeline, timed as an even split.
      std::vector<std::int64_t> timing = layersOk && !p.layers_per_stage.empty()
                                             ? p.layers_per_stage
                                             : std::vector<std::int64_t>(static_cast<std::size_t>(p.num_stages), 1);
      // Seconds when the step estimate gives them; jaxpp's task units otherwise.
      const double unit = unitSeconds(out.step, p.microbatches, p.rank_count);
      TaskLatencyFn latency = pipelineUnitLatency(timing, p.rank_count);
      if (unit > 0) {
        // The last stage also runs the output projection and the loss: forward with its F, the
        // backward with its B (split evenly between BWD_I and BWD_W).
        const int last = static_cast<int>(p.num_stages) - 1;
        latency = [units = std::move(latency), unit, last, headF = out.step.head_fwd_s,
                   headB = out.step.head_bwd_s](TaskType type, int stage) {
          double head = 0;
          if (stage == last) head = type == TaskType::Fwd ? headF : type == TaskType::Bwd ? headB : headB / 2;
          return unit * units(type, stage) + head;
        };
        p.time_unit = PipelineTimeUnit::Seconds;
      }
      p.timeline = simulateTimeline(spec, p.microbatches, p.tasks, latency);
    } catch (const Error& e) {
      fail("pipeline.microbatches", "pipeline.microbatches is " + std::to_string(p.microbatches) + ": " +
                                        std::string(pipelineScheduleKindName(cfg.schedule)) + " refuses it (" +
                                        errorKindName(e.kind()).data() + ": " + e.what() + ")");
      return;
    }
    p.scheduled = true;
    const PipelineMetrics metrics = pipelineMetrics(p.timeline, static_cast<int>(p.rank_count));
    p.makespan = metrics.makespan;
    p.bubble_overall = metrics.bubble_overall;
    for (std::size_t r = 0; r < p.ranks.size(); ++r) {
      p.ranks[r].busy = metrics.busy[r];
      p.ranks[r].bubble = metrics.bubble[r];
      p.ranks[r].peak_in_flight = metrics.peak_in_flight[r];
    }

    if (layersOk && model && plan && !out.memory.per_device.empty()) fillMemory(scenario, *model, *plan, p, out);
    fillTransfers(scenario, model, plan, p, out);
    if (p.time_unit == PipelineTimeUnit::Seconds) {
      pipelineStepTime(p, out.step, out.comm);
      note(out, Diagnostic::Severity::Info, DiagnosticSection::Step, "", out.step.notes.back());
    }
  } catch (const Error& e) {
    fail("pipeline", std::string("pipeline: ") + e.what());
  }
}

} // namespace analysis

} // namespace shardscope
