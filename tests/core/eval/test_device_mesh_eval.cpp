// SPDX-License-Identifier: Apache-2.0
// The device-mesh eval ops: round trips, loose shapes and field errors that name the field.
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/py_value.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

Json v4Devices2x2() {
  // ids x-fastest, one host: list order (0,0) (1,0) (0,1) (1,1).
  Json devices = Json::array();
  for (int k = 0; k < 4; ++k)
    devices.push_back(
        {{"id", k}, {"coords", {k % 2, k / 2, 0}}, {"core_on_chip", 0}, {"process_index", 0}, {"slice_index", 0}});
  return devices;
}

Json request(const char* op) {
  Json r = {{"op", op}, {"device_kind", "TPU v4"}, {"platform", "tpu"}};
  r["devices"] = v4Devices2x2();
  return r;
}

std::string errorMessage(const Json& r) {
  const Json answer = evalRequest(r);
  REQUIRE(answer["ok"] == false);
  return answer["error"]["message"];
}

} // namespace

TEST_CASE("create_device_mesh eval round trip", "[device_mesh][eval]") {
  Json r = request("create_device_mesh");
  r["mesh_shape"] = {2, 2};
  const Json answer = evalRequest(r);
  REQUIRE(answer["ok"] == true);
  // The last logical axis is served first and takes the first pair of axes multiplying to 2:
  // x with the size-1 z. Axis 0 gets y. ids are x + 2y.
  CHECK(answer["result"] == Json::parse("[[0, 1], [2, 3]]"));
  CHECK_FALSE(answer.contains("warnings"));
  r["mesh_shape"] = Json::array({"2", 2.0}); // int() accepts both
  CHECK(evalRequest(r)["result"] == answer["result"]);
  // JSON lists at any depth stand for tuples, so the text is JAX's for ((4,), 4) (jax-mesh-utils spec §4).
  r["mesh_shape"] = Json::array({Json::array({4}), 4});
  CHECK(errorMessage(r) == "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got ((4,), 4)");
  r["mesh_shape_repr"] = "((4,), 4)";
  CHECK(errorMessage(r) == "`mesh_shape` passed to `create_device_mesh` should be a sequence of ints. Got ((4,), 4)");
}

TEST_CASE("eval mesh ops name missing and ill-typed fields", "[device_mesh][eval]") {
  Json r = request("create_device_mesh");
  CHECK(errorMessage(r) == "field 'mesh_shape' is missing");
  r["mesh_shape"] = {4};
  r["allow_split_physical_axes"] = "yes";
  CHECK(errorMessage(r) == "field 'allow_split_physical_axes' must be true or false, got \"yes\"");
  r.erase("allow_split_physical_axes");
  r["mesh_shape"] = {{"a", 1}};
  CHECK(errorMessage(r).find("'mesh_shape'") != std::string::npos);
  r["mesh_shape"] = {4};
  r["mesh_shape_repr"] = 5;
  CHECK(errorMessage(r) == "field 'mesh_shape_repr' must be a string holding a Python literal, got 5");
  r.erase("mesh_shape_repr");
  r.erase("devices");
  CHECK(errorMessage(r) == "field 'devices' is missing");
  r["devices"] = v4Devices2x2();
  r["devices"][1].erase("id");
  CHECK(errorMessage(r) == "field 'devices[1].id' is missing");
  r["devices"][1]["id"] = "one";
  CHECK(errorMessage(r) == "field 'devices[1].id' must be an integer, got \"one\"");

  Json h = request("create_hybrid_device_mesh");
  h["mesh_shape"] = {4};
  CHECK(errorMessage(h) == "field 'dcn_mesh_shape' is missing");
  h["dcn_mesh_shape"] = "1";
  CHECK(errorMessage(h).find("'dcn_mesh_shape' must be a list of integers") != std::string::npos);
  h["dcn_mesh_shape"] = {1};
  h["process_is_granule"] = 1;
  CHECK(errorMessage(h) == "field 'process_is_granule' must be true or false, got 1");

  Json m = request("make_mesh");
  m["axis_sizes"] = {4};
  CHECK(errorMessage(m) == "field 'axis_names' is missing");
  m["axis_names"] = "x";
  CHECK(errorMessage(m).find("'axis_names' must be a list of strings") != std::string::npos);
  m["axis_names"] = {"x"};
  m["axis_types"] = {"Sideways"};
  CHECK(errorMessage(m) == "field 'axis_types' must hold Auto, Explicit or Manual, got \"Sideways\"");
}

