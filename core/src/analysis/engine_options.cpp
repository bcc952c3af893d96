// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/engine_options.hpp"

#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/chips.hpp"

namespace shardscope {

MemoryOptions memoryOptionsFromTraining(const TrainingOptions& t, const std::string& deviceKind) {
  MemoryOptions o;
  o.workload = t.workload;
  o.optimizer = t.optimizer;
  o.master_weights_fp32 = t.master_weights_fp32;
  o.micro_batch = t.micro_batch;
  o.seq_len = t.seq_len;
  o.recompute = t.recompute;
  o.serve_batch = t.serve_batch;
  o.context_len = t.context_len;
  auto kv = dtypeBytes(t.kv_dtype);
  if (!kv) throwValueError("training.kv_dtype: unknown dtype '" + t.kv_dtype + "'");
  o.kv_bytes_per_element = *kv;
  o.device_kind = deviceKind;
  o.hbm_bytes_override = t.hbm_bytes_override;
  return o;
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

} // namespace shardscope
