// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli topology`: the printed list is the preset's device list in the eval format.
#include "cli.hpp"
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <sstream>

using namespace shardscope;

TEST_CASE("topology prints the devices of a preset as JSON", "[cli][topology]") {
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"topology", "v4", "4x4x4", "--slices", "2"}, {in, out, err}) == 0);
  const Json devices = Json::parse(out.str());
  REQUIRE(devices.size() == 128);
  // Second host of the first slice starts at x=2; ids are global x-fastest.
  CHECK(devices[4]["coords"] == Json::array({2, 0, 0}));
  CHECK(devices[4]["id"] == 2);
  CHECK(devices[4]["process_index"] == 1);
  CHECK(devices[64]["slice_index"] == 1);
  CHECK(devices[64]["id"] == 64);
  CHECK(devices[0]["device_kind"] == "TPU v4");
  CHECK(devices[0]["platform"] == "tpu");
}

TEST_CASE("topology output feeds an eval request", "[cli][topology]") {
  std::istringstream in;
  std::ostringstream out, err;
  REQUIRE(cli::run({"topology", "v3", "2x2"}, {in, out, err}) == 0);
  Json request = {{"op", "create_device_mesh"}, {"mesh_shape", {8}}};
  request["devices"] = Json::parse(out.str());
  const Json answer = evalRequest(request);
  REQUIRE(answer["ok"] == true);
  CHECK(answer["result"] == Json::array({0, 1, 2, 3, 6, 7, 4, 5})); // the v3 tray ring
}

TEST_CASE("topology rejects bad arguments with a message", "[cli][topology]") {
  std::istringstream in;
  std::ostringstream out, err;
  CHECK(cli::run({"topology", "v4"}, {in, out, err}) == 2);
  CHECK(cli::run({"topology", "v4", "4x4x4", "--slices"}, {in, out, err}) == 1);
  CHECK(err.str().find("option --slices needs a value") != std::string::npos);
  CHECK(cli::run({"topology", "v9", "4x4"}, {in, out, err}) == 1);
  CHECK(err.str().find("unknown chip 'v9'") != std::string::npos);
  CHECK(cli::run({"topology", "v4", "4x4x4", "--color"}, {in, out, err}) == 2);
}
