// SPDX-License-Identifier: Apache-2.0
// The pipeline part of an Analysis (Analysis::pipeline, filled by pipeline_stage.cpp when the
// workspace has a `pipeline` section): the resolved stages and their layers, jaxpp's schedule and
// the timeline its list scheduler gives, per rank the bubble, the peak in-flight micro-batches and
// the memory over the schedule, and the activation hand-over between consecutive stages.
//
// Times: task latencies are jaxpp's unit costs (FWD 1, BWD 2, BWD_I 1, BWD_W 1) scaled by the
// stage's share of one rank's even layer count (pipelineUnitLatency), times the seconds of one unit
// the step engine gives (pipeline/pipeline_step.hpp, `time_unit` "s"); without a step estimate they
// stay units ("task").
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/pipeline/pipeline_memory.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/pipeline/pipeline_step.hpp"

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

struct PipelineRankSummary {
  int rank = 0;
  std::vector<int> stages; // ascending
  std::int64_t layers = 0;
  bool holds_embedding = false, holds_head = false;
  std::vector<int> device_positions; // into Analysis::mesh.devices: the devices of this MPMD group
  // Timeline figures.
  double busy = 0;   // summed duration of its tasks, in time_unit
  double bubble = 0; // 1 - busy / makespan
  int peak_in_flight = 0;
  // Memory of one device of this rank (set when has_memory): bytes by category, activations at
  // the rank's peak over the schedule (reached first at peak_time).
  double param_bytes = 0, grad_bytes = 0, optimizer_bytes = 0, activation_bytes = 0, kv_cache_bytes = 0;
  double peak_time = 0;
  // Of activation_bytes, the backward's moment on top of the pairs in flight: a re-run layer, or
  // on the last stage's rank the loss's gradient (PipelineRankMemory::transient_bytes).
  double transient_bytes = 0;
  std::vector<MemoryStep> activation_profile; // activations over the timeline, a step function
  double totalBytes() const { return param_bytes + grad_bytes + optimizer_bytes + activation_bytes + kv_cache_bytes; }
  // Everything but the activations: what the rank holds for the whole step.
  double staticBytes() const { return param_bytes + grad_bytes + optimizer_bytes + kv_cache_bytes; }
};

struct PipelineAnalysis {
  // Resolved from the workspace's pipeline section and the mesh.
  std::string axis;
  int axis_index = -1; // in Analysis::mesh, -1 when the axis is not in the mesh
  PipelineScheduleKind schedule = PipelineScheduleKind::Std1F1B;
  std::int64_t rank_count = 0; // the axis size (MPMD groups)
  std::int64_t num_stages = 0;
  std::int64_t microbatches = 0;
  bool fuse_steady_state = false;
  std::vector<std::int64_t> layers_per_stage; // empty when the layer count is unknown
  std::vector<int> stage_to_rank;

  // The schedule (set when `scheduled`).
  bool scheduled = false;
  ScheduleRows tasks; // preprocessed rows, one per rank (jaxpp's order)
  PipelineTimeline timeline;
  PipelineTimeUnit time_unit = PipelineTimeUnit::Task;
  double makespan = 0;
  double bubble_overall = 0; // mean of the ranks' bubble fractions
  std::vector<PipelineRankSummary> ranks;

  // Memory per rank (set when `has_memory`).
  bool has_memory = false;
  double hbm_bytes = 0;
  int worst_rank = -1;
  double layer_activation_bytes = 0;  // one layer, one micro-batch, one device
  double output_activation_bytes = 0; // final norm and logits, one micro-batch (last stage)

  std::vector<PipelineTransfer> transfers;
  // The first problem, naming the workspace field (also a "pipeline" Error diagnostic); empty
  // when everything was computed.
  std::string error;
};

// Default stage count for a schedule on `ranks` MPMD groups: twice the ranks for DualPipeV, the
// ranks otherwise.
std::int64_t defaultPipelineStages(PipelineScheduleKind kind, std::int64_t ranks);

// An even split of `layers` over `stages`; the remainder goes one layer each to the stages just
// before the last one (stages S-1-r .. S-2), so the last stage (which holds the output head and
// the logits) and, while there are middle stages, the first (embedding, most micro-batches in
// flight under 1F1B) get the floor. ValueError for fewer than one stage or negative layers.
std::vector<std::int64_t> pipelineLayerSplit(std::int64_t layers, std::int64_t stages);

// M, the micro-batch count of a step under the pipeline: the section's `microbatches`, else twice
// the stages (jaxpp's examples); 1 without ranks. The one place M is resolved: the schedule, the
// step and the MaxText export read it from here.
std::int64_t pipelineMicrobatchCount(const PipelineConfig& config, std::int64_t ranks);

} // namespace shardscope
