// SPDX-License-Identifier: Apache-2.0
// Eval ops links / hops / axis_report end to end: JAX's own placements (the mesh engine) checked
// against the rings JAX intends, plus the error paths of each request field.
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
Json ok(const std::string& line) {
  const Json answer = Json::parse(evalLine(line));
  INFO(line << " -> " << answer.dump());
  REQUIRE(answer["ok"] == true);
  return answer;
}
std::string errorOf(const std::string& line) {
  const Json answer = Json::parse(evalLine(line));
  INFO(line << " -> " << answer.dump());
  REQUIRE(answer["ok"] == false);
  return answer["error"]["type"].get<std::string>() + ": " + answer["error"]["message"].get<std::string>();
}
} // namespace

TEST_CASE("eval links: graph summary of a torus", "[comm]") {
  const Json r = ok(R"({"op": "links", "topology": "v4:4x4x8"})")["result"];
  CHECK(r["nodes"] == 128);
  CHECK(r["edges"] == 384);
  CHECK(r["uplinks"] == 0);
  CHECK(r["wrap"] == Json::array({true, true, true}));
  CHECK(r["diameter"] == 8);
  CHECK(r["hosts"] == 32);
  CHECK(r["link_classes"]["ici"]["count"] == 384);
  CHECK(r["link_classes"]["ici"]["wrap_links"] == 4 * 8 + 4 * 8 + 4 * 4);
  const Json mesh = ok(
      R"({"op": "links", "topology": {"chip": "v4", "shape": [4, 4, 8]}, "link_params": {"wrap": [false, false, false]}})")
      ["result"];
  CHECK(mesh["diameter"] == 13);
  CHECK(mesh["edges"] == 3 * 4 * 8 + 4 * 3 * 8 + 4 * 4 * 7);
  const Json multi = ok(R"({"op": "links", "topology": "v5e:16x16:slices=2"})")["result"];
  CHECK(multi["slices"] == 2);
  CHECK(multi["uplinks"] == 512);
  CHECK(multi["link_classes"]["dcn"]["count"] == 512);
  CHECK(multi["diameter"] == 16);
  const Json gpu = ok(R"({"op": "links", "topology": "h100:4x8"})")["result"];
  CHECK(gpu["edges"] == 4 * 28);
  CHECK(gpu["link_classes"]["network"]["count"] == 32);
  CHECK(gpu["diameter"] == 2);
}

TEST_CASE("eval hops between device ids", "[comm]") {
  // v4 ids are x-fastest: 127 is chip (3,3,7), one wrap hop from (0,0,0) on every axis.
  const Json r =
      ok(R"({"op": "hops", "topology": "v4:4x4x8", "pairs": [[0, 127], [0, 0], [5, 6], [0, 66]]})")["result"];
  CHECK(r["hops"] == Json::array({3, 0, 1, 2 + 0 + 4}));
  CHECK(errorOf(R"({"op": "hops", "topology": "v4:4x4x8", "pairs": [[0, 128]]})") ==
        "ValueError: field 'pairs[0]': device id 128 is not in the topology");
  CHECK(errorOf(R"({"op": "hops", "topology": "v4:4x4x8", "pairs": [[0]]})") ==
        "ValueError: field 'pairs[0]' must hold two device ids");
  CHECK(errorOf(R"({"op": "hops", "topology": "v4:4x4x8"})") == "ValueError: field 'pairs' is missing");
}

