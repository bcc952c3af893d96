// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli step`: how long one training step takes on a layout, what MFU that is, what
// bounds it and what would move it: the breakdown (compute, HBM-bound time, exposed communication
// per axis), the per-axis collectives, the scaling book's checks and the one-sentence summary.
// Takes the same workspace and flags as `shard`; `--format json` prints the analysis with its
// `step` object (the eval `analyze` op's form, without the parameter list).
#include "cli.hpp"
#include "cli_options.hpp"
#include "cli_scenario_flags.hpp"
#include "text_table.hpp"

#include "shardscope/base/units.hpp"
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <iomanip>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli step [WORKSPACE.json] [--topology TOPO] [--mesh AXES] [--model NAME|FILE]\n"
         "                           [--rules PRESET|FILE] [--zero N] [--no-split] [--micro-batch N]\n"
         "                           [--microbatches N] [--seq-len N] [--format table|json]\n\n"
         "Estimates one training step of the layout: compute (FLOPs at the calibrated peak), HBM-bound\n"
         "time, and the communication each mesh axis carries (derived from every parameter's shards,\n"
         "priced on the axis' rings), split into what hides behind compute and what is exposed. Prints\n"
         "the step time, tokens/s, MFU, what bounds the step and what would move it. Flags as for\n"
         "`shardscope-cli shard`; training.microbatches, training.sequence_parallel and the\n"
         "`performance` calibration come from the workspace (docs/step-time.md, docs/workspace.md).\n\n"
         "  --topology TOPO  e.g. v5p:16x20x28, v4:4x4x8, v5e:16x16, h100:32x8\n"
         "  --mesh AXES      name:size list, one size may be -1: \"fsdp:-1,tp:4\"\n"
         "  --model M        a preset or a model file (see shardscope-cli help models)\n"
         "  --rules R        a preset (dp, fsdp, tp, fsdp-tp, ep, sp) or a rule file\n"
         "  --zero N         ZeRO stage 1 or 2 (default 0)\n"
         "  --no-split       refuse meshes that need JAX's allow_split_physical_axes\n"
         "  --micro-batch N  global sequences per micro-batch (training.micro_batch)\n"
         "  --microbatches N micro-batches per step, gradient accumulation (training.microbatches)\n"
         "  --seq-len N      sequence length (training.seq_len)\n"
         "  --format F       table (default) or json\n";
}

// A positive integer flag value, e.g. --micro-batch 1024.
std::int64_t positive(const std::string& flag, const std::string& text) {
  return positiveFlag(flag, text, std::int64_t{1} << 40);
}

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

std::string percent(double part, double whole) { return whole > 0 ? formatPercent(part / whole) : "-"; }

std::string sourced(const SourcedValue& v, bool asSeconds = false) {
  return (asSeconds ? formatSeconds(v.value) : fixed(v.value, 2)) + " (" + std::string(figureSourceName(v.source)) +
         ")";
}

