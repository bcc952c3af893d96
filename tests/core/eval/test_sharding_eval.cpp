// SPDX-License-Identifier: Apache-2.0
// The `shard` eval op (docs/eval-shard.md) and the error answers of the sharding ops.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
Json run(const char* text) { return evalRequest(Json::parse(text)); }
std::string errorOf(const Json& answer) {
  REQUIRE(answer["ok"] == false);
  return answer["error"]["type"].get<std::string>() + ": " + answer["error"]["message"].get<std::string>();
}
} // namespace

TEST_CASE("shard: explicit specs, shard shapes and per-device totals", "[sharding_eval]") {
  const Json a = run(R"({"op": "shard", "mesh_axes": [["dp", 2], ["tp", 4]],
    "device_ids": [[10, 11, 12, 13], [14, 15, 16, 17]],
    "params": [{"path": "w", "shape": [8, 12], "dtype": "bfloat16", "spec": ["dp", "tp"]},
               {"path": "b", "shape": [6], "spec": ["tp"]}],
    "device_positions": [0, 7], "per_device": true})");
  INFO(a.dump());
  REQUIRE(a["ok"] == true);
  const Json& r = a["result"];
  CHECK(r["mesh"] == Json::parse(R"({"dp": 2, "tp": 4})"));
  const Json& w = r["params"][0];
  CHECK(w["shard_shape"] == Json::parse("[4, 3]"));
  CHECK(w["shard_bytes"] == 4 * 3 * 2);
  CHECK(w["total_bytes"] == 8 * 12 * 2);
  CHECK(w["replication"] == 1);
  CHECK(w["uneven"] == false);
  CHECK(w["rule"].is_null());
  // Device at position 7 = (dp 1, tp 3): rows 4..8, columns 9..12.
  CHECK(w["devices"][1] ==
        Json::parse(R"({"position": 7, "device_id": 17, "index": [[4, 8], [9, 12]], "held_elements": 12})"));
  // b: 6 is not divisible by tp=4, so eformer's correction replicates it (and says so).
  const Json& b = r["params"][1];
  CHECK(b["requested_spec"] == Json::parse(R"(["tp"])"));
  CHECK(b["spec"] == Json::parse("[]"));
  CHECK(b["shard_shape"] == Json::parse("[6]"));
  CHECK(b["diagnostics"][0]["kind"] == "not_divisible");
  CHECK(b["diagnostics"][0]["dim"] == 0);
  CHECK(b["diagnostics"][0]["axis"] == "tp");
  const Json& t = r["totals"];
  CHECK(t["device_count"] == 8);
  CHECK(t["total_bytes"] == 8 * 12 * 2 + 6 * 4);
  CHECK(t["padded_bytes_per_device"] == 24 + 24);
  CHECK(t["max_bytes"] == 48);
  CHECK(t["min_bytes"] == 48);
  CHECK(t["argmax_device_id"] == 10);
  CHECK(t["per_device_bytes"].size() == 8);
  REQUIRE(a.contains("warnings"));
  CHECK(a["warnings"][0].get<std::string>().rfind("b: not_divisible:", 0) == 0);
}

TEST_CASE("shard: uneven layout without correction varies per device", "[sharding_eval]") {
  const Json a = run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "correct": false,
    "params": [{"path": "b", "shape": [6], "spec": ["tp"]}], "per_device": true, "device_positions": "all"})");
  INFO(a.dump());
  REQUIRE(a["ok"] == true);
  const Json& b = a["result"]["params"][0];
  CHECK(b["uneven"] == true);
  CHECK(b["shard_shape"] == Json::parse("[2]"));
  CHECK(b["diagnostics"][0]["kind"] == "uneven_shard");
  CHECK(b["devices"][3]["index"] == Json::parse("[[6, 6]]"));
  const Json& t = a["result"]["totals"];
  CHECK(t["per_device_bytes"] == Json::parse("[8, 8, 8, 0]"));
  CHECK(t["max_bytes"] == 8);
  CHECK(t["min_bytes"] == 0);
  CHECK(t["argmin"] == 3);
  CHECK(t["padded_bytes_per_device"] == 8);
  // Refusing uneven layouts turns the same request into an error naming the parameter.
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "correct": false, "allow_uneven": false,
    "params": [{"path": "b", "shape": [6], "spec": ["tp"]}]})")) ==
        "ValueError: parameter 'b': dimension 0 (size 6) is not divisible by 'tp'(4) = 4 in P('tp')");
}