TEST_CASE("eval axis_report on JAX placements: known rings and the v5e 2x4 non-ring", "[comm]") {
  const Json ring = ok(R"({"op": "axis_report", "topology": "v5e:4x4", "mesh": "x:16", "groups": true})")["result"];
  CHECK(ring["mesh"]["placement"] == Json::array({"handler:_v5e_create_device_mesh"}));
  CHECK(ring["axes"][0]["ring_closed"] == true);
  CHECK(ring["axes"][0]["groups"][0]["device_ids"] ==
        Json::array({0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4}));
  const Json bad = ok(R"({"op": "axis_report", "topology": "v5e:2x4", "mesh": "x:8", "groups": true})")["result"];
  CHECK(bad["axes"][0]["ring_closed"] == false);
  CHECK(bad["axes"][0]["groups"][0]["hops"] == Json::array({1, 2, 1, 2, 1, 2, 1, 2}));
  const Json tray = ok(R"({"op": "axis_report", "topology": "v3:2x2", "mesh": "x:8"})")["result"];
  CHECK(tray["axes"][0]["ring_closed"] == true);
  CHECK(tray["axes"][0]["mean_hops"] == 0.5);
  // _V5P_2x2x2_ORDER is a Gray code round the cube; v5e's 2x2 ring too.
  const Json cube = ok(R"({"op": "axis_report", "topology": "v5p:2x2x2", "mesh": "x:8"})")["result"];
  CHECK(cube["mesh"]["placement"] == Json::array({"handler:_v5p_create_device_mesh"}));
  CHECK(cube["axes"][0]["ring_closed"] == true);
  CHECK(ok(R"({"op": "axis_report", "topology": "v5e:2x2", "mesh": "x:4"})")["result"]["axes"][0]["ring_closed"] ==
        true);
  // TPU v4 has no handler: a 2x2 tray in x-major order is not a ring (jax-mesh-utils §9 item 16).
  const Json v4 = ok(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": "x:4"})")["result"];
  CHECK(v4["axes"][0]["ring_closed"] == false);
  CHECK(v4["axes"][0]["max_hops"] == 2);
}

TEST_CASE("eval axis_report on GPUs placed by id: NVLink inside hosts, network across", "[comm]") {
  const Json r = ok(R"({"op": "axis_report", "topology": "h100:4x8", "mesh": "dp:4,tp:8", "bytes": 1e9})")["result"];
  CHECK(r["mesh"]["placement"] == Json::array({"gpu_sort_by_id"}));
  const Json& dp = r["axes"][0];
  const Json& tp = r["axes"][1];
  CHECK(tp["ring_closed"] == true);
  CHECK(tp["slowest_link"] == "nvlink");
  CHECK(tp["crosses_hosts"] == false);
  CHECK(dp["slowest_link"] == "network");
  CHECK(dp["crosses_hosts"] == true);
  CHECK(dp["max_hops"] == 2);
  // dp: 4 ranks over 50 GB/s NICs, 2 x 10 us per step.
  CHECK(dp["collectives"]["all_gather"]["alpha_beta"].get<double>() == Approx(3 * 20e-6 + 0.75 * 1e9 / 50e9));
  // One NVL72 domain: every axis stays on NVLink.
  const Json nvl = ok(R"({"op": "axis_report", "topology": "gb200:18x4", "mesh": "dp:9,tp:8"})")["result"];
  CHECK(nvl["axes"][0]["slowest_link"] == "nvlink");
  CHECK(nvl["axes"][0]["crosses_hosts"] == true);
}

