// SPDX-License-Identifier: Apache-2.0
// shardscope-cli decode-sharding: table and JSON output, physical devices from a topology, usage
// errors (exit 2) and input errors (exit 1).
#include "cli_run.hpp"

#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using shardscope::test::runCli;

TEST_CASE("decode-sharding: the issue's example as a table", "[cli][decode_sharding]") {
  const auto r = runCli({"decode-sharding", "{devices=[4,2]<=[8]}", "--shape", "8192,28672"});
  REQUIRE(r.code == 0);
  // Device k at tile (k/2, k%2): 2048 rows and 14336 columns each.
  CHECK_THAT(r.out, Catch::Contains("tiles [4,2], each block on 1 device(s)"));
  CHECK_THAT(r.out, Catch::Contains("5  (2,1)  4096:6144  14336:28672"));
  CHECK_THAT(r.out, Catch::Contains("0  (0,0)     0:2048      0:14336"));
}

TEST_CASE("decode-sharding: JSON with the physical devices of a topology", "[cli][decode_sharding]") {
  // v4:2x2x1 has 4 chips in jax.devices() order; [2,1,2]<=[4] last_tile_dim_replicate puts rows
  // [0,4) on devices 0,1 and [4,8) on 2,3.
  const auto r = runCli({"decode-sharding", "{devices=[2,1,2]<=[4] last_tile_dim_replicate}", "--shape", "8,2",
                         "--topology", "v4:2x2x1", "--format", "json"});
  REQUIRE(r.code == 0);
  const Json out = Json::parse(r.out);
  CHECK(out["tile_dims"] == Json::array({2, 1}));
  CHECK(out["replicated_tiles"] == 2);
  CHECK(out["devices"][3]["index"] == Json::parse("[[4, 8], [0, 2]]"));
  CHECK_THAT(out["devices"][3]["physical"].get<std::string>(), Catch::Equals("id 3 (1,1,0) core 0"));
}

TEST_CASE("decode-sharding: usage errors exit 2, bad input exits 1", "[cli][decode_sharding]") {
  CHECK(runCli({"decode-sharding", "{replicated}"}).code == 2);                   // no --shape
  CHECK(runCli({"decode-sharding", "{replicated}", "--shape", "4,x"}).code == 2); // bad shape
  CHECK(runCli({"decode-sharding", "{replicated}", "--shape", "4", "--format", "csv"}).code == 2);
  CHECK(runCli({"decode-sharding", "{replicated}", "--shape", "4", "--devices", "0"}).code == 2);
  const auto bad = runCli({"decode-sharding", "{devices=[2,2]0,1,2}", "--shape", "4,4"});
  CHECK(bad.code == 1);
  CHECK_THAT(bad.err, Catch::Contains("column 10: the tile dimensions hold 4 devices but 3 are listed"));
  const auto count = runCli({"decode-sharding", "{devices=[2]<=[2]}", "--shape", "4", "--topology", "v4:2x2x1"});
  CHECK(count.code == 1);
  CHECK_THAT(count.err, Catch::Contains("names 2 devices but there are 4"));
}

TEST_CASE("shard --format json: each parameter's HLO sharding, decodable by decode-sharding",
          "[cli][decode_sharding]") {
  const auto r = runCli(
      {"shard", SHARDSCOPE_SOURCE_DIR "/resources/scenarios/gpt2-h100-2-hosts.shardscope.json", "--format", "json"});
  REQUIRE(r.code == 0);
  const Json out = Json::parse(r.out);
  REQUIRE(out["mesh"]["axis_names"] == Json::array({"dp", "fsdp"}));
  REQUIRE(out["mesh"]["shape"] == Json::array({2, 8}));
  // By hand (named_sharding_to_xla_hlo_sharding): P(None, 'fsdp') tiles dim 1 eight ways; dp is
  // unused -> a replicated last dim of 2; device order iota([2,8]) transposed to (fsdp, dp).
  const Json& wte = out["params"][0];
  REQUIRE(wte["path"] == "transformer.wte.weight");
  REQUIRE(wte["spec"] == "P(None, 'fsdp')");
  CHECK(wte["hlo_sharding"] == "{devices=[1,8,2]<=[2,8]T(1,0) last_tile_dim_replicate}");
  CHECK(out["params"][2]["hlo_sharding"] == "{replicated}"); // ln_1.weight, P()
  // Fed back: [50257, 768] with fsdp coordinate f = position % 8 holding columns [96 f, 96 f + 96).
  const auto back = runCli({"decode-sharding", wte["hlo_sharding"].get<std::string>(), "--shape", "50257,768",
                            "--devices", "16", "--format", "json"});
  REQUIRE(back.code == 0);
  const Json decoded = Json::parse(back.out);
  for (int k = 0; k < 16; ++k)
    CHECK(decoded["devices"][k]["index"] ==
          Json::array({Json::array({0, 50257}), Json::array({96 * (k % 8), 96 * (k % 8) + 96})}));
}
