// SPDX-License-Identifier: Apache-2.0
// The memory stage under a pipeline: each parameter to its layer's stage (the embedding to the
// first, the head to the last), the pipeline axis taken out of every spec as jaxpp's MpmdSharding
// does, and each rank's memory over the schedule the step ran (activations of the micro-batches in
// flight); every device shows its rank's figures.
#include "analysis_stages.hpp"

#include "shardscope/pipeline/pipeline_memory.hpp"

#include <algorithm>
#include <cctype>
#include <numeric>
#include <string>
#include <string_view>

namespace shardscope::analysis {

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

} // namespace

void pipelineRankMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan,
                        PipelinePlanned& pipeline, Analysis& out) {
  PipelineAnalysis& p = pipeline.section;
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
  mem.out_of_memory = estimate.out_of_memory;
  note(out, Diagnostic::Severity::Info, DiagnosticSection::Pipeline, "",
       "memory per device is its pipeline rank's: its stages' layers, and the activations of the micro-batches "
       "the " +
           std::string(pipelineScheduleKindName(p.schedule)) + " schedule keeps in flight on it");
}

} // namespace shardscope::analysis