TEST_CASE("eval axis_report: collectives, fsdp, one axis, multi-slice, explicit grid", "[comm]") {
  const Json r = ok(
      R"({"op": "axis_report", "topology": "v5e:16x16", "mesh": {"axis_names": ["fsdp", "tp"], "axis_sizes": [-1, 16]},
                        "axis": "tp", "bytes": 34e6, "fsdp": {"layer_param_bytes": 1e8, "layers": 2}})")["result"];
  REQUIRE(r["axes"].size() == 1);
  const Json& tp = r["axes"][0];
  CHECK(r["mesh"]["shape"] == Json::array({16, 16}));
  CHECK(tp["ring_closed"] == true);
  CHECK(tp["collectives"]["all_gather"]["tpu_form"].get<double>() == Approx(34e6 / 9e10));
  CHECK(tp["collectives"]["all_reduce"]["alpha_beta"].get<double>() == Approx(2 * (15e-6 + 15.0 / 16 * 34e6 / 4.5e10)));
  const double ag = 15e-6 + 15.0 / 16 * 1e8 / 4.5e10;
  CHECK(tp["fsdp"]["step_seconds"].get<double>() == Approx(2 * 3 * ag));

  // Sizes per slice, the slices on the first axis: data is 16 inside each slice x 2 slices.
  const Json multi = ok(R"({"op": "axis_report", "topology": "v4:4x4x4:slices=2", "mesh": "data:-1,tp:4"})");
  CHECK(multi["result"]["mesh"]["shape"] == Json::array({32, 4}));
  CHECK(multi["result"]["mesh"]["axes"][0]["ici"] == 16);
  CHECK(multi["result"]["mesh"]["axes"][0]["dcn"] == 2);
  CHECK(multi["result"]["mesh"]["axes"][1]["dcn"] == 1);
  CHECK(multi["result"]["axes"][0]["crosses_slices"] == true);
  CHECK(multi["result"]["axes"][0]["slowest_link"] == "dcn");
  // Each data group holds its 16 devices of one slice in a row: priced in two levels.
  CHECK(multi["result"]["axes"][0]["in_slice"] == 16);
  CHECK(multi["result"]["axes"][1]["crosses_slices"] == false);
  CHECK(multi["result"]["axes"][1]["in_slice"] == 0);

  // GPUs through an explicit grid (ids row-major over dp x tp).
  Json req{{"op", "axis_report"}, {"topology", "h100:2x8"}, {"mesh", "dp:2,tp:8"}, {"mesh_grid", Json::array()}};
  for (int i = 0; i < 16; ++i) req["mesh_grid"].push_back(i);
  const Json gpu = ok(req.dump())["result"];
  CHECK(gpu["mesh"]["placement"] == Json::array({"grid"}));
  CHECK(gpu["axes"][0]["slowest_link"] == "network");
  CHECK(gpu["axes"][1]["slowest_link"] == "nvlink");
  CHECK(gpu["axes"][1]["ring_closed"] == true);

  // tp:2 needs a split x axis on v5p: placed with splitting as jax.make_mesh does
  // (allow_split_physical_axes=True, the workspace default).
  const Json split = ok(R"({"op": "axis_report", "topology": "v5p:8x8x8", "mesh": "fsdp:-1,tp:2"})");
  CHECK(split["result"]["mesh"]["placement"] == Json::array({"nd_torus_split"}));
  const Json hybrid = ok(R"({"op": "axis_report", "topology": "v5e:16x16:slices=4", "mesh": "data:1,fsdp:64,tp:4"})");
  CHECK(hybrid["result"]["mesh"]["shape"] == Json::array({4, 64, 4}));
  CHECK(hybrid["result"]["mesh"]["axes"][0]["dcn"] == 4);
  CHECK(hybrid["result"]["axes"][0]["slowest_link"] == "dcn");
  CHECK(hybrid["result"]["axes"][0]["in_slice"] == 0); // one device per slice: a single DCN ring
  CHECK(hybrid["result"]["axes"][2]["crosses_slices"] == false);
}

