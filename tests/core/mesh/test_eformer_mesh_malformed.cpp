// SPDX-License-Identifier: Apache-2.0
// Malformed requests to the eformer/jaxpp ops answer a ValueError naming the problem; none crashes.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("malformed eformer mesh requests answer ValueError", "[eformer_mesh][eval]") {
  const char* devices = R"("platform": "gpu", "device_kind": "g", "devices": [{"id": 0}, {"id": 1}])";
  const std::vector<std::string> requests = {
      std::string(R"({"op": "create_mesh", "axis_dims": {"a": 1}, )") + devices + "}",
      std::string(R"({"op": "create_mesh", "axis_dims": [1, "2"], )") + devices + "}",
      std::string(R"({"op": "create_mesh", "axis_names": [1, 2], "axis_dims": [1, 2], )") + devices + "}",
      std::string(R"({"op": "create_mesh", "axis_names": "dp", "axis_dims": [2], )") + devices + "}",
      std::string(R"({"op": "create_mesh", "dcn_mesh_dims": [[2]], "process_count": 2, )") + devices + "}",
      std::string(R"({"op": "create_mesh", "process_count": "2", )") + devices + "}",
      std::string(R"({"op": "create_mesh", "process_count": -3, )") + devices + "}",
      std::string(R"({"op": "create_mesh", "axis_types": {"x": "auto"}, )") + devices + "}",
      std::string(R"({"op": "create_mesh", "axis_types": [null], )") + devices + "}",
      std::string(R"({"op": "create_mesh", "megascale_num_slices": 0, )") + devices + "}",
      R"({"op": "create_mesh", "devices": "all"})",
      R"({"op": "create_mesh", "devices": [{"id": "0", "platform": "gpu", "device_kind": "g"}]})",
      R"({"op": "create_mesh", "devices": []})",
      R"({"op": "calculate_host_mesh_shape"})",
      R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": [2], "total_devices": "2", "num_processes": 1})",
      R"({"op": "calculate_host_mesh_shape", "global_mesh_shape": [4611686018427387904, 4], "total_devices": 1, "num_processes": 1})",
      R"({"op": "parse_mesh_from_string", "axis_dims": 24, "names": ["a"]})",
      R"({"op": "parse_mesh_from_string", "axis_dims": "2", "names": "a"})",
      R"({"op": "parse_mesh_from_string", "axis_dims": ":", "names": ["a"]})",
      R"({"op": "parse_mesh_from_string", "axis_dims": ",", "names": ["a"]})",
      R"({"op": "mpmd_mesh"})",
      R"({"op": "mpmd_mesh", "mesh_axes": "stage", "device_ids": [0], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage"]], "device_ids": [0], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", -1]], "device_ids": [], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 1000000000000]], "device_ids": [0], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, [1]], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 1], "process_index": [0], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 1], "process_index": [0, -1], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 1], "mpmd_axis_name": 3})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2]], "device_ids": [0, 1], "mpmd_axis_name": "pipe"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 0], ["data", 2]], "device_ids": [], "mpmd_axis_name": "stage"})",
      R"({"op": "mpmd_mesh", "mesh_axes": [["stage", 2], ["stage", 1]], "device_ids": [[0], [1]], "mpmd_axis_name": "stage"})",
  };
  for (const auto& text : requests) {
    INFO(text);
    const Json r = evalRequest(Json::parse(text));
    REQUIRE(r["ok"] == false);
    CHECK(r["error"]["type"] == "ValueError");
    CHECK_FALSE(r["error"]["message"].get<std::string>().empty());
  }
}