TEST_CASE("shard: rules and presets", "[sharding_eval]") {
  const Json a = run(R"({"op": "shard", "mesh_axes": [["fsdp", 2], ["tp", 2]], "preset": "fsdp-tp",
    "params": [{"path": "model.layers.0.self_attn.q_proj.weight", "shape": [64, 64]},
               {"path": "model.layers.0.input_layernorm.weight", "shape": [64]},
               {"path": "lm_head.weight", "shape": [100, 64], "spec": []}]})");
  INFO(a.dump());
  REQUIRE(a["ok"] == true);
  const Json& p = a["result"]["params"];
  CHECK(p[0]["spec"] == Json::parse(R"(["tp", "fsdp"])"));
  CHECK(p[0]["shard_shape"] == Json::parse("[32, 32]"));
  CHECK(p[0]["rule"].is_number_integer());
  CHECK(p[1]["spec"] == Json::parse("[]"));
  CHECK(p[2]["spec"] == Json::parse("[]"));
  CHECK(p[2]["replication"] == 4);
  CHECK(a["result"]["totals"]["max_bytes"] == 32 * 32 * 4 + 64 * 4 + 100 * 64 * 4);

  const Json b = run(R"({"op": "shard", "mesh_axes": [["dp", 2]], "rules": [["kernel", ["dp"]]], "min_size": 100,
    "params": [{"path": "a/kernel", "shape": [8, 4]}]})");
  REQUIRE(b["ok"] == true);
  CHECK(b["result"]["params"][0]["spec"] == Json::parse("[]"));
  CHECK(b["result"]["params"][0]["diagnostics"][0]["kind"] == "below_min_size");
}

TEST_CASE("shard and the rule ops answer bad input with a ValueError naming the field", "[sharding_eval]") {
  // A composite rule's fields carry the rule's own path.
  CHECK(errorOf(run(R"({"op": "composite_rule", "mesh_axes": [["tp", 4]], "params": [],
                        "rules": [{"kind": "shape_based", "patterns": [[[null, "x"], []]]}]})")) ==
        "ValueError: field 'rules[0].patterns[0][0][1]' must be an integer, got \"x\"");
  CHECK(errorOf(
            run(R"({"op": "composite_rule", "mesh_axes": [["tp", 4]], "params": [], "rules": [{"kind": "shape"}]})")) ==
        "ValueError: field 'rules[0].kind' must be one of shape_based, memory_constrained, auto, got \"shape\"");
  CHECK(errorOf(run(R"({"op": "composite_rule", "mesh_axes": [["tp", 4]], "params": [],
                        "rules": [{"kind": "auto", "min_shard_size": "x"}]})")) ==
        "ValueError: field 'rules[0].min_shard_size' must be an integer, got \"x\"");
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "params": [{"path": "w", "shape": [4]}]})")) ==
        "ValueError: field 'params[0]' has no 'spec' and the request gives no 'rules' or 'preset'");
  CHECK(errorOf(run(
            R"({"op": "shard", "mesh_axes": [["tp", 4]], "params": [{"path": "w", "shape": [4, -1], "spec": []}]})")) ==
        "ValueError: field 'params[0].shape[1]' must be a non-negative integer, got -1");
  CHECK(
      errorOf(
          run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "params": [{"path": "w", "shape": [4], "spec": ["zz"]}], "correct": false})"))
          .find("parameter 'w': dimension 0 of P('zz') names mesh axis 'zz'") != std::string::npos);
  CHECK(
      errorOf(
          run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "params": [{"path": "w", "shape": [4], "dtype": "float7", "spec": []}]})"))
          .rfind("ValueError: unknown dtype 'float7'", 0) == 0);
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "device_ids": [1, 2], "params": []})")) ==
        "ValueError: field 'device_ids' must be nested lists with the mesh shape; level 0 must have 4 entries");
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]], "preset": "nope", "params": []})"))
            .rfind("ValueError: unknown rule preset 'nope'", 0) == 0);
  CHECK(errorOf(run(R"({"op": "partition_helper", "mesh_axes": [["dp", 2]], "shapes": [[2, "x"]]})")) ==
        "ValueError: field 'shapes[0][1]' must be a non-negative integer, got \"x\"");
  CHECK(errorOf(run(R"({"op": "match_partition_rules", "rules": [["(", []]], "params": []})"))
            .rfind("ValueError: partition rule 0: invalid regular expression '('", 0) == 0);
  CHECK(errorOf(run(R"({"op": "corrected_sharding", "mesh_axes": null, "shape": [8], "spec": ["dp"]})")) ==
        "AssertionError: No mesh found under this context manager.");
  CHECK(errorOf(
            run(R"({"op": "corrected_sharding", "mesh_axes": [["dp", 2]], "shape": [8], "spec": ["dp"], "via": "x"})"))
            .rfind("ValueError: field 'via'", 0) == 0);
  CHECK(errorOf(
            run(R"({"op": "memory_constrained_rule", "mesh_axes": null, "max_memory_per_device": 1, "params": []})")) ==
        "AssertionError: No mesh found under this context manager.");
  CHECK(errorOf(run(R"({"op": "memory_constrained_rule", "mesh_axes": [["dp", 2]], "max_memory_per_device": 1,
    "axis_names": ["zz"], "params": [{"shape": [4]}]})")) == "KeyError: 'zz'");
  CHECK(
      errorOf(
          run(R"({"op": "composite_rule", "mesh_axes": [["dp", 2]], "rules": [{"kind": "memory_constrained"}], "params": []})"))
          .rfind("TypeError: MemoryConstrainedShardingRule.__init__() missing 1 required positional argument", 0) == 0);
  CHECK(
      errorOf(run(
          R"({"op": "match_partition_rules", "rules": [], "params": [{"path": "a", "shape": [1]}, {"path": "a", "shape": [1]}]})")) ==
      "ValueError: field 'params[1].path': path 'a' appears twice");
  CHECK(errorOf(run(R"({"op": "shape_based_rule", "patterns": [[[1], [[["a"]]]]], "params": []})"))
            .rfind("ValueError: A tuple inside PartitionSpec cannot contain a nested tuple.", 0) == 0);
}

TEST_CASE("auto_sharding_rule: the reference's TypeError, or the intent on request", "[sharding_eval]") {
  CHECK(errorOf(run(R"({"op": "auto_sharding_rule", "mesh_axes": [["dp", 2], ["tp", 4]], "axis_names": null,
    "min_shard_size": 0, "reverse": false, "params": [{"shape": []}]})")) ==
        "TypeError: '<' not supported between instances of 'float' and 'collections.OrderedDict'");
  const Json a = run(R"({"op": "auto_sharding_rule", "mesh_axes": [["dp", 2], ["tp", 4]], "axis_names": null,
    "min_shard_size": null, "reverse": false, "reference_bugs": false, "params": [{"shape": [1024, 4096]}, {"shape": [4]}]})");
  REQUIRE(a["ok"] == true);
  CHECK(a["result"] == Json::parse(R"([["tp", "dp"], []])"));
  // Duplicate shape patterns: the dict keeps the first position with the last spec.
  const Json s = run(R"({"op": "shape_based_rule", "patterns": [[[8], ["a"]], [[null], ["b"]], [[8], ["c"]]],
    "params": [{"shape": [8]}, {"shape": [3]}]})");
  CHECK(s["result"] == Json::parse(R"([["c"], ["b"]])"));
}