TEST_CASE("eval axis_report and links reject bad fields by name", "[comm]") {
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:4x4x8", "mesh": "x:128", "axis": "y"})") ==
        "ValueError: field 'axis': the mesh has no axis 'y'");
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:4x4x8", "mesh": "x:64"})").find("multiply to 64") !=
        std::string::npos);
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:4x4x8", "mesh": 5})").find("field 'mesh' must be") !=
        std::string::npos);
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:4x4x8", "mesh": "x:128", "bytes": -1})") ==
        "ValueError: field 'bytes' must be a non-negative number, got -1");
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": "x:4", "mesh_grid": [0, 1, 2, 2]})") ==
        "ValueError: mesh grid: device id 2 appears twice");
  CHECK(errorOf(R"({"op": "links", "topology": "v4:4x4x8", "link_params": {"speed": 1}})") ==
        "ValueError: unknown key 'speed' in field 'link_params' (known keys: ici_bandwidth, ici_latency, "
        "uplink_bandwidth, uplink_latency, wrap, twisted, nvlink_domain)");
  CHECK(errorOf(R"({"op": "links", "topology": "v4:4x8x8", "link_params": {"twisted": true}})").find("k x k x 2k") !=
        std::string::npos);
  CHECK(errorOf(R"({"op": "links", "topology": {"chip": "v9", "shape": [4]}})") ==
        "ValueError: field 'topology.chip' must be one of v2, v3, v4, v4i, v5e, v5p, v6e, 7x, 8t, 8i, h100, h200, "
        "a100, b200, gb200, gb300, mi300x, cpu, got \"v9\"");
  CHECK(errorOf(R"({"op": "links", "topology": {"chip": "h10", "shape": [4]}})")
            .find("got \"h10\" (did you mean 'h100'?)") != std::string::npos);
  CHECK(errorOf(R"({"op": "links", "topology": {"chip": "v4"}})") == "ValueError: field 'topology.shape' is missing");
  CHECK(errorOf(R"({"op": "links", "topology": 7})").find("field 'topology' must be") != std::string::npos);
  CHECK(errorOf(R"({"op": "links", "topology": "v4:4x4x8", "link_params": {"ici_bandwidth": "fast"}})") ==
        "ValueError: field 'link_params.ici_bandwidth' must be a number between 1e+06 and 1e+14, got \"fast\"");
  // The same plausible range as the workspace's links: 1e-300 B/s would make every time overflow.
  CHECK(errorOf(R"({"op": "links", "topology": "v4:4x4x8", "link_params": {"uplink_bandwidth": 1e-300}})") ==
        "ValueError: field 'link_params.uplink_bandwidth' must be a number between 1e+06 and 1e+14, got 1e-300");
  CHECK(errorOf(R"({"op": "links", "topology": {"chip": "v4", "shape": [1000000, 1000000, 1]}})")
            .find("more than the supported") != std::string::npos);
  CHECK(errorOf(R"({"op": "links", "topology": "v4:4x4x8", "link_params": {"ici_latency": -1}})") ==
        "ValueError: field 'link_params.ici_latency' must be a number between 0 and 1, got -1");
  CHECK(errorOf(R"({"op": "hops", "topology": "v4:2x2", "pairs": [[0, "a"]]})") ==
        "ValueError: field 'pairs[0][1]' must be an integer, got \"a\"");
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": "x:4", "mesh_grid": [0, 1, 2]})") ==
        "ValueError: mesh grid holds 3 device ids, the axis sizes need 4");
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": "x:4", "mesh_grid": [0, 1, 2, 9]})") ==
        "ValueError: mesh grid: device id 9 is not in the topology");
  CHECK(
      errorOf(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": {"axis_names": ["x"], "axis_sizes": [2, 2]}})") ==
      "ValueError: field 'mesh': axis_names and axis_sizes differ in length");
  CHECK(errorOf(R"({"op": "axis_report", "topology": "v4:2x2", "mesh": "x:4", "fsdp": {"layers": 2}})") ==
        "ValueError: field 'fsdp.layer_param_bytes' is missing");
}

TEST_CASE("eval axis_report leaves groups out of large topologies with a warning", "[comm]") {
  const Json answer = ok(R"({"op": "axis_report", "topology": "v4:16x16x32", "mesh": "x:-1", "groups": true})");
  CHECK_FALSE(answer["result"]["axes"][0].contains("groups"));
  REQUIRE(answer.contains("warnings"));
  CHECK(answer["warnings"][0].get<std::string>().find("at most 4096 devices") != std::string::npos);
  const Json small =
      ok(R"({"op": "axis_report", "topology": "v4:4x4x4", "mesh": "a:16,b:4", "axis": "b", "groups": true})")["result"];
  CHECK(small["axes"][0]["groups"].size() == 16);
  CHECK(small["axes"][0]["groups"][0]["device_ids"].size() == 4);
}
