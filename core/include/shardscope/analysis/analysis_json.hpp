// SPDX-License-Identifier: Apache-2.0
// The JSON form of an Analysis (what `shardscope-cli shard --format json` and the `analyze` eval op
// print). Per-device memory is summarised unless asked for, since a pod has thousands of devices.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/json.hpp"

namespace shardscope {

Json analysisToJson(const Analysis& analysis, bool perDevice = false);

// The `step` object (docs/step-time.md): time_s, tokens_per_s, mfu, model_flops, hardware_flops,
// compute_s, hbm_s, exposed_comm_s, bound_by, per_axis, critical, summary, and the figures used
// with their sources.
Json stepToJson(const StepEstimate& step);

} // namespace shardscope
