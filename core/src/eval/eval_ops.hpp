// SPDX-License-Identifier: Apache-2.0
// Internal: the table of eval ops. Each module's ops live in their own eval_*.cpp file.
#pragma once

#include "shardscope/eval/eval.hpp"

#include <map>
#include <string>
#include <vector>

namespace shardscope::eval {

// What an op may say besides its result: notes where the reference would silently change what the
// user asked for. They travel as a top-level "warnings" list beside "result".
struct EvalContext {
  std::vector<std::string> warnings;
};

using EvalOp = Json (*)(const Json& request, EvalContext& context);

const std::map<std::string, EvalOp>& evalOps();

// --- device-mesh engine (eval_mesh_ops.cpp)
Json opCreateDeviceMesh(const Json& request, EvalContext& context);
Json opCreateHybridDeviceMesh(const Json& request, EvalContext& context);
Json opMakeMesh(const Json& request, EvalContext& context);

// --- eformer mesh creation and jaxpp MpmdMesh (eval_eformer_mesh_ops.cpp)
Json opCreateMesh(const Json& request, EvalContext& context);
Json opCalculateHostMeshShape(const Json& request, EvalContext& context);
Json opParseMeshFromString(const Json& request, EvalContext& context);
Json opMpmdMesh(const Json& request, EvalContext& context);

// --- sharding rules and shards (eval_sharding_ops.cpp)
Json opPartitionHelper(const Json& request, EvalContext& context);
Json opMatchPartitionRules(const Json& request, EvalContext& context);
Json opCorrectedSharding(const Json& request, EvalContext& context);
Json opShapeBasedRule(const Json& request, EvalContext& context);
Json opMemoryConstrainedRule(const Json& request, EvalContext& context);
Json opAutoShardingRule(const Json& request, EvalContext& context);
Json opCompositeRule(const Json& request, EvalContext& context);
Json opShard(const Json& request, EvalContext& context);
// --- XLA HLO sharding text (eval_hlo_ops.cpp)
Json opHloSharding(const Json& request, EvalContext& context);

// --- what JAX and XLA printed: lowered modules, HLO, OOM reports (eval_inspect_ops.cpp)
Json opInspect(const Json& request, EvalContext& context);

// --- comm: link graph and per-axis communication (eval_comm_ops.cpp)
Json evalLinks(const Json& request, EvalContext& context);
Json evalHops(const Json& request, EvalContext& context);
Json evalAxisReport(const Json& request, EvalContext& context);

// --- a whole workspace (eval_analysis_ops.cpp)
Json opAnalyze(const Json& request, EvalContext& context);
// --- which layout to run (eval_search_ops.cpp)
Json opSearch(const Json& request, EvalContext& context);

// --- models and per-device memory (eval_model_ops.cpp)
Json opModelParams(const Json& request, EvalContext& context);
Json opMemoryEstimate(const Json& request, EvalContext& context);

// --- jaxpp pipeline schedules and their timelines (eval_pipeline_ops.cpp)
Json opPipelineSchedule(const Json& request, EvalContext& context);

} // namespace shardscope::eval
