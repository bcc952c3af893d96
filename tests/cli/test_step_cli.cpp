// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli step`: the breakdown table and the sentence, `--format json` with the `step`
// object, a bare model, argument errors; and `comm`'s table quoting the same price as the step.
#include "cli.hpp"
#include "cli/cli_run.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/step/step_time.hpp"

#include <catch2/catch.hpp>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;

namespace {
using Run = test::CliRun;
Run run(const cli::Args& args) { return test::runCli(args); }
} // namespace

TEST_CASE("step prints the breakdown, the per-axis collectives, the checks and the sentence", "[cli][step]") {
  const Run r = run({"step", "--topology", "v4:2x2x1", "--mesh", "fsdp:-1", "--model", "gpt2", "--rules", "fsdp"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("mesh fsdp:4 on 4 devices") != std::string::npos);
  CHECK(r.out.find("% MFU") != std::string::npos);
  CHECK(r.out.find("compute") != std::string::npos);
  CHECK(r.out.find("fsdp_weights all_gather") != std::string::npos);
  // v4's default fraction, printed with two decimals.
  char flops[64];
  std::snprintf(flops, sizeof flops, "calibration: flops %.2f (default)",
                defaultCalibration(*findChip("v4")).flops_fraction.value);
  CHECK(r.out.find(flops) != std::string::npos);
  CHECK(r.out.find("per step, ") != std::string::npos); // the summary sentence
}

TEST_CASE("step --format json carries the step object and no parameter list", "[cli][step]") {
  const Run r = run({"step", "--format", "json"});
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  CHECK_FALSE(j.contains("params"));
  REQUIRE(j.contains("step"));
  CHECK(j["step"]["estimated"] == true);
  CHECK(j["step"]["time_s"].get<double>() > 0);
  CHECK(j["step"]["per_axis"].size() == 3);
  CHECK(j["comm"][0].contains("exposed_s"));
}

TEST_CASE("step on a bare safetensors header says what it cannot estimate and still shows memory", "[cli][step]") {
  const Run r = run({"step", "--topology", "v4:2x2x1", "--mesh", "fsdp:-1", "--model",
                     std::string(SHARDSCOPE_TEST_DATA) + "/tiny.safetensors", "--rules", "fsdp"});
  REQUIRE(r.code == 0);
  CHECK(r.out.find("memory per device: max") != std::string::npos);
  CHECK(r.out.find("Step time not estimated") != std::string::npos);
  CHECK(r.out.find("no architecture config") != std::string::npos);
}

TEST_CASE("step takes the batch from flags and names padded replicas", "[cli][step]") {
  // 2 sequences on 4 fsdp replicas: half the devices compute padding.
  const cli::Args common = {"step", "--topology", "v4:2x2x1", "--mesh",    "fsdp:-1", "--model",
                            "gpt2", "--rules",    "fsdp",     "--seq-len", "1024"};
  const auto with = [&](cli::Args extra) {
    cli::Args a = common;
    a.insert(a.end(), extra.begin(), extra.end());
    return a;
  };
  const Run padded = run(with({"--micro-batch", "2"}));
  REQUIRE(padded.code == 0);
  CHECK(padded.out.find("(2048 tokens per step)") != std::string::npos); // the table says what the JSON holds
  CHECK(padded.out.find("only 2 of the 4 batch replicas have a sequence (the rest compute padding)") !=
        std::string::npos);
  const Run paddedJson = run(with({"--micro-batch", "2", "--format", "json"}));
  REQUIRE(paddedJson.code == 0);
  const Json p = Json::parse(paddedJson.out)["step"];
  CHECK(p["tokens_per_step"].get<double>() == 2.0 * 1024);
  // 8 sequences per micro-batch, 3 accumulation steps, 1024 tokens each; 8 divides over 4 replicas.
  const Run accumulated = run(with({"--micro-batch", "8", "--microbatches", "3", "--format", "json"}));
  REQUIRE(accumulated.code == 0);
  const Json a = Json::parse(accumulated.out)["step"];
  CHECK(a["tokens_per_step"].get<double>() == 8.0 * 3 * 1024);
  CHECK(run({"step", "--micro-batch", "0"}).err.find("--micro-batch must be a positive integer, got '0'") !=
        std::string::npos);
}

TEST_CASE("step argument errors", "[cli][step]") {
  CHECK(run({"step", "--format", "csv"}).code == 2);                          // a usage error, as in every command
  CHECK(run({"step", "--micro-batch", "8", "--micro-batch", "9"}).code == 2); // a flag given twice
  CHECK(run({"step", "--bogus"}).err.find("unknown option --bogus") != std::string::npos);
  CHECK(run({"step", "--topology", "v4:4x4x4"}).err.find("--topology needs --mesh") != std::string::npos);
  CHECK(run({"step", "--help"}).out.find("Usage: shardscope-cli step") != std::string::npos);
  const auto dir = std::filesystem::temp_directory_path() / ("shardscope-step-cli-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "bad.shardscope.json";
  std::ofstream(file) << R"({"performance": {"flops_fraction": 2}})";
  const Run bad = run({"step", file.string()});
  CHECK(bad.code == 1);
  CHECK(bad.err.find("performance.flops_fraction must be a number between 0.01 and 1, got 2") != std::string::npos);
  std::filesystem::remove_all(dir);
}

TEST_CASE("comm's table quotes the price the step estimate uses (the scaling book's 23 us)", "[cli][step][comm]") {
  // v4 4x4x4, AllGather_X of 2 MiB: 2 MiB / 9e10 = 23.3 us on the wrapped X ring.
  const Run r = run({"comm", "--topology", "v4:4x4x4", "--mesh", "X:4,Y:4,Z:4", "--bytes", "2097152"});
  REQUIRE(r.code == 0);
  std::istringstream lines(r.out);
  std::string line;
  bool found = false;
  while (std::getline(lines, line))
    if (line.rfind("X ", 0) == 0) {
      found = true;
      CHECK(line.find("23.3 us") != std::string::npos);
    }
  CHECK(found);
  // The same figure as a number: X is the first axis.
  const Run j =
      run({"comm", "--topology", "v4:4x4x4", "--mesh", "X:4,Y:4,Z:4", "--bytes", "2097152", "--format", "json"});
  REQUIRE(j.code == 0);
  const Json x = Json::parse(j.out)["axes"][0];
  CHECK(x["axis"].get<std::string>() == "X");
  CHECK(x["collectives"]["all_gather"]["time_s"].get<double>() == Approx(2097152 / 9e10).epsilon(1e-4));
}
