// SPDX-License-Identifier: Apache-2.0
// Memory per pipeline rank (who holds which layers, and which activations when, over the
// schedule's timeline) and the price of the point-to-point hand-over between two pipeline groups.
#include "shardscope/pipeline/pipeline_memory.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/axis_groups.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace shardscope {

namespace {

std::optional<double> addOptional(const std::optional<double>& a, double aDefault, const std::optional<double>& b,
                                  double bDefault) {
  if (!a && !b) return std::nullopt;
  return a.value_or(aDefault) + b.value_or(bDefault);
}

} // namespace

DeviceParamShards addParamShards(const DeviceParamShards& a, const DeviceParamShards& b) {
  DeviceParamShards out;
  out.param_elements = a.param_elements + b.param_elements;
  out.param_bytes = a.param_bytes + b.param_bytes;
  out.grad_elements = addOptional(a.grad_elements, a.param_elements, b.grad_elements, b.param_elements);
  out.optimizer_elements = addOptional(a.optimizer_elements, a.param_elements, b.optimizer_elements, b.param_elements);
  // An unset factored size defaults to the optimizer elements times the model-wide ratio, which is
  // not known here; the analysis sets it on every bucket, and a full copy is the safe side otherwise.
  out.adafactor_elements = addOptional(a.adafactor_elements, a.optimizer_elements.value_or(a.param_elements),
                                       b.adafactor_elements, b.optimizer_elements.value_or(b.param_elements));
  return out;
}

