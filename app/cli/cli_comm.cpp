// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli comm`: what each logical axis of a mesh costs on a topology's links.
// Answers through the eval op `axis_report`, so the table and `--format json` never disagree.
#include "cli.hpp"
#include "cli_options.hpp"
#include "cli_scenario_flags.hpp"
#include "text_table.hpp"

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/units.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/eval/eval.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <iomanip>
#include <optional>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {
void usage(std::ostream& out) {
  out << "Usage: shardscope-cli comm [WORKSPACE] [--topology TOPO --mesh AXES] [--bytes N] [--twisted]\n"
         "                          [--format table|json]\n\n"
         "Per logical axis: groups, whether each ring closes on physical links, dilation (max/mean hops\n"
         "between ring neighbours), the busiest link's load when all groups run at once, host/slice\n"
         "crossings, the slowest link class and, with --bytes, collective times: the scaling book's torus\n"
         "form on TPU slices, the alpha-beta ring elsewhere (the same price the step estimate uses).\n"
         "An axis whose groups span slices runs in two levels, as XLA's multi-slice collectives do: in\n"
         "each slice on the whole array, then across the slices on the in-slice share (a line under the\n"
         "table says so; in_slice in the JSON). The mesh is placed exactly as `shard`, `step` and the app\n"
         "place it.\n\n"
         "  WORKSPACE         a workspace file (default: the built-in one); the flags below override it\n"
         "  --topology TOPO   e.g. v5p:16x20x28, v4:4x4x8, v5e:16x16, h100:4x8, v4:4x4x4:slices=2\n"
         "  --mesh AXES       name:size list per slice, one size may be -1: \"fsdp:-1,tp:4\"; with several\n"
         "                    slices the first axis also spans the slices over DCN\n"
         "  --bytes N         array bytes for the collective times (full, gathered size)\n"
         "  --twisted         use the twisted torus (k x k x 2k slices)\n"
         "  --format F        table (default) or json\n";
}

std::string cell(const Json& v) {
  if (v.is_boolean()) return v.get<bool>() ? "yes" : "no";
  if (v.is_null()) return "-";
  if (v.is_number_float()) {
    std::ostringstream o;
    o << std::fixed << std::setprecision(2) << v.get<double>();
    return o.str();
  }
  if (v.is_string()) return v.get<std::string>();
  return dumpJson(v);
}

void printTable(const Json& result, bool withBytes, std::ostream& out) {
  out << "topology " << result["topology"].get<std::string>() << ", mesh ";
  const auto& axes = result["mesh"]["axes"];
  for (std::size_t i = 0; i < axes.size(); ++i) {
    const auto& a = axes[i];
    out << (i ? "," : "") << a["name"].get<std::string>() << ":" << a["size"].get<std::int64_t>();
    if (a["dcn"].get<std::int64_t>() > 1)
      out << " (" << a["ici"].get<std::int64_t>() << " x " << a["dcn"].get<std::int64_t>() << " slices)";
  }
  std::string placement;
  for (const auto& p : result["mesh"]["placement"]) placement += (placement.empty() ? "" : ", ") + p.get<std::string>();
  out << " (placement: " << placement << ")\n\n";
  TextTable table;
  table.header = {"axis",      "size",  "groups", "ring", "max hops", "mean hops",
                  "link load", "hosts", "slices", "link", "ring GB/s"};
  if (withBytes)
    for (const auto& [name, kind] : kCollectiveNames) table.header.emplace_back(name);
  table.right_aligned.assign(table.header.size(), true);
  table.right_aligned[0] = false;
  for (const auto& a : result["axes"]) {
    std::vector<std::string> row{a["axis"].get<std::string>(),
                                 cell(a["size"]),
                                 cell(a["group_count"]),
                                 a["ring_closed"].get<bool>() ? "closed" : "open",
                                 cell(a["max_hops"]),
                                 cell(a["mean_hops"]),
                                 cell(a["max_link_load"]),
                                 cell(a["crosses_hosts"]),
                                 cell(a["crosses_slices"]),
                                 cell(a["slowest_link"]),
                                 cell(Json(a["ring_bandwidth"].get<double>() / 1e9))};
    if (withBytes)
      for (const auto& [name, kind] : kCollectiveNames)
        row.push_back(formatSeconds(a["collectives"][std::string(name)]["time_s"].get<double>()));
    table.rows.push_back(std::move(row));
  }
  table.print(out);
  // The ring columns describe each group as one ring; an axis over slices is priced in two levels.
  for (const auto& a : result["axes"]) {
    const auto inSlice = a["in_slice"].get<std::int64_t>();
    if (inSlice == 0) continue;
    out << "\n"
        << a["axis"].get<std::string>() << " crosses " << a["size"].get<std::int64_t>() / inSlice
        << " slices in two levels, as XLA runs a multi-slice collective:\n  over the " << inSlice
        << " devices in each slice on the whole array (ICI), then across the slices on 1/" << inSlice
        << " of it (DCN);\n  the ring columns describe the whole group as one ring.\n";
  }
}
} // namespace

int runComm(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  std::vector<Flag> flags = scenarioFlags();
  for (const Flag& f : std::initializer_list<Flag>{{"--bytes"}, {"--twisted", false}, {"--format"}}) flags.push_back(f);
  const ParsedArgs opts = parseArgs(args, flags, 1, "workspace file");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  std::optional<double> bytes;
  if (const auto v = opts.value("--bytes")) {
    double n = 0;
    auto [ptr, ec] = std::from_chars(v->data(), v->data() + v->size(), n);
    if (ec != std::errc() || ptr != v->data() + v->size() || !std::isfinite(n) || n < 0)
      throw UsageError("--bytes must be a number >= 0, got '" + *v + "'");
    bytes = n;
  }
  Scenario scenario = scenarioFromArgs(opts);
  if (opts.has("--twisted")) scenario.links.twisted = true;
  Json request{{"op", "axis_report"}, {"scenario", scenarioToJson(scenario)}};
  if (bytes) request["bytes"] = *bytes;
  const Json answer = evalRequest(request);
  if (!answer["ok"].get<bool>())
    throw Error(errorKindNamed(answer["error"]["type"].get<std::string>()),
                answer["error"]["message"].get<std::string>());
  // Warnings go to stderr so the table or JSON on stdout stays clean for pipes.
  if (answer.contains("warnings"))
    for (const auto& w : answer["warnings"]) io.err << "warning: " << w.get<std::string>() << "\n";
  if (format == "json")
    io.out << dumpJson(answer["result"], 2) << "\n";
  else
    printTable(answer["result"], bytes.has_value(), io.out);
  return 0;
}

} // namespace shardscope::cli
