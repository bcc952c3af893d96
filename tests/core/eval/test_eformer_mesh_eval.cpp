// SPDX-License-Identifier: Apache-2.0
// The eval ops of eformer's mesh creation: request validation and the simulated runtime.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

Json ask(const std::string& text) { return evalRequest(Json::parse(text)); }

std::string errorMessage(const Json& answer) {
  if (answer["ok"] != false) return "<ok>";
  return answer["error"]["type"].get<std::string>() + ": " + answer["error"]["message"].get<std::string>();
}

const char* kEightCpus = R"("platform": "cpu", "device_kind": "cpu",
  "devices": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4}, {"id": 5}, {"id": 6}, {"id": 7}])";

} // namespace

TEST_CASE("eval create_mesh uses eformer's defaults for absent fields", "[eformer_mesh][eval]") {
  const Json r = ask(std::string(R"({"op": "create_mesh", )") + kEightCpus + "}");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["shape"].dump() == R"({"dp":1,"fsdp":8,"ep":1,"tp":1,"sp":1})");
  CHECK(r["result"]["axis_types"] == Json::parse(R"(["Auto", "Auto", "Auto", "Auto", "Auto"])"));
  CHECK_FALSE(r.contains("warnings"));
}

TEST_CASE("eval create_mesh keeps a repeated axis name once, first place, last size", "[eformer_mesh][eval]") {
  const Json r =
      ask(std::string(R"({"op": "create_mesh", "axis_dims": [2, 4], "axis_names": ["a", "a"], )") + kEightCpus + "}");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["shape"].dump() == R"({"a":4})");
  CHECK(r["result"]["device_ids"] == Json::parse("[[0, 1, 2, 3], [4, 5, 6, 7]]"));
}

TEST_CASE("eval create_mesh rejects ill-typed fields naming them", "[eformer_mesh][eval]") {
  const std::string devices = kEightCpus;
  CHECK(errorMessage(ask(R"({"op": "create_mesh"})")) == "ValueError: field 'devices' is missing");
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "axis_dims": [2.5, 4], )" + devices + "}"))
            .find("ValueError: field 'axis_dims[0]' must be an integer, got 2.5") == 0);
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "axis_types": 3, )" + devices + "}"))
            .find("ValueError: field 'axis_types' must be null, a string or a list") == 0);
  // A list entry that is not a string: eformer's TypeError, answered as a ValueError.
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "axis_types": [true], )" + devices + "}"))
            .find("ValueError: axis_types entries must be strings") == 0);
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "process_count": 0, )" + devices + "}")) ==
        "ValueError: field 'process_count' must be a positive integer, got 0");
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "use_jax": "yes", )" + devices + "}"))
            .find("ValueError: field 'use_jax' must be true or false, got \"yes\"") == 0);
  CHECK(errorMessage(ask(R"({"op": "create_mesh", "dcn_mesh_dims": "2,1", "process_count": 2, )" + devices + "}"))
            .find("ValueError: field 'dcn_mesh_dims'") == 0);
}

TEST_CASE("eval create_mesh models MEGASCALE_NUM_SLICES on request", "[eformer_mesh][eval]") {
  // Spec §1.2: the variable raises the slice count of a single-slice set, and create_hybrid_device_mesh
  // then fails (here: CPU devices have no slice_index at all).
  const Json r = ask(std::string(R"({"op": "create_mesh", "axis_dims": [2, 4], "axis_names": ["a", "b"],
                                     "megascale_num_slices": 2, )") +
                     kEightCpus + "}");
  CHECK(r["ok"] == false);
  CHECK(r["error"]["type"] == "ValueError");
}

TEST_CASE("eval calculate_host_mesh_shape falls back to the simulated runtime for 0", "[eformer_mesh][eval]") {
  CHECK(
      ask(R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": [2, 4], "total_devices": 4, "num_processes": 2})")
          ["result"] == Json::parse("[1, 4]"));
  // total_devices 0 -> jax.local_device_count(): process 0 owns 4 of these 8 devices.
  const Json r = ask(R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": [2, 4], "total_devices": 0,
    "num_processes": 0, "process_count": 2, "platform": "cpu", "device_kind": "cpu",
    "devices": [{"id": 0}, {"id": 1}, {"id": 2}, {"id": 3}, {"id": 4, "process_index": 1}, {"id": 5, "process_index": 1},
                {"id": 6, "process_index": 1}, {"id": 7, "process_index": 1}]})");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"] == Json::parse("[1, 4]"));
  CHECK(
      errorMessage(ask(
          R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": [2, 4], "total_devices": 0, "num_processes": 1})")) ==
      "ValueError: Mesh size 8 doesn't match available devices 0 (local x processes)");
  CHECK(
      errorMessage(
          ask(R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": 8, "total_devices": 8, "num_processes": 1})"))
          .find("ValueError: field 'global_mesh_shape'") == 0);
}

TEST_CASE("eval parse_mesh_from_string reads the string before the devices", "[eformer_mesh][eval]") {
  CHECK(errorMessage(ask(R"({"op": "parse_mesh_from_string", "axis_dims": "dp:2,zz:4", "names": ["dp", "tp"]})")) ==
        "ValueError: Axis name 'zz' not found in provided names: ['dp', 'tp']");
  const Json r =
      ask(std::string(R"({"op": "parse_mesh_from_string", "axis_dims": "tp:4,dp:2", "names": ["dp", "tp"], )") +
          kEightCpus + "}");
  REQUIRE(r["ok"] == true);
  CHECK(r["result"]["shape"].dump() == R"({"tp":4,"dp":2})");
  CHECK(r["result"]["device_ids"] == Json::parse("[[0, 1], [2, 3], [4, 5], [6, 7]]"));
}
