// SPDX-License-Identifier: Apache-2.0
// The `search` eval op: which layout to run for a workspace (docs/eval.md).
//   request: {"op": "search", "scenario": {workspace}, "axes"?: [names], "top"?: N, "max"?: {axis: size},
//             "presets"?: [..], "zero_stages"?: [..], "recompute"?: [..], "orders"?: bool,
//             "max_candidates"?: N}
//   result:  layoutSearchToJson (candidates_total, rejected by reason, ranked rows, current, families)
#include "eval_json.hpp"
#include "eval_ops.hpp"

#include "shardscope/search/layout_search.hpp"

namespace shardscope::eval {

Json opSearch(const Json& request, EvalContext& context) {
  const Scenario scenario = scenarioFromJson(requireField(request, "scenario"));
  LayoutSearchOptions options = layoutSearchOptionsFromJson(request);
  options.threads = 2;
  const LayoutSearchResult result = searchLayouts(scenario, options);
  if (result.rows.empty())
    context.warnings.push_back(
        result.rejected.count(kRejectedOverLimit)
            ? "no analysed candidate layout fits; some were over max_candidates and not analysed; "
              "see 'rejected'"
            : "no candidate layout fits; see 'rejected'");
  return layoutSearchToJson(result);
}

} // namespace shardscope::eval
