// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli pipeline`: the workspace's pipeline (or one given by flags) as jaxpp runs it: a
// text timeline with one row per rank, makespan, bubble and peak in-flight micro-batches per rank,
// memory per rank against the HBM, and the stage-to-stage activation transfers.
#include "cli.hpp"
#include "cli_options.hpp"
#include "cli_scenario_flags.hpp"
#include "text_table.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli pipeline [WORKSPACE.json] [--axis NAME] [--schedule S] [--stages N]\n"
         "                               [--microbatches M] [--layers A,B,...] [--fuse]\n"
         "                               [--format table|json] [--width COLUMNS]\n\n"
         "Runs the workspace's pipeline as jaxpp does: its schedule, the timeline jaxpp's list\n"
         "scheduler gives (one row per rank), makespan, bubble and peak in-flight micro-batches per\n"
         "rank, memory per rank (each rank holds only its stages' layers) and the activation\n"
         "transfers between groups. Flags override the workspace's `pipeline` section (or make one).\n\n"
         "  --axis NAME        the pipeline (MPMD) mesh axis (default: the workspace's, else pp)\n"
         "  --schedule S       GPipe, Std1F1B, Eager1F1B, ZeroBubble, Interleaved1F1B, KimiK2, DualPipeV\n"
         "  --stages N         pipeline stages (default: the axis size, twice it for DualPipeV)\n"
         "  --microbatches M   micro-batches per step (default: twice the stages)\n"
         "  --layers A,B,...   layers of each stage (default: an even split)\n"
         "  --fuse             Interleaved1F1B / KimiK2: fuse every steady-state F with its B\n"
         "  --format F         table (default) or json\n"
         "  --width COLUMNS    widest timeline row (default 120)\n\n"
         "Times are in seconds from the step estimate when it has one (training with a model):\n"
         "one unit (FWD of one rank's even share of the layers = 1, BWD 2, I 1, W 1) costs the\n"
         "step's compute and HBM time over 3 x M x ranks. Otherwise they stay in task units.\n";
}

// Stage, micro-batch and layer counts: positive, at most 2^20.
std::int64_t parseCount(const std::string& option, const std::string& text) {
  return positiveFlag(option, text, std::int64_t{1} << 20);
}

