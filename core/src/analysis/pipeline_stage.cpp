// SPDX-License-Identifier: Apache-2.0
// The pipeline stage of analyze(): from the workspace's pipeline section and the mesh to jaxpp's
// schedule and timeline, memory per pipeline rank over that schedule, the activation hand-over
// between MPMD groups on the real links, and jaxpp's rule that a process lies in one group.
#include "analysis_stages.hpp"

#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/mesh/axis_groups.hpp"
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

std::int64_t pipelineMicrobatchCount(const PipelineConfig& cfg, std::int64_t ranks) {
  if (cfg.microbatches) return *cfg.microbatches;
  if (ranks < 1) return 1;
  return 2 * cfg.num_stages.value_or(defaultPipelineStages(cfg.schedule, ranks));
}

namespace analysis {

namespace {

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

PipelinePlanned planPipeline(const Scenario& scenario, const Model* model, const ShardGroups* plan, Analysis& out) {
  const PipelineConfig& cfg = *scenario.pipeline;
  PipelinePlanned planned;
  PipelineAnalysis& p = planned.section;
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
      return planned;
    }
    p.rank_count = out.mesh.shape()[static_cast<std::size_t>(p.axis_index)];
    // The devices of each MPMD group, by their coordinate along the axis.
    p.ranks.resize(static_cast<std::size_t>(p.rank_count));
    {
      // The coordinate along the axis of every grid cell (MpmdMesh::groupOfGridPositions without
      // its constructor's process check, which stops at the first straddling process).
      const AxisGroups along(out.mesh.shape(), static_cast<std::size_t>(p.axis_index));
      const auto& cells = out.mesh.grid.data();
      for (std::size_t c = 0; c < cells.size(); ++c)
        p.ranks[static_cast<std::size_t>(along.coordinate(static_cast<std::int64_t>(c)))].device_positions.push_back(
            cells[c]);
      for (std::size_t r = 0; r < p.ranks.size(); ++r) p.ranks[r].rank = static_cast<int>(r);
    }
    checkProcessGroups(p, out);

    p.num_stages = cfg.num_stages.value_or(defaultPipelineStages(cfg.schedule, p.rank_count));
    if (const std::string why = stageCountProblem(cfg.schedule, p.num_stages, p.rank_count, cfg.axis); !why.empty()) {
      fail("pipeline.num_stages", why);
      return planned;
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
    planned.layers_ok = modelLayers > 0;
    if (!cfg.layers_per_stage.empty()) {
      std::int64_t sum = 0;
      for (auto l : cfg.layers_per_stage) sum += l;
      if (static_cast<std::int64_t>(cfg.layers_per_stage.size()) != p.num_stages) {
        fail("pipeline.layers_per_stage", "pipeline.layers_per_stage has " +
                                              std::to_string(cfg.layers_per_stage.size()) + " entries but there are " +
                                              std::to_string(p.num_stages) + " stages");
        planned.layers_ok = false;
      } else if (modelLayers > 0 && sum != modelLayers) {
        fail("pipeline.layers_per_stage", "pipeline.layers_per_stage sums to " + std::to_string(sum) +
                                              " layers but the model has " + std::to_string(modelLayers));
        planned.layers_ok = false;
      } else {
        p.layers_per_stage = cfg.layers_per_stage;
        planned.layers_ok = true;
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

    p.microbatches = pipelineMicrobatchCount(cfg, p.rank_count);
    if (const std::string why = microbatchProblem(cfg.schedule, p.microbatches, p.num_stages, p.rank_count);
        !why.empty()) {
      fail("pipeline.microbatches", why);
      return planned;
    }
    try {
      planned.step.tasks = preprocessSchedule(pipelineTasks(spec, p.microbatches), 0);
    } catch (const Error& e) {
      fail("pipeline.microbatches", "pipeline.microbatches is " + std::to_string(p.microbatches) + ": " +
                                        std::string(pipelineScheduleKindName(cfg.schedule)) + " refuses it (" +
                                        errorKindName(e.kind()).data() + ": " + e.what() + ")");
      return planned;
    }
    fillTransfers(scenario, model, plan, p, out);
    planned.step.spec = spec;
    planned.step.ranks = p.rank_count;
    planned.step.microbatches = p.microbatches;
    // A wrong layer list is timed as an even split.
    if (planned.layers_ok) planned.step.layers_per_stage = p.layers_per_stage;
    planned.step.stage_to_rank = p.stage_to_rank;
    planned.step.transfers = p.transfers;
    planned.schedulable = true;
  } catch (const Error& e) {
    fail("pipeline", std::string("pipeline: ") + e.what());
  }
  return planned;
}

void attachSchedule(PipelinePlanned& planned, const PipelineScheduleRun& run) {
  PipelineAnalysis& p = planned.section;
  p.tasks = run.tasks;
  p.timeline = run.timeline;
  p.time_unit = run.time_unit;
  p.scheduled = true;
  p.makespan = run.metrics.makespan;
  p.bubble_overall = run.metrics.bubble_overall;
  for (std::size_t r = 0; r < p.ranks.size() && r < run.metrics.busy.size(); ++r) {
    p.ranks[r].busy = run.metrics.busy[r];
    p.ranks[r].bubble = run.metrics.bubble[r];
    p.ranks[r].peak_in_flight = run.metrics.peak_in_flight[r];
  }
}

} // namespace analysis

} // namespace shardscope
