// SPDX-License-Identifier: Apache-2.0
// Every field of every golden sharding request replaced by hostile values: each answer must be
// a well-formed {ok, result | error} object (no crash, no escaping exception, no hang). Run
// under the asan preset this also checks for memory errors and undefined behaviour.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <set>

using namespace shardscope;

TEST_CASE("sharding ops answer hostile field values without crashing", "[sharding_eval]") {
  std::ifstream in(SHARDSCOPE_TEST_DATA "/golden/eformer-jaxpp-public.json");
  REQUIRE(in.good()); // the vendored reference cases (tests/data/refresh-golden.sh) must be there
  const Json golden = Json::parse(in);
  const std::set<std::string> ops = {"partition_helper", "match_partition_rules",   "corrected_sharding",
                                     "shape_based_rule", "memory_constrained_rule", "auto_sharding_rule",
                                     "composite_rule"};
  const Json hostile = Json::parse(R"([null, -1, 0, 4611686018427387904, "x", "", [], [[]], {"a": 1}, [[-1]],
    [["a", -5]], [1e308], [["a", 4294967296], ["b", 4294967296]], [[null, [null]]], true,
    [{"path": "a", "shape": [-3]}], [{"shape": [9223372036854775807, 2]}], [["(a+)+$", []]],
    [[[9223372036854775807], ["a"]]], [{"kind": "auto", "min_shard_size": -1}]])");
  int answers = 0;
  for (const auto& c : golden["cases"]) {
    const Json& request = c["request"];
    if (!ops.count(request["op"].get<std::string>())) continue;
    for (const auto& [field, value] : request.items()) {
      if (field == "op") continue;
      for (const auto& h : hostile) {
        Json mutated = request;
        mutated[field] = h;
        const Json answer = evalRequest(mutated);
        INFO(mutated.dump());
        REQUIRE(answer.is_object());
        REQUIRE(answer.contains("ok"));
        if (answer["ok"] == false) {
          CHECK(answer["error"]["type"].is_string());
          CHECK(answer["error"]["message"].is_string());
        }
        ++answers;
      }
      Json removed = request;
      removed.erase(field);
      CHECK(evalRequest(removed).contains("ok"));
    }
  }
  CHECK(answers > 1000);
}
