// SPDX-License-Identifier: Apache-2.0
#include "shardscope/eval/eval.hpp"

#include "base/json_input.hpp"
#include "base/quoted_text.hpp"
#include "eval_ops.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/json_text.hpp"

#include <algorithm>

namespace shardscope {

namespace eval {

const std::map<std::string, EvalOp>& evalOps() {
  static const std::map<std::string, EvalOp> ops = {
      // models and per-device memory (eval_model_ops.cpp)
      {"analyze", opAnalyze},
      {"search", opSearch},
      {"model_params", opModelParams},
      {"memory_estimate", opMemoryEstimate},

      // device-mesh engine (eval_mesh_ops.cpp)
      {"create_device_mesh", &eval::opCreateDeviceMesh},
      {"create_hybrid_device_mesh", &eval::opCreateHybridDeviceMesh},
      {"make_mesh", &eval::opMakeMesh},

      // eformer mesh creation and jaxpp MpmdMesh (eval_eformer_mesh_ops.cpp)
      {"create_mesh", opCreateMesh},
      {"calculate_host_mesh_shape", opCalculateHostMeshShape},
      {"parse_mesh_from_string", opParseMeshFromString},
      {"mpmd_mesh", opMpmdMesh},

      // sharding rules and shards (eval_sharding_ops.cpp)
      {"partition_helper", opPartitionHelper},
      {"match_partition_rules", opMatchPartitionRules},
      {"corrected_sharding", opCorrectedSharding},
      {"shape_based_rule", opShapeBasedRule},
      {"memory_constrained_rule", opMemoryConstrainedRule},
      {"auto_sharding_rule", opAutoShardingRule},
      {"composite_rule", opCompositeRule},
      {"shard", opShard},
      // XLA HLO sharding text (eval_hlo_ops.cpp)
      {"hlo_sharding", opHloSharding},
      {"inspect", opInspect},

      // comm (eval_comm_ops.cpp)
      {"links", &evalLinks},
      {"hops", &evalHops},
      {"axis_report", &evalAxisReport},

      // jaxpp pipeline schedules and their timelines (eval_pipeline_ops.cpp)
      {"pipeline_schedule", opPipelineSchedule},
  };
  return ops;
}

} // namespace eval

namespace {
Json failure(std::string_view type, const std::string& message) {
  Json out;
  out["ok"] = false;
  out["error"] = {{"type", type}, {"message", message}};
  return out;
}
} // namespace

Json evalRequest(const Json& request) {
  try {
    if (!request.is_object()) return failure("ValueError", "request must be a JSON object");
    const JsonField op = requestFields(request)["op"];
    if (!op.present()) op.fail("is missing (a string naming the operation)");
    if (!op.json().is_string()) op.fail("must be a string naming the operation, got " + jsonRepr(op.json()));
    const std::string name = op.json().get<std::string>();
    const auto& ops = eval::evalOps();
    auto found = ops.find(name);
    if (found == ops.end()) {
      std::string known;
      std::vector<std::string_view> names;
      for (const auto& [opName, fn] : ops) {
        known += (known.empty() ? "" : ", ") + opName;
        names.push_back(opName);
      }
      const std::string guess = closestKey(name, names);
      return failure("ValueError", "unknown op " + shardscope::quoted(name) +
                                       (guess.empty() ? "" : " (did you mean '" + guess + "'?)") +
                                       "; known ops: " + known);
    }
    eval::EvalContext context;
    Json result = found->second(request, context);
    Json out;
    out["ok"] = true;
    out["result"] = std::move(result);
    if (!context.warnings.empty()) out["warnings"] = context.warnings;
    return out;
  } catch (const Error& e) {
    return failure(errorKindName(e.kind()), e.what());
  } catch (const nlohmann::json::exception& e) {
    return failure("ValueError", std::string("malformed request: ") + e.what());
  } catch (const std::bad_alloc&) {
    return failure("MemoryError", "the request needs more memory than is available");
  } catch (const std::exception& e) {
    return failure("RuntimeError", e.what());
  }
}

std::string evalLineTooLong(std::size_t length) {
  return dumpJson(failure("ValueError", "request line of " + std::to_string(length) + " bytes exceeds the limit of " +
                                            std::to_string(kMaxEvalLineBytes) + " bytes"));
}

std::string evalLineOverLimit() {
  return dumpJson(failure("ValueError", "request line longer than the limit of " + std::to_string(kMaxEvalLineBytes) +
                                            " bytes; the rest of the line is skipped"));
}

std::string evalLine(std::string_view line) {
  if (line.size() > kMaxEvalLineBytes) return evalLineTooLong(line.size());
  Json request;
  try {
    request = parseJsonText(line, "request");
  } catch (const Error& e) {
    return dumpJson(failure(errorKindName(e.kind()), e.what()));
  }
  // The answer's text may not fit in memory even when the answer did (a 16-D sharding of a million
  // devices): that is the request's MemoryError, and the stream goes on.
  try {
    return dumpJson(evalRequest(request));
  } catch (const std::bad_alloc&) {
    return dumpJson(failure("MemoryError", "the answer needs more memory than is available"));
  } catch (const nlohmann::json::exception& e) {
    return dumpJson(failure("ValueError", std::string("the answer cannot be written as JSON: ") + e.what()));
  }
}

std::vector<std::string> evalOpNames() {
  std::vector<std::string> names;
  for (const auto& [name, fn] : eval::evalOps()) names.push_back(name);
  return names;
}

} // namespace shardscope