TEST_CASE("hybrid and make_mesh eval results", "[device_mesh][eval]") {
  Json devices = Json::array();
  for (int s = 0; s < 2; ++s)
    for (int k = 0; k < 4; ++k)
      devices.push_back({{"id", s * 4 + k},
                         {"coords", {k % 2, k / 2, 0}},
                         {"core_on_chip", 0},
                         {"process_index", s},
                         {"slice_index", s}});
  Json h = {{"op", "create_hybrid_device_mesh"},
            {"device_kind", "TPU v4"},
            {"platform", "tpu"},
            {"devices", devices},
            {"mesh_shape", {2, 2}},
            {"dcn_mesh_shape", {2, 1}}};
  const Json answer = evalRequest(h);
  REQUIRE(answer["ok"] == true);
  CHECK(answer["result"] == Json::parse("[[0, 1], [2, 3], [4, 5], [6, 7]]"));
  h["dcn_mesh_shape"] = {4, 1};
  CHECK(errorMessage(h) == "Number of slices 2 must equal the product of dcn_mesh_shape (4, 1)");
  h["dcn_mesh_shape_repr"] = "[4, 1]";
  CHECK(errorMessage(h) == "Number of slices 2 must equal the product of dcn_mesh_shape [4, 1]");

  Json m = request("make_mesh");
  m["axis_sizes"] = {2};
  m["axis_names"] = {"x"};
  m["axis_types"] = nullptr;
  const Json mesh = evalRequest(m);
  REQUIRE(mesh["ok"] == true);
  CHECK(mesh["result"] == Json::parse(R"({"device_ids": [0, 1], "axis_names": ["x"], "axis_types": ["Explicit"]})"));
  m["axis_types"] = {"Auto"};
  CHECK(evalRequest(m)["result"]["axis_types"] == Json::array({"Auto"}));
}

TEST_CASE("Python values: repr, int() and literals", "[device_mesh][py_value]") {
  CHECK(pyRepr(parsePyLiteral("(4,)")) == "(4,)");
  CHECK(pyRepr(parsePyLiteral("['2', 2.0, None, True]")) == "['2', 2.0, None, True]");
  CHECK(pyRepr(parsePyLiteral("(np.int64(3), 2.5e-07)")) == "(np.int64(3), 2.5e-07)");
  CHECK(pyRepr(parsePyLiteral("(4)")) == "4");
  CHECK(pyRepr(parsePyLiteral("\"it's\"")) == "\"it's\"");
  CHECK(pyInt(parsePyLiteral("' -12 '")) == -12);
  CHECK(pyInt(parsePyLiteral("'1_000'")) == 1000);
  CHECK_FALSE(pyInt(parsePyLiteral("'1__0'")).has_value());
  CHECK_FALSE(pyInt(parsePyLiteral("'2.0'")).has_value());
  CHECK(pyInt(parsePyLiteral("-2.9")) == -2);
  CHECK(pyInt(parsePyLiteral("False")) == 0);
  CHECK_FALSE(pyInt(parsePyLiteral("None")).has_value());
  CHECK_THROWS_AS(parsePyLiteral("(1, 2"), Error);
  CHECK_THROWS_AS(parsePyLiteral("[1] junk"), Error);
  CHECK_THROWS_AS(parsePyLiteral(std::string(200, '(')), Error); // nesting is bounded
}

TEST_CASE("GPU eval: sorted by id, and mesh_shape () gives a bare id", "[device_mesh][eval]") {
  Json r = {{"op", "create_device_mesh"}, {"platform", "gpu"}, {"device_kind", "NVIDIA H100 80GB HBM3"}};
  r["devices"] = Json::parse(R"([{"id": 3, "process_index": 1}, {"id": 1, "process_index": 1}, {"id": 2}, {"id": 0}])");
  r["mesh_shape"] = {2, 2};
  CHECK(evalRequest(r)["result"] == Json::parse("[[0, 1], [2, 3]]"));
  r["devices"] = Json::parse(R"([{"id": 7}])");
  r["mesh_shape"] = Json::array();
  const Json scalar = evalRequest(r);
  REQUIRE(scalar["ok"] == true);
  CHECK(scalar["result"] == 7);
  // On TPU the same empty shape fails inside numpy's transpose.
  Json t = {
      {"op", "create_device_mesh"}, {"platform", "tpu"}, {"device_kind", "TPU v4"}, {"mesh_shape", Json::array()}};
  t["devices"] = Json::parse(R"([{"id": 0, "coords": [0, 0, 0], "core_on_chip": 0}])");
  const Json failed = evalRequest(t);
  CHECK(failed["error"]["type"] == "ValueError");
  CHECK(failed["error"]["message"] == "axes don't match array");
}
