// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli comm`: what each logical axis of a mesh costs on a topology's links.
// Answers through the eval op `axis_report`, so the table and `--format json` never disagree.
#include "cli.hpp"
#include "cli_options.hpp"

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
  out << "Usage: shardscope-cli comm --topology TOPO --mesh AXES [--bytes N] [--twisted] [--format table|json]\n\n"
         "Per logical axis: groups, whether each ring closes on physical links, dilation (max/mean hops\n"
         "between ring neighbours), the busiest link's load when all groups run at once, host/slice\n"
         "crossings, the slowest link class and, with --bytes, collective times: the scaling book's torus\n"
         "form on TPU slices, the alpha-beta ring elsewhere (the same price the step estimate uses).\n\n"
         "  --topology TOPO   e.g. v5p:16x20x28, v4:4x4x8, v5e:16x16, h100:4x8, v4:4x4x4:slices=2\n"
         "  --mesh AXES       name:size list, one size may be -1: \"fsdp:-1,tp:4\"\n"
         "  --bytes N         array bytes for the collective times (full, gathered size)\n"
         "  --twisted         use the twisted torus (k x k x 2k slices)\n"
         "  --format F        table (default) or json\n";
}

std::string seconds(double s) {
  std::ostringstream o;
  o << std::setprecision(3);
  if (s == 0)
    o << "0";
  else if (s < 1e-3)
    o << s * 1e6 << " us";
  else if (s < 1)
    o << s * 1e3 << " ms";
  else
    o << s << " s";
  return o.str();
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
  return v.dump();
}

void printTable(const Json& result, bool withBytes, std::ostream& out) {
  out << "topology " << result["topology"].get<std::string>() << ", mesh ";
  const auto& m = result["mesh"];
  for (std::size_t i = 0; i < m["axis_names"].size(); ++i)
    out << (i ? "," : "") << m["axis_names"][i].get<std::string>() << ":" << m["axis_sizes"][i].get<std::int64_t>();
  out << " (placement: " << m["placement"].get<std::string>() << ")\n\n";
  std::vector<std::string> header{"axis",      "size",  "groups", "ring", "max hops", "mean hops",
                                  "link load", "hosts", "slices", "link", "ring GB/s"};
  if (withBytes)
    for (const char* c : {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"}) header.emplace_back(c);
  std::vector<std::vector<std::string>> rows;
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
      for (const char* c : {"all_gather", "reduce_scatter", "all_reduce", "all_to_all"})
        row.push_back(seconds(a["collectives"][c]["time_s"].get<double>()));
    rows.push_back(std::move(row));
  }
  std::vector<std::size_t> width(header.size());
  for (std::size_t c = 0; c < header.size(); ++c) {
    width[c] = header[c].size();
    for (const auto& r : rows) width[c] = std::max(width[c], r[c].size());
  }
  auto line = [&](const std::vector<std::string>& r) {
    for (std::size_t c = 0; c < r.size(); ++c)
      out << (c ? "  " : "") << std::setw(static_cast<int>(width[c])) << (c ? std::right : std::left) << r[c];
    out << "\n";
  };
  line(header);
  for (const auto& r : rows) line(r);
}
} // namespace

int runComm(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--topology"}, {"--mesh"}, {"--bytes"}, {"--twisted", false}, {"--format"}};
  const ParsedArgs opts = parseArgs(args, kFlags);
  const auto topology = opts.value("--topology"), mesh = opts.value("--mesh");
  if (!topology || !mesh) throw UsageError("--topology and --mesh are required");
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
  const bool twisted = opts.has("--twisted");
  Json request{{"op", "axis_report"}, {"topology", *topology}, {"mesh", *mesh}};
  if (bytes) request["bytes"] = *bytes;
  if (twisted) request["link_params"] = {{"twisted", true}};
  const Json answer = evalRequest(request);
  if (!answer["ok"].get<bool>())
    throw Error(errorKindNamed(answer["error"]["type"].get<std::string>()),
                answer["error"]["message"].get<std::string>());
  // Warnings go to stderr so the table or JSON on stdout stays clean for pipes.
  if (answer.contains("warnings"))
    for (const auto& w : answer["warnings"]) io.err << "warning: " << w.get<std::string>() << "\n";
  if (format == "json")
    io.out << answer["result"].dump(2) << "\n";
  else
    printTable(answer["result"], bytes.has_value(), io.out);
  return 0;
}

} // namespace shardscope::cli
