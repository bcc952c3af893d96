// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli validate`: the published-runs validation suite (resources/validation,
// docs/validation.md). Every run goes through analyze() as a workspace would; the table sets the
// predicted step time and MFU against the measured ones, and the summary says how many runs land
// within tolerance, the mean absolute percentage error and the worst run. `--fit` prints, per chip,
// the flops_fraction each run implies once the other terms are priced, and their median: how the
// chip defaults of step/step_calibration.cpp are derived.
#include "cli.hpp"
#include "cli_options.hpp"
#include "text_table.hpp"

#include "shardscope/base/quoting.hpp"

#include "shardscope/validation/validation.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/resources.hpp"

#include <algorithm>
#include <cmath>
#include <iomanip>
#include <map>
#include <ostream>
#include <sstream>

namespace shardscope::cli {

namespace {

void usage(std::ostream& out) {
  out << "Usage: shardscope-cli validate [DIRECTORY] [--format table|json] [--fit | --cross-validate] [--workspace "
         "RUN]\n\n"
         "Runs every published measured training run of the validation suite (default: the\n"
         "resources/validation directory) through the same analysis as a workspace, and prints\n"
         "predicted against measured step time (the measurement's MFU or TFLOP/s converted with\n"
         "the published model-FLOPs convention: 6 x matmul parameters + 12 x layers x seq x\n"
         "attention width, per token; 8 x and 16 x on the layers for a run whose TFLOP/s count\n"
         "the recomputed forward, \"flops_counted\": \"with_recompute\"), the error, and a summary:\n"
         "runs within 15%, mean absolute percentage error (MAPE), the worst run. The devices column\n"
         "counts JAX devices (two per TPU v2, v3 or 7x chip); a run's TFLOP/s and tokens/s are per\n"
         "device or per chip as it says (tflops_per_device, tflops_per_chip). docs/validation.md\n"
         "explains the suite.\n\n"
         "  --format F  table (default) or json\n"
         "  --fit       per chip, the flops_fraction each run implies and their median\n"
         "  --cross-validate  leave one source out at a time: fit each of its chips' flops_fraction\n"
         "              on the other sources' runs alone (the median of --fit's), predict the source\n"
         "              with it, and print in-sample against out-of-sample error per source; a chip\n"
         "              no other source measures has no out-of-sample fit and is counted apart\n"
         "  --workspace RUN  print the workspace the run RUN (its id) becomes, to open in the app\n";
}

std::string fixed(double x, int digits) {
  std::ostringstream o;
  o << std::fixed << std::setprecision(digits) << x;
  return o.str();
}

std::string signedPercent(double x) {
  std::ostringstream o;
  o << std::showpos << std::fixed << std::setprecision(1) << 100 * x << "%";
  return o.str();
}

// The flops_fraction that would make the prediction match: compute scales with 1/fraction, the
// rest stays. Runs whose measured time is at or below the non-compute terms imply nothing.
void printFit(const std::vector<ValidationResult>& results, std::ostream& out) {
  std::map<std::string, std::vector<double>> byChip;
  for (const auto& r : results)
    if (const auto scale = impliedFlopsScale(r)) byChip[r.run->chip].push_back(*scale);
  TextTable t;
  t.header = {"chip", "runs", "implied scale (median)", "min", "max"};
  t.right_aligned = {false, true, true, true, true};
  for (auto& [chip, scales] : byChip) {
    std::sort(scales.begin(), scales.end());
    const std::size_t n = scales.size();
    const double median = n % 2 ? scales[n / 2] : (scales[n / 2 - 1] + scales[n / 2]) / 2;
    t.rows.push_back({chip, std::to_string(n), fixed(median, 3), fixed(scales.front(), 3), fixed(scales.back(), 3)});
  }
  out << "flops_fraction x scale = the fraction each chip's runs imply (pipelined runs left out):\n";
  t.print(out);
}

std::string percentOr(const std::optional<double>& v) { return v ? fixed(100 * *v, 1) + "%" : std::string("-"); }

void printCrossValidation(const CrossValidation& cv, std::ostream& out) {
  TextTable t;
  t.header = {"source", "runs", "in-sample MAPE", "out of sample", "MAPE", "fitted on the other sources"};
  t.right_aligned = {false, true, true, true, true, false};
  for (const auto& s : cv.sources) {
    if (s.runs == 0 && s.unfitted == 0) continue; // a source that measures only memory
    // The source's title up to its first colon, at most 60 characters.
    std::string title = s.source.substr(0, s.source.find(':'));
    if (title.size() > 60) title = title.substr(0, 59) + "\u2026";
    std::string fit;
    for (const auto& [chip, fraction] : s.fit) fit += (fit.empty() ? "" : ", ") + chip + " " + fixed(fraction, 3);
    if (s.unfitted > 0) {
      std::string chips;
      for (const auto& chip : s.unfitted_chips) chips += (chips.empty() ? "" : ", ") + chip;
      fit += (fit.empty() ? "" : "; ") + std::to_string(s.unfitted) + " run(s) on " + chips +
             ", which no other source measures";
    }
    t.rows.push_back({title, std::to_string(s.runs), percentOr(s.in_sample_mape), std::to_string(s.predicted),
                      percentOr(s.out_of_sample_mape), fit});
  }
  t.print(out);
  out << "\nin sample (the chip defaults, fitted on every source): " << cv.runs << " runs, MAPE "
      << percentOr(cv.in_sample_mape) << "; out of sample (each source predicted from the others): " << cv.predicted
      << " runs, MAPE " << percentOr(cv.out_of_sample_mape) << "; " << cv.unfitted
      << " run(s) on a chip only their own source measures\n";
}

void printTable(const std::vector<ValidationResult>& results, const ValidationSummary& s, std::ostream& out) {
  TextTable t;
  t.header = {"run",   "chip",      "devices",   "measured", "predicted",
              "error", "MFU meas.", "MFU pred.", "bound by", "memory"};
  t.right_aligned = {false, false, true, true, true, true, true, true, false, true};
  for (const auto& r : results) {
    std::vector<std::string> row{r.run->id, r.run->chip, fixed(r.devices, 0)};
    if (r.ok) {
      row.insert(row.end(),
                 {fixed(r.measured_step_s, 3) + " s", fixed(r.predicted_step_s, 3) + " s", signedPercent(r.step_error),
                  fixed(100 * r.measured_mfu, 1) + "%", fixed(100 * r.predicted_mfu, 1) + "%", r.bound_by});
    } else {
      row.insert(row.end(), {"-", "-", "-", "-", "-", r.error.empty() ? "memory only" : "failed (below)"});
    }
    row.push_back(r.memory_error ? signedPercent(*r.memory_error) : std::string("-"));
    t.rows.push_back(std::move(row));
  }
  t.print(out);
  out << "\n"
      << s.predicted << " of " << s.runs - s.memory_only << " runs predicted"
      << (s.memory_only > 0 ? " (and " + std::to_string(s.memory_only) + " that measure only memory)" : std::string())
      << "; " << s.within_step_tolerance << " within " << fixed(100 * s.step_tolerance, 0) << "% on step time; ";
  if (s.mape)
    out << "MAPE " << fixed(100 * *s.mape, 1) << "%; worst " << s.worst_run << " (" << fixed(100 * *s.worst_error, 1)
        << "%)";
  else
    out << "no MAPE (no run was predicted)";
  if (s.memory_runs > 0) out << "; memory within 10%: " << s.memory_within << " of " << s.memory_runs;
  out << "\n";
}

} // namespace

int runValidate(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    usage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--format"}, {"--fit", false}, {"--cross-validate", false}, {"--workspace"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "validation directory");
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  if (opts.has("--fit") && opts.has("--cross-validate")) throw UsageError("--fit and --cross-validate: choose one");
  const std::filesystem::path dir =
      opts.positionals().empty() ? resourcePath("validation") : std::filesystem::path(opts.positionals().front());
  const std::vector<ValidationRun> runs = loadValidationRuns(dir);
  if (const auto id = opts.value("--workspace")) {
    for (const auto& run : runs)
      if (run.id == *id) {
        io.out << dumpJson(scenarioToJson(runScenario(run)), 2) << "\n";
        return 0;
      }
    throw UsageError("--workspace: no run '" + *id + "' in the suite");
  }
  AnalysisCache cache;
  std::vector<ValidationResult> results;
  results.reserve(runs.size());
  for (const auto& run : runs) results.push_back(validateRun(run, cache));
  const ValidationSummary summary = summarizeValidation(results);
  if (opts.has("--cross-validate")) {
    const CrossValidation cv = crossValidate(results, cache);
    if (format == "json")
      io.out << dumpJson(crossValidationToJson(cv), 2) << "\n";
    else
      printCrossValidation(cv, io.out);
  } else if (format == "json")
    io.out << dumpJson(validationToJson(results, summary), 2) << "\n";
  else if (opts.has("--fit"))
    printFit(results, io.out);
  else
    printTable(results, summary, io.out);
  // A run that could not be predicted is a failure of the suite, each said in full on stderr.
  for (const auto& r : results)
    if (!r.ok && !r.error.empty())
      io.err << "shardscope-cli validate: " << oneLineText(r.run->id) << ": " << oneLineText(r.error) << "\n";
  return summary.failed > 0 ? 1 : 0;
}

} // namespace shardscope::cli