PipelineMemoryEstimate estimatePipelineMemory(const PipelineParamBuckets& params, const PipelineTimeline& timeline,
                                              const Model& model, const PipelineMemoryOptions& o) {
  const auto stageCount = o.layers_per_stage.size();
  if (stageCount == 0) throwValueError("layers_per_stage must name at least one stage");
  if (o.stage_to_rank.size() != stageCount)
    throwValueError("stage_to_rank has " + std::to_string(o.stage_to_rank.size()) + " entries for " +
                    std::to_string(stageCount) + " stages");
  if (o.rank_count < 1) throwValueError("rank_count must be positive, got " + std::to_string(o.rank_count));
  std::int64_t layerSum = 0;
  for (std::size_t s = 0; s < stageCount; ++s) {
    if (o.layers_per_stage[s] < 0) throwValueError("layers_per_stage[" + std::to_string(s) + "] must not be negative");
    layerSum += o.layers_per_stage[s];
  }
  if (layerSum != static_cast<std::int64_t>(params.layers.size()))
    throwValueError("layers_per_stage sums to " + std::to_string(layerSum) + " but the model has " +
                    std::to_string(params.layers.size()) + " layers");
  for (std::size_t s = 0; s < stageCount; ++s)
    if (o.stage_to_rank[s] < 0 || o.stage_to_rank[s] >= o.rank_count)
      throwValueError("stage_to_rank[" + std::to_string(s) + "] = " + std::to_string(o.stage_to_rank[s]) +
                      " is not a rank in [0, " + std::to_string(o.rank_count) + ")");

  const auto ranks = static_cast<std::size_t>(o.rank_count);
  const int lastStage = static_cast<int>(stageCount) - 1;
  PipelineMemoryEstimate out;
  out.ranks.resize(ranks);
  std::vector<DeviceParamShards> held(ranks);
  std::vector<std::int64_t> firstLayer(stageCount + 1, 0);
  std::partial_sum(o.layers_per_stage.begin(), o.layers_per_stage.end(), firstLayer.begin() + 1);
  for (std::size_t r = 0; r < ranks; ++r) out.ranks[r].rank = static_cast<int>(r);
  for (std::size_t s = 0; s < stageCount; ++s) {
    const auto r = static_cast<std::size_t>(o.stage_to_rank[s]);
    PipelineRankMemory& rank = out.ranks[r];
    rank.stages.push_back(static_cast<int>(s));
    rank.layers += o.layers_per_stage[s];
    for (std::int64_t l = firstLayer[s]; l < firstLayer[s + 1]; ++l)
      held[r] = addParamShards(held[r], params.layers[static_cast<std::size_t>(l)]);
  }
  const auto firstRank = static_cast<std::size_t>(o.stage_to_rank.front());
  const auto lastRank = static_cast<std::size_t>(o.stage_to_rank.back());
  out.ranks[firstRank].holds_embedding = true;
  held[firstRank] = addParamShards(held[firstRank], params.embedding);
  out.ranks[lastRank].holds_head = true;
  held[lastRank] = addParamShards(held[lastRank], params.head);
  if (params.tied_embeddings && lastRank != firstRank)
    held[lastRank] = addParamShards(held[lastRank], params.embedding);

  // Parameters, gradients and optimizer state by the memory engine; the activations it reports
  // are the whole model's for one micro-batch, of which only the per-layer and output figures
  // are used below.
  MemoryOptions options = o.memory;
  options.include_output_layer = true;
  const MemoryEstimate base = estimateMemory(held, model, options);
  out.notes = base.notes;
  out.hbm_bytes = base.hbm_bytes;
  out.layer_activation_bytes = base.activations.per_layer;
  out.output_activation_bytes = o.memory.include_output_layer ? base.activations.output_layer : 0.0;
  out.activation_profile.assign(ranks, {MemoryStep{}});
  const bool training = o.memory.workload == Workload::Training;
  const auto totalLayers = static_cast<double>(params.layers.size());

  for (std::size_t r = 0; r < ranks; ++r) {
    out.ranks[r].bytes = base.per_device[r];
    out.ranks[r].bytes.activations = 0;
    if (!training)
      out.ranks[r].bytes.kv_cache =
          totalLayers > 0 ? base.kv_cache_per_device * static_cast<double>(out.ranks[r].layers) / totalLayers : 0.0;
  }

  if (training) {
    // One (stage, micro-batch) pair's activations.
    auto weight = [&](int stage) {
      return static_cast<double>(o.layers_per_stage[static_cast<std::size_t>(stage)]) * out.layer_activation_bytes +
             (stage == lastStage ? out.output_activation_bytes : 0.0);
    };
    int maxMb = -1;
    for (const auto& t : timeline.tasks) {
      if (t.stage < 0 || t.stage > lastStage)
        throwValueError("the timeline names stage " + std::to_string(t.stage) + " of a " + std::to_string(stageCount) +
                        "-stage pipeline");
      if (t.microbatch < 0) throwValueError("the timeline names micro-batch " + std::to_string(t.microbatch));
      maxMb = std::max(maxMb, t.microbatch);
    }
    const auto width = static_cast<std::size_t>(maxMb + 1);
    std::vector<int> piecesLeft(stageCount * width, 0);
    auto key = [&](const PipelineTask& t) {
      return static_cast<std::size_t>(t.stage) * width + static_cast<std::size_t>(t.microbatch);
    };
    for (const auto& t : timeline.tasks)
      if (t.type != TaskType::Fwd) ++piecesLeft[key(t)];

    std::vector<double> bytes(ranks, 0.0), peak(ranks, 0.0);
    std::vector<int> pairs(ranks, 0);
    auto record = [&](std::size_t r, double time) {
      auto& steps = out.activation_profile[r];
      if (steps.back().time == time)
        steps.back().activation_bytes = bytes[r];
      else
        steps.push_back({time, bytes[r]});
      PipelineRankMemory& rank = out.ranks[r];
      if (bytes[r] > peak[r]) {
        peak[r] = bytes[r];
        rank.peak_time = time;
        rank.pairs_at_peak = pairs[r];
      }
    };
    // Events of one rank never overlap and come in start order; members run back to back.
    for (const auto& ev : timeline.events) {
      double time = ev.start;
      for (const auto& t : timeline.members(ev)) {
        time += t.latency;
        const auto tr = static_cast<std::size_t>(o.stage_to_rank[static_cast<std::size_t>(t.stage)]);
        if (t.type == TaskType::Fwd) {
          bytes[tr] += weight(t.stage);
          out.ranks[tr].peak_in_flight = std::max(out.ranks[tr].peak_in_flight, ++pairs[tr]);
          record(tr, time);
        } else if (--piecesLeft[key(t)] == 0) {
          bytes[tr] -= weight(t.stage);
          --pairs[tr];
          // Sums of the same doubles in another order can leave a residue at zero.
          if (pairs[tr] == 0) bytes[tr] = 0;
          record(tr, time);
        }
      }
    }
    // On top of the pairs held: a layer's re-run activations during its backward, and on the
    // last stage's rank the loss's gradient beside its logits, whichever is larger.
    const double lossGradient = o.memory.include_output_layer ? base.activations.loss_gradient : 0.0;
    for (std::size_t r = 0; r < ranks; ++r) {
      out.ranks[r].transient_bytes = std::max(base.activations.recompute_layer, r == lastRank ? lossGradient : 0.0);
      out.ranks[r].bytes.activations = peak[r] + out.ranks[r].transient_bytes;
    }
  }

  for (std::size_t r = 0; r < ranks; ++r) {
    const double total = out.ranks[r].bytes.total();
    if (out.worst_rank < 0 || total > out.max_bytes) {
      out.max_bytes = total;
      out.worst_rank = static_cast<int>(r);
    }
  }
  out.out_of_memory = out.hbm_bytes > 0 && out.max_bytes > out.hbm_bytes;
  return out;
}

