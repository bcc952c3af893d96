// SPDX-License-Identifier: Apache-2.0
// The eval op hlo_sharding: request and result forms, XLA's own device lists, refusals.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
Json run(const char* text) { return evalRequest(Json::parse(text)); }
} // namespace

TEST_CASE("eval hlo_sharding: each device's index ranges", "[hlo_sharding][eval]") {
  // [2,4]<=[4,2]T(1,0) lists devices 0,2,4,6 / 1,3,5,7 row-major (arange(8).reshape(4,2).T):
  // device 3 at tile (1,1). Shape [6,10]: rows in 3s, columns ceil(10/4) = 3 -> [3,6).
  const Json a = run(R"({"op": "hlo_sharding", "sharding": "{devices=[2,4]<=[4,2]T(1,0)}", "shape": [6, 10]})");
  REQUIRE(a["ok"] == true);
  const Json& r = a["result"];
  CHECK(r["tile_dims"] == Json::array({2, 4}));
  CHECK(r["replicated_tiles"] == 1);
  REQUIRE(r["devices"].size() == 8);
  CHECK(r["devices"][3] == Json::parse(R"({"device": 3, "index": [[3, 6], [3, 6]]})"));
  // Device 7 at tile (1,3): the ragged last column block [9,10).
  CHECK(r["devices"][7]["index"] == Json::parse("[[3, 6], [9, 10]]"));
  CHECK(r["sharding"] == "{devices=[2,4]<=[4,2]T(1,0)}");
}

TEST_CASE("eval hlo_sharding: replication and whole-array kinds", "[hlo_sharding][eval]") {
  // V1 [2,1,2] with the replicated last dim: devices 0,1 hold rows [0,2), 2,3 rows [2,4).
  const Json a = run(R"({"op": "hlo_sharding", "sharding": "{devices=[2,1,2]0,1,2,3 last_tile_dim_replicate}",
                         "shape": [4, 3]})");
  REQUIRE(a["ok"] == true);
  CHECK(a["result"]["tile_dims"] == Json::array({2, 1}));
  CHECK(a["result"]["replicated_tiles"] == 2);
  CHECK(a["result"]["devices"][1]["index"] == Json::parse("[[0, 2], [0, 3]]"));
  CHECK(a["result"]["devices"][2]["index"] == Json::parse("[[2, 4], [0, 3]]"));
  const Json r = run(R"({"op": "hlo_sharding", "sharding": "{replicated}", "shape": [5], "num_devices": 2})");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["replicated_tiles"] == 2);
  CHECK(r["result"]["devices"] ==
        Json::parse(R"([{"device": 0, "index": [[0, 5]]}, {"device": 1, "index": [[0, 5]]}])"));
}

TEST_CASE("eval hlo_sharding: refusals", "[hlo_sharding][eval]") {
  const auto message = [](const char* text) {
    const Json a = run(text);
    CHECK(a["ok"] == false);
    CHECK(a["error"]["type"] == "ValueError");
    return a["error"]["message"].get<std::string>();
  };
  CHECK_THAT(message(R"({"op": "hlo_sharding", "sharding": "{devices=[2]0,1}", "shape": [4], "shapes": 1})"),
             Catch::Contains("unknown key 'shapes'"));
  CHECK_THAT(message(R"({"op": "hlo_sharding", "sharding": "{devices=[2]0,1", "shape": [4]})"),
             Catch::Contains("column 16: expected"));
  CHECK_THAT(message(R"({"op": "hlo_sharding", "shape": [4]})"), Catch::Contains("'sharding' is missing"));
  CHECK_THAT(message(R"({"op": "hlo_sharding", "sharding": "{replicated}", "shape": [-1]})"), Catch::Contains("shape"));
  CHECK_THAT(message(R"({"op": "hlo_sharding", "sharding": "{replicated}", "shape": [4]})"),
             Catch::Contains("give the device count"));
}
