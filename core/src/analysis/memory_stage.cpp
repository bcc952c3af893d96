// SPDX-License-Identifier: Apache-2.0
#include "analysis_stages.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/cost/memory.hpp"

#include <algorithm>
#include <functional>

namespace shardscope::analysis {

namespace {

// Product of the sizes of the named mesh axes that exist; absent names are reported when `out` is
// given. A name listed twice counts once (the workspace reader refuses it; a scenario edited in
// code may not).
std::int64_t degreeOf(const std::vector<std::string>& names, const Mesh& mesh, const char* what, Analysis* out) {
  std::int64_t degree = 1;
  for (std::size_t i = 0; i < names.size(); ++i) {
    const std::string& name = names[i];
    if (std::find(names.begin(), names.begin() + static_cast<std::ptrdiff_t>(i), name) !=
        names.begin() + static_cast<std::ptrdiff_t>(i)) {
      if (out)
        note(*out, Diagnostic::Severity::Warning, DiagnosticSection::Memory, name,
             std::string("the ") + what + " axis '" + name + "' is listed twice; it splits activations once");
      continue;
    }
    const auto size = mesh.axisSize(name);
    if (size == 0) {
      if (out)
        note(*out, Diagnostic::Severity::Info, DiagnosticSection::Memory, name,
             std::string("the ") + what + " axis '" + name + "' is not in the mesh, so it does not split activations");
      continue;
    }
    degree *= size;
  }
  return degree;
}

// ZeRO-1/2's slice of one parameter shard's optimizer state: the shard split `degree` ways along
// its largest dimension (DeepSpeed partitions the flat state; splitting one dimension gives the
// same element count, rounded up, and keeps Adafactor's factored statistics meaningful).
Shape zeroSlice(Shape shard, std::int64_t degree) {
  if (degree <= 1 || shard.empty()) return shard;
  auto largest = std::max_element(shard.begin(), shard.end());
  *largest = *largest / degree + (*largest % degree != 0 ? 1 : 0);
  return shard;
}

// Product of the sizes of the batch axes that shard the data but not this parameter: the
// replicas ZeRO spreads its optimizer state over.
std::int64_t zeroDegree(const ArrayLayout& layout, const std::vector<int>& batchAxes, const Mesh& mesh) {
  std::int64_t degree = 1;
  for (int a : batchAxes)
    if (static_cast<std::size_t>(a) >= layout.axis_used.size() || !layout.axis_used[static_cast<std::size_t>(a)])
      degree *= mesh.shape()[static_cast<std::size_t>(a)];
  return degree;
}

} // namespace

std::vector<DeviceParamShards> paramShardsByBucket(const Scenario& scenario, const ShardGroups& plan, const Mesh& mesh,
                                                   std::size_t buckets, const std::function<int(std::size_t)>& bucketOf,
                                                   const std::function<Shape(std::uint32_t, const Shape&)>& shardOf) {
  std::vector<DeviceParamShards> out(buckets);
  std::vector<double> bytesPerElement;
  std::vector<Shape> shards;
  bytesPerElement.reserve(plan.plans.size());
  shards.reserve(plan.plans.size());
  for (std::uint32_t g = 0; g < plan.plans.size(); ++g) {
    const auto& layout = plan.plans[g].layout;
    bytesPerElement.push_back(layout.shard_elements > 0
                                  ? static_cast<double>(layout.shard_bytes) / static_cast<double>(layout.shard_elements)
                                  : 0.0);
    shards.push_back(shardOf ? shardOf(g, layout.shard_shape) : layout.shard_shape);
  }
  auto bucket = [&](std::size_t i) -> DeviceParamShards* {
    const int b = bucketOf ? bucketOf(i) : 0;
    return b >= 0 && static_cast<std::size_t>(b) < buckets ? &out[static_cast<std::size_t>(b)] : nullptr;
  };
  // Parameter by parameter (not group by group), so that the sums round exactly as before.
  const int zero = scenario.training.workload == Workload::Training ? scenario.training.zero_stage : 0;
  if (zero == 0) {
    for (std::size_t i = 0; i < plan.group_of.size(); ++i)
      if (DeviceParamShards* d = bucket(i)) {
        const std::uint32_t g = plan.group_of[i];
        addParamShard(*d, shards[g], bytesPerElement[g]);
      }
  } else {
    std::vector<int> batchAxes;
    const auto addAxes = [&](const std::vector<std::string>& names) {
      for (const auto& name : names)
        if (const int a = mesh.axisIndex(name);
            a >= 0 && std::find(batchAxes.begin(), batchAxes.end(), a) == batchAxes.end())
          batchAxes.push_back(a);
    };
    addAxes(scenario.training.batch_axes);
    // Megatron-LM's distributed optimizer shards over the data-parallel group with the
    // context-parallel ranks in it (intra_dp_cp_group): a sequence axis holds replicas too.
    if (scenario.training.framework == Framework::Megatron) addAxes(scenario.training.seq_axes);
    std::vector<Shape> slices;
    slices.reserve(plan.plans.size());
    for (std::uint32_t g = 0; g < plan.plans.size(); ++g)
      slices.push_back(zeroSlice(shards[g], zeroDegree(plan.plans[g].layout, batchAxes, mesh)));
    for (std::size_t i = 0; i < plan.group_of.size(); ++i)
      if (DeviceParamShards* d = bucket(i)) {
        const std::uint32_t g = plan.group_of[i];
        addParamShard(*d, shards[g], bytesPerElement[g], /*optimizerFollows=*/false);
        addOptimizerShard(*d, slices[g], /*withGrads=*/zero >= 2);
      }
  }
  return out;
}

std::int64_t tensorDegreeOf(const Scenario& scenario, const ShardGroups& plan, const Model& model, const Mesh& mesh) {
  const auto& names = mesh.axis_names;
  const auto listed = [&](const std::vector<std::string>& list, const std::string& name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  std::int64_t degree = 1;
  for (std::size_t a = 0; a < names.size(); ++a) {
    const std::int64_t size = mesh.shape()[a];
    if (size <= 1 || listed(scenario.training.batch_axes, names[a]) || listed(scenario.training.seq_axes, names[a]) ||
        (scenario.pipeline && scenario.pipeline->axis == names[a]))
      continue;
    // A weight of rank 2 or more that is not a routed expert (an expert axis spreads experts, it
    // does not split a layer's activations).
    bool splitsLayers = false;
    for (std::size_t g = 0; g < plan.plans.size() && !splitsLayers; ++g) {
      const auto& layout = plan.plans[g].layout;
      if (layout.shape.size() < 2 || a >= layout.axis_used.size() || !layout.axis_used[a]) continue;
      splitsLayers = !isRoutedExpertParam(model.params[plan.first[g]]);
    }
    if (splitsLayers) degree *= size;
  }
  return degree;
}

MemoryOptions deviceMemoryOptions(const Scenario& scenario, const ShardGroups& plan, const Model& model, Analysis& out,
                                  bool noteMissingAxes) {
  const std::string deviceKind = out.mesh.devices.empty() ? std::string() : out.mesh.devices.front().device_kind;
  MemoryOptions options = memoryOptionsFromTraining(scenario.training, deviceKind);
  options.batch_degree = degreeOf(scenario.training.batch_axes, out.mesh, "batch", noteMissingAxes ? &out : nullptr);
  options.seq_degree = degreeOf(scenario.training.seq_axes, out.mesh, "sequence", noteMissingAxes ? &out : nullptr);
  options.tensor_degree = tensorDegreeOf(scenario, plan, model, out.mesh);
  options.cores_per_chip = scenario.topology.cores_per_chip;
  if (noteMissingAxes && scenario.training.workload == Workload::Training && scenario.training.grad_dtype.empty() &&
      options.grad_bytes_per_element > 0)
    note(out, Diagnostic::Severity::Info, DiagnosticSection::Memory, "",
         "gradients in " + gradDtypeOf(scenario.training) + ", not the parameters' " + scenario.training.param_dtype +
             ": Megatron-LM accumulates and all-reduces a bfloat16 model's gradients in fp32 (its main_grad "
             "buffers); training.grad_dtype overrides");
  if (noteMissingAxes && scenario.training.sequence_parallel && options.tensor_degree == 1)
    note(out, Diagnostic::Severity::Info, DiagnosticSection::Memory, "",
         "training.sequence_parallel has no effect: no mesh axis splits the layers' weights (no tensor axis)");
  return options;
}

void estimateDeviceMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan,
                          PipelinePlanned* pipeline, Analysis& out) {
  try {
    // In SPMD every device allocates one (padded) block of every array, so the parameter bytes are
    // the same on all devices; what varies is what the blocks hold, shown by the sharding table.
    const DeviceParamShards perDevice = paramShardsByBucket(scenario, plan, out.mesh, 1).front();
    const MemoryOptions options = deviceMemoryOptions(scenario, plan, model, out, /*noteMissingAxes=*/true);

    const std::vector<DeviceParamShards> devices(out.mesh.devices.size(), perDevice);
    const MemoryEstimate estimate = estimateMemory(devices, model, options);

    MemorySummary& m = out.memory;
    m.per_device.assign(out.mesh.devices.size(), DeviceMemory{});
    for (std::size_t i = 0; i < estimate.per_device.size(); ++i) {
      const auto& b = estimate.per_device[i];
      // The fp32 master copy is optimizer-side state (it lives beside m and v).
      m.per_device[i] = {b.params, b.grads, b.optimizer + b.master_weights, b.activations, b.kv_cache};
    }
    m.max_bytes = estimate.max_bytes;
    m.mean_bytes = estimate.mean_bytes;
    m.argmax = estimate.argmax;
    m.hbm_bytes = estimate.hbm_bytes;
    m.out_of_memory = estimate.out_of_memory;
    m.activations = estimate.activations;
    for (const auto& text : estimate.notes) note(out, Diagnostic::Severity::Info, DiagnosticSection::Memory, "", text);
    // Under a scheduled pipeline a device holds its rank's stages and micro-batches in flight.
    if (pipeline && pipeline->section.scheduled && pipeline->layers_ok)
      pipelineRankMemory(scenario, model, plan, *pipeline, out);
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, DiagnosticSection::Memory, "", e.what());
  }
}

} // namespace shardscope::analysis
