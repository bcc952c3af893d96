// SPDX-License-Identifier: Apache-2.0
// The JSON form of an Analysis (what `shardscope-cli shard --format json` and the `analyze` eval op
// print). Per-device memory is summarised unless asked for, since a pod has thousands of devices.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/json.hpp"

#include <iosfwd>

namespace shardscope {

Json analysisToJson(const Analysis& analysis, bool perDevice = false);

// The `mesh` object every command prints: axis_names, shape, device_count, placement (one path per
// slice placement), axes [{name, size, ici, dcn, explanation}].
Json meshToJson(const Analysis& analysis);

// The `step` object (docs/step-time.md): time_s, tokens_per_s, mfu, model_flops, hardware_flops,
// compute_s, hbm_s, exposed_comm_s, bound_by, per_axis, critical, summary, and the figures used
// with their sources.
Json stepToJson(const StepEstimate& step);

// The `activations` object of a memory estimate: per_layer, layers, output_layer, loss_gradient,
// recompute_layer, kept (what the layers and the output layer keep for the backward) and total
// (at the backward's peak).
Json activationBreakdownJson(const ActivationBreakdown& activations);

// Writes exactly what dumpJson(analysisToJson(analysis, perDevice), indent) returns, but builds the
// per-device list one device at a time: for a million devices that list alone was over 1 GB as a
// document (and the whole answer over 2 GB as text plus document).
void writeAnalysisJson(std::ostream& out, const Analysis& analysis, bool perDevice, int indent);

} // namespace shardscope
