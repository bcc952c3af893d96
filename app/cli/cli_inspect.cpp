// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli inspect FILE [--mesh AXES] [--topology TOPO] [--workspace W] [--format table|json]`:
// what a text JAX or XLA printed says: a lowered StableHLO module's meshes and argument shardings,
// an HLO module's collectives with their mesh axes and times, an out-of-memory report's figures.
// The JSON is the eval op `inspect`'s result (docs/inspect.md).
#include "cli.hpp"
#include "cli_options.hpp"
#include "text_table.hpp"

#include "shardscope/base/json_text.hpp"
#include "shardscope/base/quoting.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"

#include <algorithm>
#include <ostream>
#include <string>
#include <vector>

namespace shardscope::cli {

namespace {

void printUsage(std::ostream& out) {
  out << "Usage: shardscope-cli inspect FILE [--mesh AXES] [--topology TOPO] [--workspace W]\n"
         "                              [--format table|json]\n\n"
         "Reads what JAX or XLA printed and says what the compiler made of the layout. The kind is recognised:\n"
         "  * JAX's lowered module (jax.jit(f).lower(...).as_text()): the Shardy meshes, each argument's and\n"
         "    result's sharding (#sdy.sharding, the round-trip xla.sdy.* attributes, GSPMD mhlo.sharding),\n"
         "    its partition spec and bytes per device, and the collectives of shard_map bodies;\n"
         "  * XLA HLO text (compiled.as_text(), --xla_dump_to files): ENTRY parameters with their sharding,\n"
         "    every collective (async -start/-done pairs once) with its bytes per device, the mesh axes its\n"
         "    device groups span (null when the groups span part of an axis or fit no order of the mesh),\n"
         "    how often it runs (while loops' known_trip_count), and the dots' and convolutions' FLOPs;\n"
         "  * XLA's out-of-memory report (TPU and GPU forms): used, capacity, excess, the breakdown and the\n"
         "    largest allocations. Sizes such as 19.46G are GiB.\n"
         "Flags: an all-gather making a large array whole on every device (involuntary full\n"
         "rematerialization); device groups that fit no order of the mesh (a device-order mismatch).\n\n"
         "  --mesh AXES       the mesh the program ran on, major axis first: data:4,model:2. Device i of the\n"
         "                    groups is the i-th device of the mesh (mesh.devices.flat). Without it, the\n"
         "                    module's own mesh (sdy.mesh, xla.sdy.meshes) when it has one\n"
         "  --topology TOPO   place the mesh on a topology (as `help topology`, e.g. v5p:2x2x2) and price each\n"
         "                    collective by the step estimate's cost model, times its trip count\n"
         "  --workspace W     take the topology and mesh from a workspace (the flags above override it)\n"
         "  --format F        table (default) or json (the eval op inspect's result, docs/inspect.md)\n\n"
         "Malformed text is one error naming FILE:LINE:COLUMN; opcodes the reader does not know are skipped\n"
         "and counted.\n\n"
         "Examples:\n"
         "  shardscope-cli inspect module.after_optimizations.txt --mesh data:4,model:2 --topology v5p:2x2x2\n"
         "  shardscope-cli inspect lowered.mlir --format json\n"
         "  shardscope-cli inspect oom.log\n";
}

std::string cell(const Json& v) {
  if (v.is_null()) return "-";
  if (v.is_string()) return v.get<std::string>();
  return dumpJson(v);
}

std::string bytesCell(const Json& v) { return v.is_number() ? formatBytes(v.get<double>()) : "-"; }

std::string specCell(const Json& spec) {
  if (spec.is_null()) return "-";
  std::string out = "P(";
  for (std::size_t d = 0; d < spec.size(); ++d) {
    if (d) out += ", ";
    const auto& axes = spec[d];
    if (axes.empty())
      out += "None";
    else if (axes.size() == 1)
      out += axes[0].get<std::string>();
    else {
      out += "(";
      for (std::size_t i = 0; i < axes.size(); ++i) out += (i ? ", " : "") + axes[i].get<std::string>();
      out += ")";
    }
  }
  return out + ")";
}

void printArguments(const Json& list, const char* title, std::ostream& out) {
  if (list.empty()) return;
  // A column for the workspace's parameter and spec when any argument matched one.
  const bool matched = std::any_of(list.begin(), list.end(),
                                   [](const Json& a) { return a.value("workspace_param", Json()).is_string(); });
  TextTable t;
  t.header = {"#", "name", "shape", "dtype", "spec", "bytes/device", "note"};
  t.right_aligned = {true, false, false, false, false, true, false};
  if (matched) {
    t.header.insert(t.header.end() - 1, "workspace parameter and spec");
    t.right_aligned.insert(t.right_aligned.end() - 1, false);
  }
  for (const auto& a : list) {
    std::vector<std::string> row{cell(a["index"]), cell(a["name"]),     cell(a["shape"]),
                                 cell(a["dtype"]), specCell(a["spec"]), bytesCell(a["bytes_per_device"])};
    if (matched)
      row.push_back(a["workspace_param"].is_string()
                        ? a["workspace_param"].get<std::string>() + " " + a["workspace_spec"].get<std::string>()
                        : "-");
    row.push_back(cell(a["note"]));
    t.rows.push_back(std::move(row));
  }
  out << title << ":\n";
  t.print(out);
  out << "\n";
}

void printCollectives(const Json& list, std::ostream& out) {
  if (list.empty()) return;
  TextTable t;
  t.header = {"name", "op", "shape", "bytes/device", "group", "axes", "trips", "time", "note"};
  t.right_aligned = {false, false, false, true, true, false, true, true, false};
  for (const auto& c : list) {
    std::string axes = "-";
    if (c["axes"].is_array()) {
      axes.clear();
      for (const auto& a : c["axes"]) axes += (axes.empty() ? "" : ",") + a.get<std::string>();
    }
    const double time = c["time_s"].get<double>();
    t.rows.push_back({cell(c["name"]), cell(c["op"]).append(c["async"] == true ? " (async)" : ""),
                      cell(c["shape_text"]), bytesCell(c["bytes_per_device"]), cell(c["group_size"]), axes,
                      cell(c["trip_count"]), time > 0 ? formatSeconds(time) : "-", cell(c["note"])});
  }
  out << "Collectives:\n";
  t.print(out);
  out << "\n";
}

void printAxisTotals(const Json& list, std::ostream& out) {
  if (list.empty()) return;
  TextTable t;
  t.header = {"axes", "collectives", "executions", "bytes/device", "time"};
  t.right_aligned = {false, true, true, true, true};
  for (const auto& a : list) {
    std::string axes = "(no whole axes)";
    if (a["axes"].is_array()) {
      axes.clear();
      for (const auto& x : a["axes"]) axes += (axes.empty() ? "" : ",") + x.get<std::string>();
    }
    const double time = a["time_s"].get<double>();
    t.rows.push_back({axes, cell(a["collectives"]), cell(a["executions"]), bytesCell(a["bytes_per_device"]),
                      time > 0 ? formatSeconds(time) : "-"});
  }
  out << "Per program run, by mesh axes:\n";
  t.print(out);
  out << "\n";
}

std::string secondsOr(const Json& v) { return v.is_number() ? formatSeconds(v.get<double>()) : "-"; }

// The program's step from its own FLOPs and collectives beside the workspace model's.
void printEstimate(const Json& e, bool flopsCounted, std::ostream& out) {
  if (!e.is_object()) return;
  out << "Against the workspace: ";
  if (flopsCounted)
    out << "the program computes " << secondsOr(e["compute_s"]) << " and communicates " << secondsOr(e["comm_s"])
        << " per run: " << secondsOr(e["overlapped_s"]) << " if XLA hides every collective, "
        << secondsOr(e["serial_s"]) << " if none";
  else
    out << "the program's collectives take " << secondsOr(e["comm_s"])
        << " per run (its FLOPs are counted in compiled HLO, not here)";
  out << "; the workspace model's step is " << secondsOr(e["workspace_step_s"]) << " ("
      << secondsOr(e["workspace_compute_s"]) << " compute, " << secondsOr(e["workspace_comm_s"])
      << " in collectives).\n";
  if (e["axes"].empty()) return;
  TextTable t;
  t.header = {"axis", "program bytes/device", "program time", "model bytes/device", "model time"};
  t.right_aligned = {false, true, true, true, true};
  for (const auto& a : e["axes"])
    t.rows.push_back({a["axis"].get<std::string>(), bytesCell(a["compiled_bytes_per_device"]),
                      secondsOr(a["compiled_time_s"]), bytesCell(a["predicted_bytes_per_device"]),
                      secondsOr(a["predicted_time_s"])});
  out << "Per mesh axis, the program's collectives over it alone and what the workspace model predicts:\n";
  t.print(out);
  out << "\n";
}

void printOom(const Json& oom, std::ostream& out) {
  out << "Out of memory (" << cell(oom["form"]) << ")";
  if (oom["memory_space"].is_string()) out << " in " << oneLineText(oom["memory_space"].get<std::string>());
  out << ": used " << bytesCell(oom["used_bytes"]) << " of " << bytesCell(oom["capacity_bytes"]) << ", exceeded by "
      << bytesCell(oom["exceeded_bytes"]);
  if (oom["requested_bytes"].is_number()) out << "; the allocation that failed: " << bytesCell(oom["requested_bytes"]);
  out << "\n";
  for (const auto& b : oom["breakdown"])
    out << "  " << b["what"].get<std::string>() << ": " << formatBytes(b["bytes"].get<double>()) << "\n";
  if (oom["allocations"].empty()) return;
  TextTable t;
  t.header = {"#", "size", "unpadded", "shape", "type", "op"};
  t.right_aligned = {true, true, true, false, false, false};
  for (const auto& a : oom["allocations"])
    t.rows.push_back({cell(a["rank"]), bytesCell(a["bytes"]), bytesCell(a["unpadded_bytes"]), cell(a["shape"]),
                      cell(a["allocation_type"]), cell(a["op_name"])});
  out << "\nLargest allocations:\n";
  t.print(out);
}

void printTable(const Json& r, std::ostream& out) {
  // Names from the text (module, meshes, ops, arguments in flags and notes) are one line each: no
  // control character of the input reaches the terminal.
  out << cell(r["kind"]) << " " << oneLineText(cell(r["module"]));
  if (r["num_devices"].is_number()) out << ", " << r["num_devices"].get<std::int64_t>() << " devices";
  if (r["flops_per_device"].is_number())
    out << ", " << r["flop_ops"].get<std::int64_t>() << " dot/convolution(s): " << r["flops_per_device"].get<double>()
        << " FLOPs per device";
  out << "\n";
  for (const auto& m : r["meshes"]) {
    out << "mesh " << (m["name"].is_string() ? "@" + oneLineText(m["name"].get<std::string>()) + " " : "") << "[";
    for (std::size_t i = 0; i < m["axes"].size(); ++i)
      out << (i ? ", " : "") << oneLineText(m["axes"][i]["name"].get<std::string>()) << "=" << m["axes"][i]["size"];
    out << "]\n";
  }
  out << "\n";
  printArguments(r["arguments"], "Arguments", out);
  printArguments(r["results"], "Results", out);
  printArguments(r["constraints"], "Sharding constraints and reshards", out);
  printCollectives(r["collectives"], out);
  printAxisTotals(r["axis_totals"], out);
  printEstimate(r["estimate"], r["flops_per_device"].is_number(), out);
  if (r["oom"].is_object()) printOom(r["oom"], out);
  for (const auto& f : r["flags"])
    out << "flag " << oneLineText(f["kind"].get<std::string>()) << ": " << oneLineText(f["message"].get<std::string>())
        << "\n";
  for (const auto& s : r["skipped_ops"])
    out << "skipped: " << s["count"] << " x " << oneLineText(s["op"].get<std::string>()) << " (not read)\n";
  for (const auto& n : r["notes"]) out << "note: " << oneLineText(n.get<std::string>()) << "\n";
}

} // namespace

int runInspect(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    printUsage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--mesh"}, {"--topology"}, {"--workspace"}, {"--format"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "file");
  if (opts.positionals().size() != 1) throw UsageError("expected one file to inspect");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  if (opts.has("--topology") && !opts.has("--mesh") && !opts.has("--workspace"))
    throw UsageError("--topology needs --mesh (or a --workspace that gives the mesh)");
  const std::string file = opts.positionals()[0];
  InspectOptions options;
  options.source_name = file;
  InspectPlacement placement;
  placement.mesh = opts.value("--mesh");
  placement.topology = opts.value("--topology");
  if (const auto w = opts.value("--workspace")) placement.workspace = loadScenarioFile(*w);
  const std::string text = readInspectFile(file);
  const Json result = inspectResultToJson(inspectPlaced(text, std::move(options), placement));
  if (format == "json")
    io.out << dumpJson(result) << '\n';
  else
    printTable(result, io.out);
  return 0;
}

} // namespace shardscope::cli
