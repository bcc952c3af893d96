// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli search`: which layout should I run? Runs the core layout search
// (search/layout_search.hpp) over the workspace and prints the ranked candidates, the
// workspace's own layout evaluated the same way, what was rejected and why, and one line per
// family of layouts saying why its best member lost. `--format json` prints layoutSearchToJson.
#include "cli.hpp"
#include "cli_options.hpp"
#include "text_table.hpp"

#include "shardscope/base/units.hpp"
#include "shardscope/search/layout_search.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/sharding/logical_axes.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli search [WORKSPACE.json] [--axes dp,fsdp,tp] [--top N] [--max AXIS=N,...]\n"
         "                             [--presets A,B] [--zero 0,1,2] [--recompute none,selective,full]\n"
         "                             [--no-orders] [--max-candidates N] [--format table|json]\n\n"
         "Which layout should I run? Every way to split the workspace's devices over the axes (each\n"
         "axis order JAX places differently, each rule preset, ZeRO stage and recompute policy) is run\n"
         "through the full analysis (placement, shards, memory, step time) and ranked by step time\n"
         "among those that fit in HBM, then by memory. Prints the best N, the workspace's own layout,\n"
         "the rejected candidates by reason and, per family of layouts, why its best member lost.\n"
         "When the workspace's own layout does not fit, the smallest edits of it that do come first\n"
         "(a smaller micro-batch with more accumulation steps, a heavier remat policy, ZeRO; pairs of\n"
         "them when no single edit fits): the bytes each saves and the step time it costs.\n"
         "Model, topology, batch and sequence come from the workspace (default: the built-in one).\n\n"
         "  --axes A,B,...      axes a layout may use: dp, fsdp, tp, ep, cp, sp (default dp,fsdp,tp,\n"
         "                      + ep for MoE models, + cp and sp for sequences of 32k tokens or more;\n"
         "                      cp: context parallelism, the sequence split with the weights whole)\n"
         "  --top N             rows to print (default 20)\n"
         "  --max AXIS=N,...    largest size per axis, e.g. tp=8\n"
         "  --presets A,B       rule presets to try (default: the workspace's, and fsdp-tp or ep)\n"
         "  --zero 0,1,2        ZeRO stages to try (default: the workspace's)\n"
         "  --recompute P,...   recompute policies to try: none, selective, full (default: the workspace's)\n"
         "  --no-orders         only the canonical axis order (dp, fsdp, ep, cp, sp, tp)\n"
         "  --max-candidates N  analyse at most N candidates (default 20000, at most 1000000), shared\n"
         "                      fairly by the families of layouts; the rest are counted as rejected\n"
         "  --format F          table (default) or json (the eval op `search`'s result, docs/eval.md)\n\n"
         "Step time and MFU are from the step estimate (docs/step-time.md); memory is the fullest\n"
         "device's bytes against its HBM (the chip's, halved on two-device TPU v2, v3 and 7x chips).\n"
         "Exit status 1 when the search cannot use the options (an axis no rule preset knows, a\n"
         "device count no split within the limits fits).\n";
}

std::vector<std::string> splitList(const std::string& flag, const std::string& text) {
  std::vector<std::string> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part.empty()) throw UsageError(flag + " has an empty entry in '" + text + "'");
    // The same entry twice would evaluate the same candidates twice.
    if (std::find(out.begin(), out.end(), part) != out.end())
      throw UsageError(flag + " lists '" + part + "' twice in '" + text + "'");
    out.push_back(part);
  }
  if (out.empty() || text.back() == ',') throw UsageError(flag + " has an empty entry in '" + text + "'");
  return out;
}

std::int64_t positiveInt(const std::string& flag, const std::string& text, std::int64_t largest) {
  std::int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (text.empty() || ec != std::errc() || end != text.data() + text.size() || v < 1 || v > largest)
    throw UsageError(flag + " must be an integer from 1 to " + std::to_string(largest) + ", got '" + text + "'");
  return v;
}

std::string fixed(double x, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, x);
  return buf;
}

std::vector<std::string> cells(const std::string& rank, const LayoutRow& r) {
  return {rank,
          r.mesh,
          r.rules,
          std::to_string(r.zero_stage),
          std::string(recomputeName(r.recompute)),
          r.step_time_s ? formatSeconds(*r.step_time_s) : "-",
          r.mfu ? fixed(*r.mfu * 100, 1) + "%" : "-",
          formatBytes(r.max_bytes) + " / " + (r.hbm_bytes > 0 ? formatBytes(r.hbm_bytes) : std::string("?")),
          r.bound_by.empty() ? "-" : r.bound_by};
}

