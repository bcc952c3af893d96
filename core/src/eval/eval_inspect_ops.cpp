// SPDX-License-Identifier: Apache-2.0
// Eval op `inspect`: a text JAX or XLA printed (lowered StableHLO, HLO, an out-of-memory report)
// read as `shardscope-cli inspect` reads it (docs/inspect.md).
//   {"op": "inspect", "text": "HloModule ...", "kind": "hlo" | "stablehlo" | "oom" (optional: recognised),
//    "mesh": "data:4,model:2" (optional), "topology": "v5p:2x2x2" (optional: prices the collectives),
//    "scenario": {workspace JSON} (optional: its topology and mesh), "source": "name for messages"}
//   -> the InspectResult JSON (kind, meshes, arguments, results, collectives, oom, flags, ...)
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"

namespace shardscope::eval {

Json opInspect(const Json& request, EvalContext&) {
  const JsonField req = fields(request);
  req.checkKeys({"op", "text", "kind", "mesh", "topology", "scenario", "source"});
  InspectOptions options;
  options.source_name = req["source"].stringOr("input");
  if (req["kind"].present()) {
    static const std::vector<std::string_view> kKinds{"stablehlo", "hlo", "oom"};
    options.kind = kInspectKindNames[req["kind"].toChoice(kKinds)].second;
  }
  InspectPlacement placement;
  placement.mesh = req["mesh"].optionalString();
  placement.topology = req["topology"].optionalString();
  if (req["scenario"].present()) placement.workspace = scenarioFromJson(req["scenario"].toObject());
  const std::string text = req["text"].toString();
  return inspectResultToJson(inspectPlaced(text, std::move(options), placement));
}

} // namespace shardscope::eval
