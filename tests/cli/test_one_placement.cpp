// SPDX-License-Identifier: Apache-2.0
// One placement path: the same --topology/--mesh (or the same workspace file) through every
// command and both eval ops gives one mesh: the same axes, per-slice (ICI) and cross-slice (DCN)
// sizes and devices in the same places.
#include "cli_run.hpp"

#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h>

using namespace shardscope;
using test::runCli;

namespace {

// What the `mesh` object says about the placement, without the prose.
Json meshFacts(const Json& mesh) {
  Json axes = Json::array();
  for (const auto& a : mesh["axes"]) axes.push_back({a["name"], a["size"], a["ici"], a["dcn"]});
  return {{"axes", axes}, {"shape", mesh["shape"]}, {"placement", mesh["placement"]}};
}

Json meshOf(const cli::Args& args) {
  const auto run = runCli(args);
  INFO(run.err);
  REQUIRE(run.code == 0);
  return meshFacts(Json::parse(run.out)["mesh"]);
}

Json evalMesh(const Json& request) {
  std::istringstream in(request.dump() + "\n");
  std::ostringstream out, err;
  REQUIRE(cli::run({"eval"}, {in, out, err}) == 0);
  const Json answer = Json::parse(out.str());
  INFO(answer.dump());
  REQUIRE(answer["ok"] == true);
  return meshFacts(answer["result"]["mesh"]);
}

} // namespace

TEST_CASE("shard, step, comm and the eval place --mesh on two slices the same way", "[cli][placement]") {
  const cli::Args flags{"--topology", "v5e:16x16:slices=2", "--mesh", "dp:2,fsdp:-1,tp:4", "--format", "json"};
  auto with = [&](const char* command) {
    cli::Args args{command};
    args.insert(args.end(), flags.begin(), flags.end());
    return args;
  };
  const Json shard = meshOf(with("shard"));
  // Sizes per slice (256 chips: dp 2 x fsdp 32 x tp 4), the 2 slices on the first axis over DCN.
  CHECK(shard["shape"] == Json::array({4, 32, 4}));
  CHECK(shard["axes"][0] == Json::array({"dp", 4, 2, 2}));
  CHECK(shard["axes"][1] == Json::array({"fsdp", 32, 32, 1}));
  CHECK(shard["axes"][2] == Json::array({"tp", 4, 4, 1}));
  CHECK(meshOf(with("step")) == shard);
  CHECK(meshOf(with("comm")) == shard);
  CHECK(evalMesh({{"op", "axis_report"}, {"topology", "v5e:16x16:slices=2"}, {"mesh", "dp:2,fsdp:-1,tp:4"}}) == shard);

  Scenario scenario = defaultScenario();
  scenario.topology = parseTopology("v5e:16x16:slices=2");
  scenario.mesh.axes = meshAxesFromText("dp:2,fsdp:-1,tp:4", scenario.topology);
  CHECK(evalMesh({{"op", "analyze"}, {"scenario", scenarioToJson(scenario)}}) == shard);
  CHECK(evalMesh({{"op", "axis_report"}, {"scenario", scenarioToJson(scenario)}}) == shard);
}

TEST_CASE("comm reads a workspace file as shard does", "[cli][placement]") {
  Scenario scenario = defaultScenario();
  scenario.topology = parseTopology("v4:4x4x4:slices=2");
  scenario.mesh.axes = {{"data", 1, 2}, {"fsdp", 16, 1}, {"tp", 4, 1}};
  const auto file =
      std::filesystem::temp_directory_path() / ("shardscope-placement-" + std::to_string(::getpid()) + ".json");
  std::ofstream(file) << scenarioToJson(scenario).dump(2);
  const Json shard = meshOf({"shard", file.string(), "--format", "json"});
  CHECK(shard["shape"] == Json::array({2, 16, 4}));
  CHECK(meshOf({"comm", file.string(), "--format", "json"}) == shard);
  CHECK(meshOf({"step", file.string(), "--format", "json"}) == shard);
  std::filesystem::remove(file);
}