void printStep(const Analysis& a, std::ostream& out) {
  const StepEstimate& s = a.step;
  out << "mesh ";
  for (std::size_t i = 0; i < a.mesh.axis_names.size(); ++i)
    out << (i ? ", " : "") << a.mesh.axis_names[i] << ":" << a.mesh.shape()[i];
  out << " on " << a.mesh.devices.size() << " devices\n";
  const auto& m = a.memory;
  if (m.argmax >= 0)
    out << "memory per device: max " << formatBytes(m.max_bytes) << " of "
        << (m.hbm_bytes > 0 ? formatBytes(m.hbm_bytes) : std::string("unknown")) << " HBM"
        << (m.out_of_memory ? " (OUT OF MEMORY)" : "") << "\n";
  if (!s.estimated) {
    out << "\n" << s.summary << "\n";
    return;
  }
  out << "\nstep " << formatSeconds(s.time_s) << ", " << formatPercent(s.mfu) << " MFU, " << fixed(s.tokens_per_s, 0)
      << " tokens/s (" << fixed(s.tokens_per_step, 0) << " tokens per step)\n\n";
  TextTable parts;
  parts.header = {"part", "time", "share"};
  parts.right_aligned = {false, true, true};
  for (const auto& g : s.segments) {
    // What each piece holds that the model prices on its own (docs/step-time.md).
    const std::string padding = s.padding_s > 0 ? " (incl. tile padding " + formatSeconds(s.padding_s) + ")" : "";
    const std::string name = g.kind == StepPart::Compute ? "compute" + padding
                             : g.kind == StepPart::Hbm
                                 ? "HBM-bound (incl. elementwise " + formatSeconds(s.elementwise_s) + ")"
                             : g.kind == StepPart::Optimizer ? std::string("optimizer update")
                             : g.kind == StepPart::Bubble    ? std::string("pipeline bubble")
                             : g.kind == StepPart::Handover  ? std::string("pipeline hand-overs")
                                                             : "exposed comm: " + g.axis;
    parts.rows.push_back({name, formatSeconds(g.seconds), percent(g.seconds, s.time_s)});
  }
  parts.rows.push_back({"total", formatSeconds(s.time_s), "100%"});
  parts.print(out);

  out << "\n";
  TextTable axes;
  axes.header = {"axis", "size", "bytes/step", "comm", "overlapped", "exposed", "collectives"};
  axes.right_aligned = {false, true, true, true, true, true, false};
  for (const auto& x : s.per_axis) {
    std::string kinds;
    for (const auto& c : x.collectives)
      kinds +=
          (kinds.empty() ? "" : ", ") + c.purpose + " " + collectiveLabel(c.kind, c.purpose) + " x" + fixed(c.count, 0);
    axes.rows.push_back({x.axis, std::to_string(x.size), formatBytes(x.bytes), formatSeconds(x.seconds),
                         formatSeconds(x.overlapped), formatSeconds(x.exposed), kinds.empty() ? "-" : kinds});
  }
  axes.print(out);

  if (!s.critical.empty()) {
    out << "\nchecks (scaling book: C = peak FLOP/s, W = the axis' bandwidth)\n";
    TextTable checks;
    checks.header = {"axis", "role", "size", "per device", "needs", "ok"};
    checks.right_aligned = {false, false, true, true, true, false};
    for (const auto& c : s.critical) {
      if (c.role == StepCritical::Role::Batch)
        checks.rows.push_back({c.axis, "batch", std::to_string(c.size), fixed(c.tokens_per_device, 0) + " tokens",
                               ">= C/W = " + fixed(c.flops_per_byte, 0), c.ok ? "yes" : "no"});
      else
        checks.rows.push_back({c.axis, "tensor", std::to_string(c.size), "F = " + fixed(c.ffn, 0),
                               "<= n*F/(C/W) = " + fixed(c.limit, 1), c.ok ? "yes" : "no"});
    }
    checks.print(out);
  }
  const auto& c = s.calibration;
  // A figure of a two-core chip is per device: the chip's over its devices.
  const std::string perDevice =
      s.devices_per_chip > 1 ? " / " + std::to_string(s.devices_per_chip) + " devices" : std::string();
  out << "\ncalibration: flops " << sourced(c.flops_fraction) << ", links " << sourced(c.link_fraction) << ", HBM "
      << sourced(c.hbm_fraction) << ", attention " << sourced(c.attention_fraction) << ", hop latency "
      << sourced(c.hop_latency, true) << "\n"
      << "chip: peak " << formatFlopRate(s.peak_flops.value) << " (" << figureSourceName(s.peak_flops.source)
      << perDevice << "), HBM " << formatRate(s.hbm_bandwidth.value) << " (" << figureSourceName(s.hbm_bandwidth.source)
      << perDevice << "), link " << formatRate(s.link_bandwidth.value) << " one way ("
      << figureSourceName(s.link_bandwidth.source) << ")\n";
  for (const auto& n : s.notes) out << "note: " << n << "\n";
  out << "\n" << s.summary << "\n";
}

} // namespace

int runStep(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  std::vector<Flag> flags = scenarioFlags();
  flags.insert(flags.end(), {{"--micro-batch"}, {"--microbatches"}, {"--seq-len"}, {"--format"}});
  const ParsedArgs opts = parseArgs(args, flags, 1, "workspace file");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  Scenario scenario = scenarioFromArgs(opts);
  if (const auto v = opts.value("--micro-batch")) scenario.training.micro_batch = positive("--micro-batch", *v);
  if (const auto v = opts.value("--microbatches")) scenario.training.microbatches = positive("--microbatches", *v);
  if (const auto v = opts.value("--seq-len")) scenario.training.seq_len = positive("--seq-len", *v);

  const Analysis analysis = analyze(scenario);
  if (format == "json") {
    Json json = analysisToJson(analysis);
    json.erase("params"); // `shard --format json` lists them; a 46k-parameter list would bury the step
    io.out << dumpJson(json, 2) << "\n";
  } else {
    printStep(analysis, io.out);
    for (const auto& d : analysis.diagnostics)
      if (d.severity != Diagnostic::Severity::Info) io.err << "shardscope-cli step: " << diagnosticLine(d) << "\n";
  }
  for (const auto& d : analysis.diagnostics)
    if (d.severity == Diagnostic::Severity::Error) return 1;
  return 0;
}

} // namespace shardscope::cli
