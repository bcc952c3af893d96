// SPDX-License-Identifier: Apache-2.0
// Memory per pipeline rank and the cost of the activation hand-over between pipeline groups.
//
// Under pipeline parallelism (jaxpp's MPMD groups) a rank holds only the layers of its stages:
// their parameters, gradients and optimizer state, plus the embedding when it holds the first
// stage and the final norm and output head when it holds the last. Its activations are those of
// the (stage, micro-batch) pairs the schedule keeps in flight on it: a pair is held from the end of
// its forward to the end of its last backward piece (as pipelineMetrics counts them), and weighs
// one micro-batch's activations of that stage's layers (Korthikanti et al., the per-layer figure of
// the memory engine), plus the output layer's for the last stage. Counting the pairs of the real
// timeline includes the interleaving factor of Korthikanti's §4.2 (virtual stages hold ~1/v of the
// layers each, and more of them are in flight) as jaxpp's own schedule has it.
//
// The per-layer figures (parameters, gradients, optimizer state, one layer's activations) come from
// estimateMemory (memory.hpp); this file only decides who holds which and when.
#pragma once

#include "shardscope/cost/memory.hpp"
#include "shardscope/pipeline/pipeline_schedule.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/mesh/named_mesh.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

// What one device of a pipeline group holds of the model, split by where it sits in the network.
struct PipelineParamBuckets {
  DeviceParamShards embedding;           // before the first layer: held with the first stage
  std::vector<DeviceParamShards> layers; // one per transformer layer, in order
  DeviceParamShards head;                // after the last layer (final norm, output head): last stage
  // Tied input/output embeddings: the last stage uses the embedding too, and jaxpp replicates a
  // loop constant to every group that references it, so the last stage holds a copy.
  bool tied_embeddings = false;
};

// Sum of two devices' holdings; an unset optional counts as its documented default.
DeviceParamShards addParamShards(const DeviceParamShards& a, const DeviceParamShards& b);

struct PipelineMemoryOptions {
  // The per-device options of the SPMD estimate: one micro-batch's activations (micro_batch is the
  // global micro-batch of one pipeline task), optimizer, dtypes, recompute, the chip's HBM.
  MemoryOptions memory;
  std::vector<std::int64_t> layers_per_stage; // sums to the number of layer buckets
  std::vector<int> stage_to_rank;             // one per stage (stageToRankTable)
  int rank_count = 1;
};

struct PipelineRankMemory {
  int rank = 0;
  std::vector<int> stages; // ascending
  std::int64_t layers = 0;
  bool holds_embedding = false, holds_head = false;
  DeviceBytes bytes; // one device of this rank; activations at the rank's peak
  // Of those activations, what the backward holds beside the pairs for a moment: a layer's re-run
  // activations, or on the last stage the loss's gradient (ActivationBreakdown).
  double transient_bytes = 0;
  int peak_in_flight = 0; // (stage, micro-batch) pairs held at once, at most
  double peak_time = 0;   // when the activation peak is first reached (timeline time)
  int pairs_at_peak = 0;  // pairs held at that moment
};

// From `time` on (until the next step) the rank holds `activation_bytes` of activations.
struct MemoryStep {
  double time = 0;
  double activation_bytes = 0;
};

struct PipelineMemoryEstimate {
  std::vector<PipelineRankMemory> ranks;
  // Per rank: its activations over the timeline as a step function starting at (0, 0).
  std::vector<std::vector<MemoryStep>> activation_profile;
  double layer_activation_bytes = 0;  // one layer, one micro-batch, one device
  double output_activation_bytes = 0; // final norm inputs and logits of one micro-batch (last stage)
  double hbm_bytes = 0;
  int worst_rank = -1; // the first rank with the largest total
  double max_bytes = 0;
  bool out_of_memory = false;
  std::vector<std::string> notes;
};

// Throws ValueError naming the option when layers_per_stage does not match the buckets, a stage's
// rank is outside [0, rank_count), or the timeline names a stage that does not exist. Serving has
// no schedule to run: each rank's KV cache is its layers' share and `timeline` is not read.
PipelineMemoryEstimate estimatePipelineMemory(const PipelineParamBuckets& params, const PipelineTimeline& timeline,
                                              const Model& model, const PipelineMemoryOptions& options);

// Point-to-point sends from every device of one pipeline group to its peer in another (same
// coordinates on every other mesh axis), all at once, each of `bytes`: routed on shortest paths,
// each route sharing its links with the others that cross them in the same direction.
struct GroupTransferCost {
  double seconds = 0;      // the slowest pair: route latency + bytes / (its bottleneck share)
  int max_hops = 0;        // longest route
  int max_link_load = 0;   // most routes through one link in one direction
  bool uses_links = false; // false when every pair sits on one chip
  LinkClass slowest_link = LinkClass::Ici;
  bool crosses_hosts = false, crosses_slices = false;
};

// `axisIndex` is the pipeline axis of `mesh`, `from`/`to` two coordinates along it. ValueError
// for an axis or coordinate outside the mesh, or a device missing from the graph.
GroupTransferCost groupTransferCost(const LinkGraph& graph, const Mesh& mesh, int axisIndex, std::int64_t from,
                                    std::int64_t to, double bytes);

} // namespace shardscope