std::vector<std::int64_t> parseLayers(const std::string& text) {
  std::vector<std::int64_t> out;
  std::stringstream in(text);
  std::string part;
  while (std::getline(in, part, ',')) {
    if (part == "0") {
      out.push_back(0);
      continue;
    }
    out.push_back(parseCount("--layers", part));
  }
  if (out.empty()) throw UsageError("--layers needs a comma-separated list of layer counts");
  return out;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string numberText(double v) { return std::fabs(v - std::round(v)) < 1e-9 ? fixed(v, 0) : fixed(v, 2); }

char typeLetter(TaskType t) {
  switch (t) {
  case TaskType::Fwd:
    return 'F';
  case TaskType::Bwd:
    return 'B';
  case TaskType::BwdI:
    return 'I';
  case TaskType::BwdW:
    return 'W';
  }
  return '?';
}

// One text row per rank: every task's cells start with its letter and micro-batch, continue with
// '~' ('=' inside a fused group); '.' is idle. A cell is `quantum` time units wide.
void printTimeline(const PipelineAnalysis& p, std::size_t width, std::ostream& out) {
  const auto& tl = p.timeline;
  double quantum = 0;
  for (const auto& t : tl.tasks)
    if (t.latency > 0 && (quantum == 0 || t.latency < quantum)) quantum = t.latency;
  if (quantum <= 0 || tl.makespan <= 0) {
    out << "(empty timeline)\n";
    return;
  }
  const std::size_t labelWidth = 6; // "r12 |"
  const std::size_t room = width > labelWidth + 10 ? width - labelWidth : 10;
  auto cellsFor = [&](double q) { return static_cast<std::size_t>(std::ceil(tl.makespan / q - 1e-9)); };
  std::size_t charsPerCell = 3;
  if (cellsFor(quantum) * 3 > room) charsPerCell = 1;
  while (cellsFor(quantum) * charsPerCell > room) quantum *= 2;
  const std::size_t cells = cellsFor(quantum);
  std::vector<std::string> rows(p.ranks.size(), std::string(cells * charsPerCell, '.'));
  auto cellOf = [&](double time) { return std::min(cells, static_cast<std::size_t>(std::llround(time / quantum))); };
  for (const auto& ev : tl.events) {
    if (ev.rank < 0 || static_cast<std::size_t>(ev.rank) >= rows.size()) continue;
    std::string& row = rows[static_cast<std::size_t>(ev.rank)];
    const bool fused = ev.task_count > 1;
    double time = ev.start;
    for (const auto& t : tl.members(ev)) {
      const std::size_t a = cellOf(time), b = std::max(cellOf(time + t.latency), a + 1);
      time += t.latency;
      const std::size_t from = a * charsPerCell, to = std::min(row.size(), b * charsPerCell);
      for (std::size_t c = from; c < to; ++c) row[c] = fused ? '=' : '~';
      std::string label(1, typeLetter(t.type));
      label += std::to_string(t.microbatch);
      if (label.size() > to - from) label.resize(to - from);
      std::copy(label.begin(), label.end(), row.begin() + static_cast<std::ptrdiff_t>(from));
    }
  }
  out << "timeline (one column = " << numberText(quantum / static_cast<double>(charsPerCell)) << " "
      << pipelineTimeUnitName(p.time_unit) << (p.time_unit == PipelineTimeUnit::Task ? " units" : "") << "):\n";
  for (std::size_t r = 0; r < rows.size(); ++r) {
    std::string label(1, 'r');
    label += std::to_string(r);
    label.resize(4, ' ');
    out << label << "|" << rows[r] << "|\n";
  }
  out << "F forward, B backward, I input-grad (stage 0: with its weight-grad), W weight-grad, then the\n"
         "micro-batch; ~ continues a task, = a fused group; . idle\n";
}

void printTable(const Analysis& a, std::size_t width, std::ostream& out) {
  const PipelineAnalysis& p = *a.pipeline;
  out << "pipeline " << pipelineScheduleKindName(p.schedule) << " on axis '" << p.axis << "'";
  if (p.rank_count > 0) out << " (" << p.rank_count << " ranks)";
  if (p.num_stages > 0) out << ", " << p.num_stages << " stages";
  if (p.microbatches > 0) out << ", M = " << p.microbatches << " micro-batches";
  out << "\n";
  if (!p.stage_to_rank.empty()) {
    out << "stage -> rank:";
    for (int r : p.stage_to_rank) out << " " << r;
    out << "\n";
  }
  if (!p.layers_per_stage.empty()) {
    out << "layers per stage:";
    for (auto l : p.layers_per_stage) out << " " << l;
    out << "\n";
  }
  if (p.scheduled) {
    out << "\n";
    printTimeline(p, width, out);
    out << "\nmakespan " << numberText(p.makespan) << " " << pipelineTimeUnitName(p.time_unit)
        << (p.time_unit == PipelineTimeUnit::Task ? " units" : "") << ", bubble " << fixed(100 * p.bubble_overall, 1)
        << "% (mean over ranks)\n\n";
    TextTable t;
    t.header = {"rank", "stages", "layers", "busy", "bubble", "peak in-flight"};
    t.right_aligned = {true, false, true, true, true, true};
    bool kv = false;
    for (const auto& r : p.ranks) kv = kv || r.kv_cache_bytes > 0;
    if (p.has_memory) {
      for (const char* h : {"params", "grads", "optimizer", "activations"}) {
        t.header.push_back(h);
        t.right_aligned.push_back(true);
      }
      if (kv) {
        t.header.push_back("kv cache");
        t.right_aligned.push_back(true);
      }
      t.header.push_back("total");
      t.right_aligned.push_back(true);
    }
    for (const auto& r : p.ranks) {
      std::string stages;
      for (int s : r.stages) {
        if (!stages.empty()) stages += ',';
        stages += std::to_string(s);
      }
      if (r.holds_embedding) stages += " +emb";
      if (r.holds_head) stages += " +head";
      std::vector<std::string> row = {std::to_string(r.rank),         stages,
                                      std::to_string(r.layers),       numberText(r.busy),
                                      fixed(100 * r.bubble, 1) + "%", std::to_string(r.peak_in_flight)};
      if (p.has_memory) {
        for (double v : {r.param_bytes, r.grad_bytes, r.optimizer_bytes, r.activation_bytes})
          row.push_back(formatBytes(v));
        if (kv) row.push_back(formatBytes(r.kv_cache_bytes));
        row.push_back(formatBytes(r.totalBytes()));
      }
      t.rows.push_back(std::move(row));
    }
    t.print(out);
    if (p.has_memory && p.worst_rank >= 0) {
      const auto& worst = p.ranks[static_cast<std::size_t>(p.worst_rank)];
      out << "fullest: rank " << worst.rank << ", " << formatBytes(worst.totalBytes()) << " of "
          << (p.hbm_bytes > 0 ? formatBytes(p.hbm_bytes) + " HBM" : std::string("an unknown HBM")) << ": "
          << (p.hbm_bytes <= 0                   ? "no HBM figure for this chip"
              : worst.totalBytes() > p.hbm_bytes ? "OUT OF MEMORY"
                                                 : "fits")
          << "\n";
    }
  }
  if (!p.transfers.empty()) {
    out << "\nactivation transfers between groups (one micro-batch, one direction, per device):\n";
    TextTable t;
    t.header = {"stages", "ranks", "bytes", "time", "hops", "link"};
    t.right_aligned = {false, false, true, true, true, false};
    for (const auto& x : p.transfers)
      t.rows.push_back({std::to_string(x.from_stage) + "->" + std::to_string(x.to_stage),
                        std::to_string(x.from_rank) + "->" + std::to_string(x.to_rank), formatBytes(x.bytes),
                        formatSeconds(x.seconds), std::to_string(x.max_hops), x.slowest_link});
    t.print(out);
  }
}

Json timelineJson(const PipelineTimeline& tl) {
  Json events = Json::array();
  for (const auto& ev : tl.events) {
    Json tasks = Json::array();
    for (const auto& t : tl.members(ev))
      tasks.push_back(Json::array({std::string(taskTypeName(t.type)), t.microbatch, t.stage}));
    events.push_back({{"rank", ev.rank}, {"start", ev.start}, {"end", ev.end}, {"tasks", tasks}});
  }
  return events;
}

} // namespace

