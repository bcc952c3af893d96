// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/engine_options.hpp"

#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/chips.hpp"

namespace shardscope {

std::string gradDtypeOf(const TrainingOptions& t) {
  if (!t.grad_dtype.empty()) return t.grad_dtype;
  // Aliases ("bf16") count as their canonical name.
  if (t.framework == Framework::Megatron && canonicalDtype(t.param_dtype).value_or(t.param_dtype) == "bfloat16")
    return "float32";
  return t.param_dtype;
}

double gradBytesOverride(const TrainingOptions& t) {
  const std::string dtype = gradDtypeOf(t);
  const auto bytes = dtypeBytes(dtype);
  if (!bytes) throwValueError("training.grad_dtype: unknown dtype '" + dtype + "'");
  const auto canonical = [](const std::string& d) { return canonicalDtype(d).value_or(d); };
  return canonical(dtype) == canonical(t.param_dtype) ? 0.0 : *bytes;
}

namespace {

// The chip's dense peak per chip for the weight matmuls at `precision`; 0 for bf16 and fp16 (the
// bf16 peak). Refused when the chip has no published peak at that precision.
double matmulPeakOf(const ChipSpec& chip, Precision precision) {
  if (!isEightBit(precision)) return 0;
  const auto peakOf = [precision](const ChipSpec& c) {
    return precision == Precision::Fp8 ? c.peak_fp8_flops : c.peak_int8_ops;
  };
  if (const double peak = peakOf(chip); peak > 0) return peak;
  std::string offered;
  for (const ChipSpec& c : chipCatalog())
    if (peakOf(c) > 0) offered += (offered.empty() ? "" : ", ") + c.key;
  throwValueError("training.precision \"" + std::string(precisionName(precision)) + "\": the " + chip.device_kind +
                  " has no published " + (precision == Precision::Fp8 ? "FP8" : "INT8") +
                  " matmul peak (chips with one: " + offered + ")");
}

} // namespace

MemoryOptions memoryOptionsFromTraining(const TrainingOptions& t, const std::string& deviceKind) {
  MemoryOptions o;
  o.grad_bytes_per_element = gradBytesOverride(t);
  o.workload = t.workload;
  o.optimizer = t.optimizer;
  o.master_weights_fp32 = t.master_weights_fp32;
  o.micro_batch = t.micro_batch;
  o.seq_len = t.seq_len;
  o.recompute = t.recompute;
  o.custom_remat = t.custom_remat;
  o.attention = t.attention;
  o.serve_batch = t.serve_batch;
  o.context_len = t.context_len;
  auto kv = dtypeBytes(t.kv_dtype);
  if (!kv) throwValueError("training.kv_dtype: unknown dtype '" + t.kv_dtype + "'");
  o.kv_bytes_per_element = *kv;
  o.device_kind = deviceKind;
  o.hbm_bytes_override = t.hbm_bytes_override;
  o.sequence_parallel = t.sequence_parallel;
  o.framework = t.framework;
  return o;
}

bool defaultTensorOverlap(Framework framework, const std::string& deviceKind) {
  const ChipSpec* chip = findChip(deviceKind);
  return framework == Framework::MaxText && chip && chip->platform == Platform::Tpu;
}

ContextAttention defaultContextAttention(Framework framework) {
  return framework == Framework::Megatron ? ContextAttention::Ring : ContextAttention::AllGather;
}

LinkParams linkParamsOf(const Scenario& scenario) {
  const ChipSpec* chip = findChip(scenario.topology.chip);
  if (!chip) throwValueError("unknown chip '" + scenario.topology.chip + "'");
  LinkParams p = defaultLinkParams(*chip);
  const LinkOverrides& o = scenario.links;
  p.ici_bandwidth = o.ici_bandwidth.value_or(p.ici_bandwidth);
  p.ici_latency = o.ici_latency.value_or(p.ici_latency);
  p.uplink_bandwidth = o.uplink_bandwidth.value_or(p.uplink_bandwidth);
  p.uplink_latency = o.uplink_latency.value_or(p.uplink_latency);
  p.twisted = o.twisted;
  return p;
}

StepOptions stepOptionsFromScenario(const Scenario& scenario, const std::string& deviceKind) {
  const TrainingOptions& t = scenario.training;
  StepOptions o;
  o.micro_batch = t.micro_batch;
  o.microbatches = t.microbatches;
  o.seq_len = t.seq_len;
  o.recompute = t.recompute;
  o.custom_remat = t.custom_remat;
  o.attention = t.attention;
  o.sequence_parallel = t.sequence_parallel;
  o.zero_stage = t.zero_stage;
  o.optimizer = t.optimizer;
  o.master_weights_fp32 = t.master_weights_fp32;
  const auto bytes = dtypeBytes(t.param_dtype);
  if (!bytes) throwValueError("training.param_dtype: unknown dtype '" + t.param_dtype + "'");
  o.param_bytes = *bytes;
  o.grad_bytes = gradBytesOverride(t);
  o.batch_axes = t.batch_axes;
  o.seq_axes = t.seq_axes;
  o.framework = t.framework;
  o.precision = t.precision;
  o.overlap_tensor_comm =
      scenario.performance.overlap_tensor_comm.value_or(defaultTensorOverlap(t.framework, deviceKind));
  o.context_attention = scenario.performance.context_attention.value_or(defaultContextAttention(t.framework));

  const LinkParams links = linkParamsOf(scenario);
  const ChipSpec* chip = findChip(deviceKind);
  o.chip = chip ? chip->key : deviceKind;
  if (chip) {
    // A device is one of the chip's TensorCores: its share of the chip's published figures.
    o.devices_per_chip = devicesPerChip(*chip, scenario.topology.cores_per_chip);
    o.peak_flops = {chip->peak_bf16_flops / o.devices_per_chip, FigureSource::Chip};
    o.peak_matmul_flops = {matmulPeakOf(*chip, t.precision) / o.devices_per_chip, FigureSource::Chip};
    o.hbm_bandwidth = {chip->hbm_bandwidth / o.devices_per_chip, FigureSource::Chip};
    o.calibration = defaultCalibration(*chip);
    o.matmul_tile = matmulTileOf(*chip);
  }
  const LinkOverrides& edited = scenario.links;
  const auto source = [](bool user) { return user ? FigureSource::User : FigureSource::Chip; };
  o.link_bandwidth = {links.ici_bandwidth, source(edited.ici_bandwidth.has_value())};
  o.uplink_bandwidth = {links.uplink_bandwidth, source(edited.uplink_bandwidth.has_value())};
  o.link_latency = links.ici_latency;
  o.calibration.hop_latency = {links.ici_latency, source(edited.ici_latency.has_value())};

  const PerformanceOptions& p = scenario.performance;
  const auto apply = [](SourcedValue& v, const std::optional<double>& edit) {
    if (edit) v = {*edit, FigureSource::User};
  };
  apply(o.calibration.flops_fraction, p.flops_fraction);
  apply(o.calibration.link_fraction, p.link_fraction);
  apply(o.calibration.hbm_fraction, p.hbm_fraction);
  apply(o.calibration.attention_fraction, p.attention_fraction);
  // A chip without a published attention benchmark runs attention at flops_fraction: the user's
  // flops_fraction too, unless attention_fraction is set.
  if (o.calibration.attention_fraction.source == FigureSource::Default)
    o.calibration.attention_fraction.value = o.calibration.flops_fraction.value;
  apply(o.calibration.hop_latency, p.hop_latency);
  return o;
}

} // namespace shardscope
