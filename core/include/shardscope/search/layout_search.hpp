// SPDX-License-Identifier: Apache-2.0
// Which layout should I run? Every factorisation of the device count over the axes the user allows,
// each axis order that JAX places differently, each rule set, ZeRO stage, recompute policy and
// micro-batch count, run through the real analysis (placement, shards, memory, step time) and
// ranked by step time among those that fit, then by memory headroom. Candidates JAX refuses to
// place, that do not fit in HBM or whose batch does not divide are counted by reason, not dropped
// silently; equivalent candidates (size-1 axes, orders that place alike) are merged.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/search/memory_fixes.hpp"

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

struct LayoutSearchOptions {
  // Axis names a candidate may use; empty = dp, fsdp, tp (+ ep for MoE models, + cp and sp when
  // the sequence is 32k tokens or longer). Names outside dp/fsdp/ep/cp/sp/tp are refused: cp is
  // context parallelism (the sequence split, weights whole: no preset names it), the others the
  // rule presets' roles.
  std::vector<std::string> axes;
  // Largest size per axis (absent = no limit).
  std::map<std::string, std::int64_t> max_size;
  // Rule presets to try; empty = the scenario's own rule choice, plus "fsdp-tp" (or "ep" for MoE
  // models) when that is a different choice.
  std::vector<std::string> presets;
  // Empty = the scenario's value only.
  std::vector<int> zero_stages;
  std::vector<Recompute> recompute;
  // Try every order of the axes (JAX places each order differently); off = the canonical order.
  bool orders = true;
  std::size_t top = 20; // rows kept, best first
  int threads = 2;      // worker threads (the machine's cores)
  // At most this many candidates are analysed; the rest are counted as "over the candidate limit".
  std::int64_t max_candidates = 20000;
};

struct LayoutRow {
  std::string mesh;                                       // "fsdp:2240,tp:4"
  std::vector<std::pair<std::string, std::int64_t>> axes; // in mesh order
  std::string rules;                                      // preset name, or "custom"
  int zero_stage = 0;
  Recompute recompute = Recompute::Selective;
  std::optional<double> step_time_s; // nullopt when the step could not be estimated
  std::optional<double> mfu;
  double max_bytes = 0;
  double hbm_bytes = 0;
  bool fits = false;
  std::string bound_by; // "compute", "hbm", "comm:<axis>", or "" when not estimated
  std::string why;      // one sentence: what bounds it
  Scenario scenario;    // the candidate as a scenario, to apply or compare
};

// The rejection reason of the candidates past LayoutSearchOptions::max_candidates (never analysed).
inline constexpr const char* kRejectedOverLimit = "over the candidate limit";

struct LayoutSearchResult {
  std::int64_t candidates_total = 0; // distinct candidates after merging equivalents
  std::int64_t merged = 0;           // equivalent candidates merged into another
  std::int64_t evaluated = 0;
  std::map<std::string, std::int64_t> rejected; // reason -> count
  std::vector<LayoutRow> rows;                  // fitting candidates, best first (at most `top`)
  std::optional<LayoutRow> current;             // the scenario's own layout, evaluated the same way
  // When the scenario's own layout does not fit: the smallest edits to it that do (memoryFixes),
  // ranked before any other layout (they keep the mesh the user chose).
  std::vector<MemoryFix> fixes;
  // One line per family of layouts (which axes are > 1) that lost, saying why its best member lost.
  std::vector<std::string> families;
  bool cancelled = false;
};

// Progress: (evaluated, total). May be called from worker threads, at most every few candidates.
using LayoutSearchProgress = std::function<void(std::int64_t, std::int64_t)>;

// Throws ValueError for options that name no usable axis, a device count no factorisation fits, or a
// model without an architecture config (no step time to rank by). A tp axis wider than the model's
// attention heads is refused unanalysed ("tp larger than the model's attention heads").
LayoutSearchResult searchLayouts(const Scenario& scenario, const LayoutSearchOptions& options,
                                 const LayoutSearchProgress& progress = {}, const std::atomic<bool>* cancel = nullptr);

// The workspace's own name for each search role it names otherwise (a MaxText workspace: dp is
// "data", tp "tensor", ep "expert", sp "context"): the names its rows come back in. Empty for a
// workspace that uses the role names or a preset's rules.
std::map<std::string, std::string> searchRoleNames(const Scenario& scenario);

// The ordered factorisations of n into `parts` factors >= 1 whose i-th factor is at most limits[i]
// (0 = no limit). Exposed for tests.
std::vector<std::vector<std::int64_t>> factorisations(std::int64_t n, std::size_t parts,
                                                      const std::vector<std::int64_t>& limits = {});

} // namespace shardscope

namespace shardscope {

// The JSON form the eval op `search` and `shardscope-cli search --format json` answer:
// {"candidates_total", "merged", "evaluated", "rejected": {reason: count}, "rows": [{"mesh", "axes":
// {name: size}, "rules", "zero_stage", "recompute", "step_time_s", "mfu", "max_bytes", "hbm_bytes",
// "fits", "bound_by", "why"}], "current": row | null, "fixes": [{"edit", "max_bytes", "hbm_bytes",
// "saved_bytes", "step_time_s", "step_time_change_s"}], "families": [line], "cancelled"}.
Json layoutSearchToJson(const LayoutSearchResult& result);
Json layoutRowToJson(const LayoutRow& row);

// Options from the eval request / CLI fields: "axes" (list of names), "max" ({axis: limit}),
// "presets", "zero_stages", "recompute" (["none", "selective", "full"]), "orders" (bool), "top".
LayoutSearchOptions layoutSearchOptionsFromJson(const Json& request);

} // namespace shardscope