int runPipeline(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--axis"},   {"--schedule"},    {"--stages"}, {"--microbatches"},
                                    {"--layers"}, {"--fuse", false}, {"--format"}, {"--width"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "workspace file");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  std::size_t width = 120;
  if (const auto w = opts.value("--width"))
    width = static_cast<std::size_t>(std::max<std::int64_t>(positiveFlag("--width", *w, 100000), 40));
  std::optional<PipelineScheduleKind> schedule;
  if (const auto text = opts.value("--schedule")) {
    schedule = parsePipelineScheduleKind(*text);
    if (!schedule || !isExportedByJaxpp(*schedule))
      throw UsageError("--schedule must be one of GPipe, Std1F1B, Eager1F1B, ZeroBubble, Interleaved1F1B, KimiK2, "
                       "DualPipeV; got '" +
                       *text + "'");
  }
  std::optional<std::int64_t> stages, microbatches;
  if (const auto v = opts.value("--stages")) stages = parseCount("--stages", *v);
  if (const auto v = opts.value("--microbatches")) microbatches = parseCount("--microbatches", *v);
  std::vector<std::int64_t> layers;
  if (const auto v = opts.value("--layers")) layers = parseLayers(*v);

  const bool workspaceGiven = !opts.positionals().empty();
  Scenario scenario = workspaceGiven ? loadScenarioFile(opts.positionals().front()) : defaultScenario();
  const bool anyFlag =
      opts.has("--axis") || schedule || opts.has("--fuse") || stages || microbatches || !layers.empty();
  if (!scenario.pipeline && !anyFlag)
    throwValueError(std::string(workspaceGiven ? "the workspace" : "the default scenario") +
                    " has no pipeline section; add one (docs/workspace.md) or give --axis and --schedule");
  PipelineConfig& cfg = scenario.pipeline ? *scenario.pipeline : scenario.pipeline.emplace();
  if (const auto axis = opts.value("--axis")) cfg.axis = *axis;
  if (schedule) cfg.schedule = *schedule;
  if (opts.has("--fuse")) cfg.fuse_steady_state = true;
  if (stages) cfg.num_stages = stages;
  if (microbatches) cfg.microbatches = microbatches;
  if (!layers.empty()) cfg.layers_per_stage = layers;
  // A new schedule on an old workspace: its stage count follows the axis unless given.
  if (schedule && !stages) cfg.num_stages.reset();

  const Analysis analysis = analyze(scenario);
  if (format == "json") {
    Json out;
    const Json full = analysisToJson(analysis);
    out["pipeline"] = full.contains("pipeline") ? full["pipeline"] : Json();
    out["timeline"] =
        analysis.pipeline && analysis.pipeline->scheduled ? timelineJson(analysis.pipeline->timeline) : Json::array();
    Json diagnostics = Json::array();
    for (const auto& d : full["diagnostics"])
      if (d["section"] == "pipeline") diagnostics.push_back(d);
    out["diagnostics"] = diagnostics;
    io.out << dumpJson(out, 2) << "\n";
  } else {
    printTable(analysis, width, io.out);
  }
  // A pipeline that could not be set up, or that jaxpp would refuse (a process in two groups): its
  // warnings and errors on stderr, an error the exit status.
  bool failed = false;
  for (const auto& d : analysis.diagnostics)
    if (d.section == DiagnosticSection::Pipeline && d.severity != Diagnostic::Severity::Info) {
      io.err << "shardscope-cli pipeline: " << diagnosticLine(d) << "\n";
      failed = failed || d.severity == Diagnostic::Severity::Error;
    }
  return failed ? 1 : 0;
}

} // namespace shardscope::cli
