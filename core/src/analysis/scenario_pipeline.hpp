// SPDX-License-Identifier: Apache-2.0
// Internal: the workspace's `pipeline` section read and written on its own, so scenario.cpp only
// calls these two functions (its other sections are read there).
#pragma once

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/json_fields.hpp"

namespace shardscope::analysis {

// Reads `pipeline`; throws ValueError naming the field ("pipeline.microbatches must be ...").
// Checks that need the mesh or the model (the axis exists, stage counts, the layer sum) are the
// analysis' (pipeline_stage.cpp), so a workspace with a wrong pipeline still opens.
PipelineConfig readPipelineSection(const JsonField& section);
// The section as written back: unset sizes stay unset, so they keep following the mesh.
Json pipelineSectionToJson(const PipelineConfig& config);

} // namespace shardscope::analysis
