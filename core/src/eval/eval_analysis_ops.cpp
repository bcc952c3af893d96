// SPDX-License-Identifier: Apache-2.0
// The `analyze` eval op: a whole workspace in, the analysis the GUI shows out.
//   request: {"op": "analyze", "scenario": {workspace JSON, see docs/workspace.md}, "per_device": false}
//   result:  analysisToJson (mesh, params, memory, comm, diagnostics); a mesh that cannot be placed
//            answers the reference's error (NotImplementedError / ValueError / AssertionError).
#include "eval_json.hpp"
#include "eval_ops.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"

namespace shardscope::eval {

Json opAnalyze(const Json& request, EvalContext& context) {
  refuseUnknownFields(request, {"op", "scenario", "per_device"}, "analyze");
  const Scenario scenario = scenarioFromJson(requireField(request, "scenario"));
  const Analysis analysis = analyze(scenario);
  for (const auto& d : analysis.diagnostics)
    if (d.severity != Diagnostic::Severity::Info)
      context.warnings.push_back("[" + sectionName(d.section) + "] " + (d.subject.empty() ? "" : d.subject + ": ") +
                                 d.message);
  return analysisToJson(analysis, boolField(request, "per_device", false));
}

} // namespace shardscope::eval
