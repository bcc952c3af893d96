// SPDX-License-Identifier: Apache-2.0
// Every MaxText run of the validation suite, imported from MaxText's own config files at the
// version the run names, with the run's own command-line overrides (tests/data/maxtext-runs: the
// yml files verbatim, runs.json with each override's source line), predicts the step of the same run
// written by hand within 2%, and its measurement within the suite's tolerance. The measured figures
// are the sources' (resources/validation); nothing expected here is computed by the code under test.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/validation/validation.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace shardscope;

namespace {

const std::filesystem::path kRuns = std::filesystem::path(SHARDSCOPE_TEST_DATA) / "maxtext-runs";

Json readJsonFile(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream text;
  text << in.rdbuf();
  return parseJsonText(text.str(), file.string());
}

} // namespace

TEST_CASE("every MaxText run of the suite, imported from its config, predicts its hand-written step", "[maxtext]") {
  const Json manifest = readJsonFile(kRuns / "runs.json");
  REQUIRE(manifest["runs"].is_array());
  const auto suite = loadValidationRuns(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "validation");
  std::map<std::string, const ValidationRun*> byId;
  std::size_t maxtextRuns = 0;
  for (const auto& r : suite) {
    byId[r.id] = &r;
    // MaxText's own runs (the suite names them maxtext-...; PaLM ran on Pax, with no MaxText config).
    if (r.framework == "maxtext" && r.id.rfind("maxtext-", 0) == 0) ++maxtextRuns;
  }
  // Every MaxText run of the suite has its entry: a new run without one fails here.
  CHECK(manifest["runs"].size() == maxtextRuns);
  REQUIRE(maxtextRuns >= 60);

  AnalysisCache cache;
  for (const Json& entry : manifest["runs"]) {
    const std::string id = entry["id"].get<std::string>();
    INFO(id);
    REQUIRE(byId.count(id) == 1);
    const ValidationRun& run = *byId[id];
    std::vector<std::filesystem::path> files;
    for (const Json& f : entry["files"]) files.push_back(kRuns / f.get<std::string>());
    std::vector<std::string> overrides;
    for (const Json& o : entry["overrides"]) overrides.push_back(o.get<std::string>());

    MaxTextImportNotes notes;
    const Analysis imported = analyze(importMaxText(files, overrides, notes), cache);
    const Analysis byHand = analyze(runScenario(run), cache);
    REQUIRE(imported.step.estimated);
    REQUIRE(byHand.step.estimated);
    CHECK(imported.step.time_s == Approx(byHand.step.time_s).epsilon(0.02));
    CHECK(imported.step.model_flops == Approx(byHand.step.model_flops).epsilon(0.01));
    // Against the measurement: within the suite's 15%, or no further from it than the hand-written
    // run (the suite's known misses, docs/validation.md) plus the 2% above.
    const ValidationResult measured = validateRun(run, cache);
    REQUIRE(measured.ok);
    const double errorImported = std::fabs(imported.step.time_s / measured.measured_step_s - 1);
    CHECK(errorImported <= std::max(0.15, std::fabs(measured.step_error) + 0.02));
  }
}