void printResult(const LayoutSearchResult& r, std::ostream& out) {
  out << r.candidates_total << " candidate layouts (" << r.merged << " equivalent orders merged), " << r.evaluated
      << " analysed" << (r.cancelled ? " (cancelled)" : "") << "\n\n";
  TextTable t;
  t.header = {"rank", "mesh", "rules", "ZeRO", "recompute", "step", "MFU", "max memory / HBM", "bound by"};
  t.right_aligned = {true, false, false, true, false, true, true, true, false};
  for (std::size_t i = 0; i < r.rows.size(); ++i) t.rows.push_back(cells(std::to_string(i + 1), r.rows[i]));
  if (r.current) {
    // The workspace's own layout, evaluated the same way, under the ranked rows.
    t.rows.push_back(cells(r.current->fits ? "now" : "now (OOM)", *r.current));
  }
  if (r.rows.empty()) {
    // Under the candidate limit some were never analysed: the headline must not claim they fail.
    const auto over = r.rejected.find(kRejectedOverLimit);
    if (over == r.rejected.end())
      out << "no candidate layout fits in HBM\n";
    else
      out << "no analysed candidate layout fits in HBM; " << over->second
          << " candidates over the limit were not analysed (--max-candidates, or fewer --axes)\n";
  }
  t.print(out);
  if (!r.current) out << "now: the workspace's own layout cannot be placed\n";
  if (r.current && !r.current->fits) {
    // The smallest edits of the user's own layout that fit come first: they keep the mesh chosen.
    if (r.fixes.empty()) {
      out << "\nno single or paired edit of the current layout (batch split, remat, ZeRO) makes it fit\n";
    } else {
      out << "\nthe current layout does not fit; the smallest edits to it that do, cheapest first:\n";
      TextTable f;
      f.header = {"edit", "saves", "max memory / HBM", "step", "step change"};
      f.right_aligned = {false, true, true, true, true};
      for (const auto& fix : r.fixes)
        f.rows.push_back(
            {fix.edit, formatBytes(fix.saved_bytes), formatBytes(fix.max_bytes) + " / " + formatBytes(fix.hbm_bytes),
             fix.step_time_s ? formatSeconds(*fix.step_time_s) : std::string("-"),
             fix.step_time_change_s
                 ? (*fix.step_time_change_s >= 0 ? "+" : "-") + formatSeconds(std::abs(*fix.step_time_change_s))
                 : std::string("-")});
      f.print(out);
    }
  }

  if (!r.rejected.empty()) {
    out << "\nrejected:";
    bool first = true;
    for (const auto& [why, n] : r.rejected) {
      out << (first ? " " : ", ") << n << " " << why;
      first = false;
    }
    out << "\n";
  }
  if (!r.families.empty()) {
    out << "\nwhy each family of layouts loses:\n";
    for (const auto& line : r.families) out << "  " << line << "\n";
  }
}

} // namespace

int runSearch(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {
      {"--axes"},           {"--top"},   {"--max"}, {"--presets"}, {"--zero"}, {"--recompute"}, {"--no-orders", false},
      {"--max-candidates"}, {"--format"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "workspace file");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");

  LayoutSearchOptions options;
  options.threads = 2;
  if (const auto v = opts.value("--axes")) options.axes = splitList("--axes", *v);
  if (const auto v = opts.value("--top")) options.top = static_cast<std::size_t>(positiveInt("--top", *v, 10000));
  if (const auto v = opts.value("--max")) {
    for (const auto& entry : splitList("--max", *v)) {
      const auto eq = entry.find('=');
      if (eq == std::string::npos || eq == 0) throw UsageError("--max entries are AXIS=N, got '" + entry + "'");
      const std::string axis = entry.substr(0, eq);
      if (options.max_size.count(axis)) throw UsageError("--max names axis '" + axis + "' twice");
      options.max_size[axis] = positiveInt("--max " + axis, entry.substr(eq + 1), std::int64_t{1} << 40);
    }
  }
  if (const auto v = opts.value("--presets")) {
    for (const auto& p : splitList("--presets", *v)) {
      try {
        presetRules(p);
      } catch (const Error&) {
        std::string names;
        for (const auto& info : rulePresets()) names += (names.empty() ? "" : ", ") + info.name;
        throw UsageError("--presets: '" + p + "' is not a rule preset (" + names + ")");
      }
      options.presets.push_back(p);
    }
  }
  if (const auto v = opts.value("--zero")) {
    for (const auto& z : splitList("--zero", *v)) {
      if (z != "0" && z != "1" && z != "2") throw UsageError("--zero stages are 0, 1 or 2, got '" + z + "'");
      options.zero_stages.push_back(z[0] - '0');
    }
  }
  if (const auto v = opts.value("--recompute")) {
    for (const auto& p : splitList("--recompute", *v)) {
      const auto policy = parseName(p, kRecomputeNames);
      if (!policy) throw UsageError("--recompute: unknown policy '" + p + "' (" + recomputeNameList() + ")");
      options.recompute.push_back(*policy);
    }
  }
  options.orders = !opts.has("--no-orders");
  if (const auto v = opts.value("--max-candidates"))
    options.max_candidates = positiveInt("--max-candidates", *v, 1000000);

  const Scenario scenario =
      opts.positionals().empty() ? defaultScenario() : loadScenarioFile(opts.positionals().front());
  const LayoutSearchResult result = searchLayouts(scenario, options);
  if (format == "json")
    io.out << dumpJson(layoutSearchToJson(result), 2) << "\n";
  else
    printResult(result, io.out);
  return 0;
}

} // namespace shardscope::cli
