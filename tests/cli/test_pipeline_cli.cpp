// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli pipeline`: the text timeline and figures of the example pipeline workspace (its
// 4-rank Std1F1B with M = 8 and an even split is jaxpp's unit-latency picture: makespan 33, bubble
// 0.273, peak in-flight 4 3 2 1, eformer-jaxpp spec §2.4), flags that override it, JSON, and its errors.
#include "cli.hpp"
#include "cli/cli_run.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/resources.hpp"

#include <catch2/catch.hpp>

#include <cstdio>

#include <sstream>

using namespace shardscope;

namespace {
using Run = test::CliRun;
Run run(const cli::Args& args) { return test::runCli(args); }
std::string example() {
  return resourcePath("scenarios").append("llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json").string();
}
bool has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }
} // namespace

TEST_CASE("pipeline prints a timeline row per rank, the bubble, in-flight and memory per rank", "[cli][pipeline]") {
  const Run r = run({"pipeline", example()});
  INFO(r.out << r.err);
  REQUIRE(r.code == 0);
  CHECK(has(r.out, "pipeline Std1F1B on axis 'pp' (4 ranks), 4 stages, M = 8 micro-batches"));
  CHECK(has(r.out, "layers per stage: 20 20 20 20"));
  // Seconds from the step estimate; the bubble is the schedule's, as --format json gives it (the
  // core tests work it out by hand: 33 units of which ranks 0-2 are busy 24, the last rank longer
  // by the output projection and the loss).
  const Run json = run({"pipeline", example(), "--format", "json"});
  REQUIRE(json.code == 0);
  const double bubble = Json::parse(json.out)["pipeline"]["bubble_fraction"]["overall"].get<double>();
  CHECK(bubble > 3.0 / 11); // above the textbook (S - 1) / (M + S - 1) of equal stages
  char text[64];
  std::snprintf(text, sizeof text, " s, bubble %.1f%% (mean over ranks)", 100 * bubble);
  CHECK(has(r.out, text));
  // One timeline row per rank, three columns a unit: rank 0 runs its four warm-up forwards, waits
  // six units for the first backward to come back, then alternates; rank 3 idles three units
  // and alternates F (1 unit) and B (2 units) at once.
  CHECK(has(r.out, "timeline (one column = "));
  CHECK(has(r.out, "r0  |F0~F1~F2~F3~..................B0~~~~F4~B1~~~~"));
  CHECK(has(r.out, "r3  |.........F0~B0~~~~"));
  // The per-rank table: rank, stages, layers, busy, bubble, peak in-flight, then memory.
  CHECK(has(r.out, "   0  0 +emb       20"));
  CHECK(has(r.out, "%               4  "));
  CHECK(has(r.out, "   3  3 +head      20"));
  CHECK(has(r.out, "%               1  "));
  CHECK(has(r.out, "fullest: rank "));
  CHECK(has(r.out, "activation transfers between groups"));
  CHECK(has(r.out, "network"));
}

TEST_CASE("pipeline flags override the workspace, and --format json carries the timeline", "[cli][pipeline]") {
  const Run r = run({"pipeline", example(), "--schedule", "DualPipeV", "--microbatches", "16", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK(j["pipeline"]["schedule"] == "DualPipeV");
  CHECK(j["pipeline"]["num_stages"] == 8); // twice the axis when not given
  CHECK(j["pipeline"]["microbatches"] == 16);
  CHECK(j["pipeline"]["stage_to_rank"] == Json::array({0, 1, 2, 3, 3, 2, 1, 0}));
  CHECK(j["pipeline"]["per_rank"][0]["holds_embedding"] == true);
  CHECK(j["pipeline"]["per_rank"][0]["holds_head"] == true);
  CHECK(j["pipeline"]["time_unit"] == "s");
  CHECK(j["pipeline"]["makespan_s"].get<double>() > 0);
  // Every task of 8 stages x 16 micro-batches: F, I and W per stage but stage 0's merged I+W.
  std::size_t tasks = 0;
  for (const auto& ev : j["timeline"]) tasks += ev["tasks"].size();
  CHECK(tasks == 16 * (8 + 8 + 7));
  for (const auto& d : j["diagnostics"]) CHECK(d["severity"] == "info");
}

TEST_CASE("pipeline errors name the field and exit non-zero", "[cli][pipeline]") {
  Run r = run({"pipeline"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "the default scenario has no pipeline section"));
  r = run({"pipeline", example(), "--stages", "6"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "shardscope-cli pipeline: error [pipeline] pipeline.num_stages: pipeline.num_stages is 6, but "
                   "Std1F1B runs one stage per "
                   "rank, so it must equal the size of axis 'pp' (4)"));
  r = run({"pipeline", example(), "--schedule", "ZeroBubble", "--microbatches", "2"});
  CHECK(r.code == 1);
  CHECK(has(r.err, "pipeline.microbatches is 2, but ZeroBubble needs at least as many micro-batches as stages (4)"));
  r = run({"pipeline", example(), "--schedule", "Zero"});
  CHECK(r.code == 2); // the command line is wrong: a usage error, as in every command
  CHECK(has(r.err, "--schedule must be one of"));
  r = run({"pipeline", "--help"});
  CHECK(r.code == 0);
  CHECK(has(r.out, "Usage: shardscope-cli pipeline"));
}
