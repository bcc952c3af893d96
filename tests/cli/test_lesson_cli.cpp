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

TEST_CASE("lesson --answers grades predictions against the walked workspace", "[cli][lesson]") {
  // Step 1: 2 MiB over v4's wrapped ring at 2 x 45 GB/s = 23.3 us; step 2: 8 MiB over two such
  // dimensions = 46.6 us.
  const auto r = runCli({"lesson", "collectives", "--answers", "1=23us,2=23", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  const Json& first = j["steps"][0]["predict"];
  CHECK(first["figure"] == "collective.all_gather.X");
  CHECK(first["answer"].get<double>() == Approx(2097152 / 9e10));
  CHECK(first["grade"]["right"] == true);
  CHECK(first["grade"]["yours"].get<double>() == Approx(23e-6));
  const Json& second = j["steps"][1]["predict"];
  CHECK(second["answer"].get<double>() == Approx(8388608 / 18e10));
  CHECK(second["grade"]["right"] == false);
  CHECK(second["grade"]["verdict"] == "Not quite: 46.6 us; yours (23 us) is 2.0x too small.");
  CHECK_FALSE(j["steps"][2]["predict"].contains("grade")); // not answered
  const auto text = runCli({"lesson", "collectives", "--answers", "1=23us"});
  CHECK(text.out.find("  Predict: An AllGather of a 2 MiB bf16 array over X") != std::string::npos);
  CHECK(text.out.find("  Right: 23.3 us (yours: 23 us).") != std::string::npos);
  CHECK(text.out.find("  Answer: 46.6 us") != std::string::npos); // step 2 unanswered: revealed
  // Wrong command lines: exit 2 with the reason.
  CHECK(runCli({"lesson", "collectives", "--answers", "1=2GiB"}).err.find("asks in us, not in GiB") !=
        std::string::npos);
  CHECK(runCli({"lesson", "collectives", "--answers", "9=1"}).code == 2);
  CHECK(runCli({"lesson", "fsdp", "--answers", "1=1"}).err.find("step 1 asks for no prediction") != std::string::npos);
}
