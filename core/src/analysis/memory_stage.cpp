#include "analysis_stages.hpp"

#include "shardscope/errors.hpp"
#include "shardscope/memory.hpp"

namespace shardscope::analysis {

namespace {

// Product of the sizes of the named mesh axes that exist; absent names are reported once.
std::int64_t degreeOf(const std::vector<std::string>& names, const Mesh& mesh, const char* what, Analysis& out) {
  std::int64_t degree = 1;
  for (const auto& name : names) {
    const auto size = mesh.axisSize(name);
    if (size == 0) {
      note(out, Diagnostic::Severity::Info, "memory", name,
           std::string("the ") + what + " axis '" + name + "' is not in the mesh, so it does not split activations");
      continue;
    }
    degree *= size;
  }
  return degree;
}

} // namespace

void estimateDeviceMemory(const Scenario& scenario, const Model& model, const ShardPlan& plan, Analysis& out) {
  try {
    // In SPMD every device allocates one (padded) block of every array, so the parameter bytes are
    // the same on all devices; what varies is what the blocks hold, shown by the sharding table.
    DeviceParamShards perDevice;
    for (const auto& p : plan.params) {
      const auto& layout = p.layout;
      const double bytesPerElement =
          layout.shard_elements > 0 ? static_cast<double>(layout.shard_bytes) / static_cast<double>(layout.shard_elements) : 0.0;
      addParamShard(perDevice, layout.shard_shape, bytesPerElement);
    }
    const std::string deviceKind = out.mesh.devices.empty() ? std::string() : out.mesh.devices.front().device_kind;
    MemoryOptions options = memoryOptionsFromTraining(scenario.training, deviceKind);
    options.batch_degree = degreeOf(scenario.training.batch_axes, out.mesh, "batch", out);
    options.seq_degree = degreeOf(scenario.training.seq_axes, out.mesh, "sequence", out);
    // Megatron-style tensor parallelism splits heads and the MLP width over the `tp` axis.
    options.tensor_degree = std::max<std::int64_t>(1, out.mesh.axisSize("tp"));

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
    for (const auto& text : estimate.notes) note(out, Diagnostic::Severity::Info, "memory", "", text);
  } catch (const Error& e) {
    note(out, Diagnostic::Severity::Error, "memory", "", e.what());
  }
}

} // namespace shardscope::analysis
