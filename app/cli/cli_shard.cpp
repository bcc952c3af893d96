// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli shard`: each parameter's partition spec and shard, then the per-device memory
// summary, for a topology + mesh + model + rule set given by flags or by a workspace file.
#include "cli.hpp"
#include "cli_options.hpp"
#include "cli_scenario_flags.hpp"
#include "text_table.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/rule_file.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/hardware/topology.hpp"

#include <algorithm>
#include <filesystem>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli shard [WORKSPACE.json] [--topology TOPO] [--mesh AXES] [--model NAME|FILE]\n"
         "                            [--rules PRESET|FILE] [--zero N] [--no-split]\n"
         "                            [--format table|json|csv] [--per-device]\n\n"
         "Prints every parameter's partition spec, shard shape and bytes per device, then the\n"
         "per-device memory summary against a device's HBM (the chip's, halved on two-device TPU\n"
         "v2, v3 and 7x chips). Flags override the workspace (or the built-in default scenario when\n"
         "no workspace is given).\n\n"
         "  --topology TOPO  e.g. v5p:16x20x28, v4:4x4x8, v5e:16x16, v4:4x4x4:slices=2, h100:32x8\n"
         "  --mesh AXES      name:size list, one size may be -1: \"fsdp:-1,tp:4\"\n"
         "  --model M        a preset (llama-3.1-8b, llama-3.1-70b, llama-3.1-405b, mixtral-8x7b,\n"
         "                   qwen2.5-72b, gemma-2-27b, deepseek-v3, gpt2) or a model file\n"
         "                   (our JSON, .safetensors, model.safetensors.index.json, HF config.json)\n"
         "  --rules R        a preset (dp, fsdp, tp, fsdp-tp, ep, sp) or a rule file: JSON\n"
         "                   [regex, spec] pairs, first match wins (shardscope-cli help rules)\n"
         "  --zero N         ZeRO stage 1 or 2: optimizer state (and, for 2, gradients) split over\n"
         "                   the batch axes each parameter is not sharded on (default 0)\n"
         "  --no-split       refuse meshes that need JAX's allow_split_physical_axes\n"
         "  --format F       table (default), json or csv (csv: the parameter table only)\n"
         "  --per-device     json: include every device's memory\n";
}

std::string shapeText(const Shape& s) {
  std::string out = "(";
  for (std::size_t i = 0; i < s.size(); ++i) out += (i ? ", " : "") + std::to_string(s[i]);
  return out + (s.size() == 1 ? ",)" : ")");
}

std::string join(const std::vector<std::string>& items, const char* sep) {
  std::string out;
  for (const auto& s : items) out += (out.empty() ? "" : sep) + s;
  return out;
}

TextTable paramTable(const Analysis& a) {
  TextTable t;
  t.header = {"parameter", "shape", "dtype", "spec", "shard", "bytes/device", "notes"};
  t.right_aligned = {false, false, false, false, false, true, false};
  const std::vector<std::string> specs = a.params.specTexts();
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const ParamRow p = a.params[i];
    t.rows.push_back({p.path, shapeText(p.shape), p.dtype, specs[a.params.groupOf(i)], shapeText(p.shard_shape),
                      formatBytes(p.bytes_per_device), join(p.diagnostics, "; ")});
  }
  return t;
}

// Under the activations: what the layers keep, and what the backward holds beside it at its peak
// (the loss's gradient, or a re-run layer, whichever is larger).
void addActivationRows(const ActivationBreakdown& a, TextTable& t) {
  if (a.layers <= 0) return;
  t.rows.push_back({"  kept by " + std::to_string(a.layers) + " layers", formatBytes(a.keptByLayers())});
  if (a.lossMomentIsPeak() && a.output_layer > 0) {
    t.rows.push_back({"  output layer and loss", formatBytes(a.lossMoment())});
  } else if (!a.lossMomentIsPeak()) {
    t.rows.push_back({"  one re-run layer", formatBytes(a.recompute_layer)});
  }
}

void printSummary(const Analysis& a, std::ostream& out) {
  out << "\nmesh ";
  for (std::size_t i = 0; i < a.mesh.axis_names.size(); ++i)
    out << (i ? ", " : "") << a.mesh.axis_names[i] << ":" << a.mesh.shape()[i];
  out << " on " << a.mesh.devices.size() << " devices (" << (a.placements.empty() ? "" : a.placements.front().path)
      << ")\n";
  for (const auto& ax : a.axes) out << "  " << ax.name << " = " << ax.size << ": " << ax.explanation << "\n";

  const auto& m = a.memory;
  if (m.argmax >= 0) {
    const auto& d = m.per_device[static_cast<std::size_t>(m.argmax)];
    out << "\nmemory per device (fullest: device " << a.mesh.devices[static_cast<std::size_t>(m.argmax)].id << ")\n";
    TextTable t;
    t.header = {"category", "bytes"};
    t.right_aligned = {false, true};
    t.rows = {{"params", formatBytes(d.params)},
              {"grads", formatBytes(d.grads)},
              {"optimizer", formatBytes(d.optimizer)},
              {"activations", formatBytes(d.activations)}};
    addActivationRows(m.activations, t);
    t.rows.insert(t.rows.end(), {{"kv cache", formatBytes(d.kv_cache)},
                                 {"total", formatBytes(d.total())},
                                 {"HBM", m.hbm_bytes > 0 ? formatBytes(m.hbm_bytes) : "unknown"}});
    t.print(out);
    out << "max " << formatBytes(m.max_bytes) << ", mean " << formatBytes(m.mean_bytes) << ": "
        << (m.hbm_bytes <= 0  ? "no HBM figure for this chip"
            : m.out_of_memory ? "OUT OF MEMORY"
                              : "fits")
        << "\n";
  }
  // Warnings and notes (what was not estimated, an axis named but absent) under the summary; errors
  // go to stderr with the exit status.
  for (const auto& d : a.diagnostics)
    if (d.severity != Diagnostic::Severity::Error) out << diagnosticLine(d) << "\n";
}

} // namespace

int runShard(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  std::vector<Flag> flags = scenarioFlags();
  flags.insert(flags.end(), {{"--format"}, {"--per-device", false}});
  const ParsedArgs opts = parseArgs(args, flags, 1, "workspace file");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json" && format != "csv")
    throw UsageError("--format must be table, json or csv, got '" + format + "'");
  const Scenario scenario = scenarioFromArgs(opts);

  const Analysis analysis = analyze(scenario);
  if (format == "json") {
    writeAnalysisJson(io.out, analysis, opts.has("--per-device"), 2);
    io.out << "\n";
  } else if (format == "csv") {
    paramTable(analysis).printCsv(io.out);
  } else {
    paramTable(analysis).print(io.out);
    printSummary(analysis, io.out);
  }
  // What went wrong goes to stderr in every format (the JSON also lists it); a CSV has no room for
  // warnings either, so they go there too.
  bool failed = false;
  for (const auto& d : analysis.diagnostics) {
    if (d.severity == Diagnostic::Severity::Error || (format == "csv" && d.severity == Diagnostic::Severity::Warning))
      io.err << "shardscope-cli shard: " << diagnosticLine(d) << "\n";
    failed = failed || d.severity == Diagnostic::Severity::Error;
  }
  return failed ? 1 : 0;
}

} // namespace shardscope::cli