GroupTransferCost groupTransferCost(const LinkGraph& graph, const Mesh& mesh, int axisIndex, std::int64_t from,
                                    std::int64_t to, double bytes) {
  const Shape& shape = mesh.shape();
  if (axisIndex < 0 || static_cast<std::size_t>(axisIndex) >= shape.size())
    throwValueError("group transfer: axis index " + std::to_string(axisIndex) + " outside the mesh's " +
                    std::to_string(shape.size()) + " axes");
  const std::int64_t p = shape[static_cast<std::size_t>(axisIndex)];
  if (from < 0 || from >= p || to < 0 || to >= p)
    throwValueError("group transfer: groups " + std::to_string(from) + " and " + std::to_string(to) +
                    " must lie in [0, " + std::to_string(p) + ")");
  if (!(bytes >= 0)) throwValueError("group transfer: bytes must not be negative");
  const AxisGroups along(shape, static_cast<std::size_t>(axisIndex));

  const auto& cells = mesh.grid.data();
  auto deviceAt = [&](std::int64_t g, std::int64_t j) -> const Device& {
    const int pos = cells[static_cast<std::size_t>(along.cell(g, j))];
    if (pos < 0 || static_cast<std::size_t>(pos) >= mesh.devices.size())
      throwValueError("group transfer: mesh grid entry " + std::to_string(pos) + " is not a device position");
    return mesh.devices[static_cast<std::size_t>(pos)];
  };
  auto nodeOf = [&](const Device& d) {
    const int n = graph.nodeOfDevice(d.id);
    if (n < 0) throwValueError("group transfer: mesh device id " + std::to_string(d.id) + " is not in the topology");
    return n;
  };

  struct Pair {
    std::vector<std::pair<int, int>> route;
  };
  std::vector<Pair> routes;
  routes.reserve(static_cast<std::size_t>(along.count()));
  const auto& links = graph.links();
  const auto& nodes = graph.nodes();
  std::vector<int> loadPlus(links.size(), 0), loadMinus(links.size(), 0);
  GroupTransferCost out;
  for (std::int64_t g = 0; g < along.count(); ++g) {
    const Device& a = deviceAt(g, from);
    const Device& b = deviceAt(g, to);
    if (a.process_index != b.process_index) out.crosses_hosts = true;
    if (a.slice_index.value_or(0) != b.slice_index.value_or(0)) out.crosses_slices = true;
    const int na = nodeOf(a), nb = nodeOf(b);
    Pair pair;
    graph.route(na, nb, pair.route);
    if (nodes[static_cast<std::size_t>(na)].slice != nodes[static_cast<std::size_t>(nb)].slice)
      out.crosses_slices = true;
    out.max_hops = std::max(out.max_hops, static_cast<int>(pair.route.size()));
    for (auto [id, dir] : pair.route) (dir > 0 ? loadPlus : loadMinus)[static_cast<std::size_t>(id)]++;
    routes.push_back(std::move(pair));
  }
  double slowest = std::numeric_limits<double>::infinity();
  for (std::size_t id = 0; id < links.size(); ++id) {
    if (loadPlus[id] == 0 && loadMinus[id] == 0) continue;
    out.uses_links = true;
    out.max_link_load = std::max({out.max_link_load, loadPlus[id], loadMinus[id]});
    if (links[id].bandwidth < slowest) {
      slowest = links[id].bandwidth;
      out.slowest_link = links[id].link_class;
    }
  }
  for (const auto& pair : routes) {
    if (pair.route.empty()) continue;
    double latency = 0, share = std::numeric_limits<double>::infinity();
    for (auto [id, dir] : pair.route) {
      const auto u = static_cast<std::size_t>(id);
      latency += links[u].latency;
      const int load = dir > 0 ? loadPlus[u] : loadMinus[u];
      share = std::min(share, links[u].bandwidth / std::max(load, 1));
    }
    const double seconds = latency + (share > 0 ? bytes / share : std::numeric_limits<double>::infinity());
    out.seconds = std::max(out.seconds, seconds);
  }
  return out;
}

} // namespace shardscope
