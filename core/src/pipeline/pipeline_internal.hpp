// SPDX-License-Identifier: Apache-2.0
// Internal: what the schedule generators and the timeline share.
#pragma once

#include "shardscope/pipeline/pipeline_schedule.hpp"

#include <cstdint>

namespace shardscope::pipeline_detail {

// Nodes of the dependency graph: per microbatch S forwards plus S backwards, or S BWD_I and S-1
// BWD_W when the backward is split (stage 0 keeps only its BWD_I).
std::int64_t graphNodeCount(std::int64_t num_stages, std::int64_t num_microbatches, bool partial_bwd);

// The engine's bounds (ValueError naming the field): num_stages, num_microbatches, and the number
// of raw schedule positions and graph nodes the request would build. Call after jaxpp's checks.
void checkPipelineBounds(const PipelineScheduleSpec& spec, std::int64_t num_microbatches);

} // namespace shardscope::pipeline_detail
