// SPDX-License-Identifier: Apache-2.0
// shardscope-cli inspect: the table and the JSON of XLA's test modules (tests/data/inspect),
// pricing on a topology, usage errors (exit 2) and input errors with their line (exit 1).
#include "cli_run.hpp"

#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using shardscope::test::runCli;

namespace {
const std::string kData = SHARDSCOPE_TEST_DATA "/inspect/";
}

TEST_CASE("inspect: a while loop's reduce-scatter as a table", "[cli][inspect]") {
  const auto r = runCli({"inspect", kData + "h04_while_reduce_scatter_trip_count.hlo", "--mesh", "data:2,model:4"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  CHECK_THAT(r.out, Catch::Contains("Collectives:"));
  CHECK_THAT(r.out, Catch::Contains("reduce-scatter"));
  CHECK_THAT(r.out, Catch::Contains("data,model"));
}

TEST_CASE("inspect: JSON with times on a topology", "[cli][inspect]") {
  const auto r = runCli({"inspect", kData + "h04_while_reduce_scatter_trip_count.hlo", "--mesh", "data:2,model:4",
                         "--topology", "v5p:2x2x2", "--format", "json"});
  INFO(r.err);
  REQUIRE(r.code == 0);
  const Json out = Json::parse(r.out);
  const Json& c = out["collectives"][0];
  CHECK(c["bytes_per_device"] == 7168);
  CHECK(c["trip_count"] == 10);
  CHECK(c["axes"] == Json::parse(R"(["data", "model"])"));
  CHECK(c["time_s"].get<double>() > 0);
}

TEST_CASE("inspect: a lowered module and an OOM report", "[cli][inspect]") {
  const auto s = runCli({"inspect", kData + "s01_jax_shard_map_ppermute.mlir", "--format", "json"});
  REQUIRE(s.code == 0);
  CHECK(Json::parse(s.out)["arguments"][0]["spec"] == Json::parse(R"([["a"], []])"));
  const auto o = runCli({"inspect", kData + "o15_xla_docs_message_samples.txt"});
  REQUIRE(o.code == 0);
  CHECK_THAT(o.out, Catch::Contains("Out of memory (tpu_compile) in hbm"));
}

TEST_CASE("inspect: errors", "[cli][inspect]") {
  CHECK(runCli({"inspect"}).code == 2);
  CHECK(runCli({"inspect", kData + "h04_while_reduce_scatter_trip_count.hlo", "--topology", "v5p:2x2x2"}).code == 2);
  CHECK(runCli({"inspect", kData + "h04_while_reduce_scatter_trip_count.hlo", "--format", "yaml"}).code == 2);
  const auto missing = runCli({"inspect", kData + "no-such-file.hlo"});
  CHECK(missing.code == 1);
  const auto bad = runCli({"inspect", SHARDSCOPE_TEST_DATA "/llama-2-70b-config.json"});
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("not recognised"));
}

TEST_CASE("decode-sharding: the text as it stands in a dump, and a Shardy sharding on --mesh", "[cli][inspect]") {
  const auto dump = runCli({"decode-sharding", "sharding={devices=[2,1]0,1}, metadata={op_name=\"jit(f)/x\"}",
                            "--shape", "8,4", "--format", "json"});
  INFO(dump.err);
  REQUIRE(dump.code == 0);
  CHECK(Json::parse(dump.out)["tile_dims"] == Json::array({2, 1}));
  const auto sdy = runCli({"decode-sharding", "#sdy.sharding<@mesh, [{\"data\"}, {}]>", "--mesh", "data:4,model:2",
                           "--shape", "8,8", "--format", "json"});
  INFO(sdy.err);
  REQUIRE(sdy.code == 0);
  const Json out = Json::parse(sdy.out);
  CHECK(out["tile_dims"] == Json::array({4, 1}));
  CHECK(out["replicated_tiles"] == 2);
  // Device 3 is mesh position 3: data 1, model 1: rows [2, 4), every column.
  bool found = false;
  for (const auto& d : out["devices"])
    if (d["device"] == 3) {
      found = true;
      CHECK(d["index"] == Json::parse("[[2, 4], [0, 8]]"));
    }
  CHECK(found);
  CHECK(runCli({"decode-sharding", "#sdy.sharding<@mesh, [{\"data\"}, {}]>", "--shape", "8,8"}).code == 1);
}