TEST_CASE("sharding ops stay bounded on hostile sizes", "[sharding_eval]") {
  // Element counts beyond 64 bits, repeated axes whose product overflows, huge meshes.
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]],
    "params": [{"path": "w", "shape": [4611686018427387904, 4], "spec": []}]})"))
            .find("overflows 64-bit integers") != std::string::npos);
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["tp", 4]],
    "params": [{"path": "w", "shape": [2305843009213693952, 2], "dtype": "float64", "spec": []}]})"))
            .find("more bytes than 64-bit integers hold") != std::string::npos);
  const Json c = run(R"({"op": "corrected_sharding", "mesh_axes": [["a", 2147483648]], "shape": [8],
    "spec": [["a", "a", "a"]]})");
  REQUIRE(c["ok"] == true);
  CHECK(c["result"] == Json::parse("[]"));
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["a", 65536], ["b", 65536]], "params": []})"))
            .find("more than 2^22") != std::string::npos);
  CHECK(errorOf(run(R"({"op": "shard", "mesh_axes": [["a", 65536], ["b", 32]], "device_positions": "all",
    "params": [{"path": "w", "shape": [4], "spec": []}]})"))
            .find("exceeds 2^20 entries") != std::string::npos);
  const Json big = run(R"({"op": "shard", "mesh_axes": [["tp", 3]], "correct": false,
    "params": [{"path": "w", "shape": [9223372036854775807], "dtype": "bool", "spec": ["tp"]}]})");
  INFO(big.dump());
  // 2^63 - 1 = 3 * 3074457345618258602 + 1: blocks of 3074457345618258603, the last one shorter.
  REQUIRE(big["ok"] == true);
  CHECK(big["result"]["params"][0]["shard_shape"] == Json::parse("[3074457345618258603]"));
  CHECK(big["result"]["totals"]["max_bytes"] == 3074457345618258603LL);
  CHECK(big["result"]["totals"]["min_bytes"] == 3074457345618258601LL);
  CHECK(big["result"]["totals"]["total_bytes"] == 9223372036854775807LL);
}
