// SPDX-License-Identifier: Apache-2.0
#include "cli_run.hpp"

#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using test::runCli;

TEST_CASE("lesson lists the lessons and walks one with its figures", "[cli][lesson]") {
  const auto list = runCli({"lesson"});
  REQUIRE(list.code == 0);
  CHECK(list.out.find("fsdp ") != std::string::npos);
  CHECK(list.out.find("multi-slice") != std::string::npos);

  const auto walk = runCli({"lesson", "fsdp", "--format", "json"});
  INFO(walk.err);
  REQUIRE(walk.code == 0);
  const Json j = Json::parse(walk.out);
  REQUIRE(j["steps"].size() == 2);
  // Step 2 shards the parameters over 128 chips: the fullest device's parameters fall 128-fold
  // (bf16 Llama-3.1-8B: the same bytes, divided by the fsdp size, up to uneven shards).
  const Json& params = j["steps"][1]["figures"][0];
  CHECK(params["figure"] == "memory.params");
  CHECK(params["change"] == "down");
  CHECK(params["holds"] == true);
  CHECK(params["before"].get<double>() / params["after"].get<double>() == Approx(128).epsilon(0.05));

  const auto unknown = runCli({"lesson", "zero-4"});
  CHECK(unknown.code == 1);
  CHECK(unknown.err.find("no lesson named 'zero-4' (lessons: data-parallel, fsdp") != std::string::npos);
}
