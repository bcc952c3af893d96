// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("the default scenario is the documented one and round-trips through JSON", "[scenario]") {
  const Scenario s = defaultScenario();
  CHECK(s.topology.chip == "v4");
  CHECK(s.topology.shape == std::array<int, 3>{4, 4, 8});
  REQUIRE(s.mesh.axes.size() == 3);
  CHECK(s.mesh.axes[1].name == "fsdp");
  CHECK(s.mesh.axes[1].ici == 16);
  CHECK(s.mesh.allow_split_physical_axes);
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
}

TEST_CASE("an edited scenario round-trips, including rules and overrides", "[scenario]") {
  Scenario s;
  s.topology = {"v5p", {16, 20, 28}, 2, 2, {2, 2, 1}, false, ""};
  s.mesh.axes = {{"dp", 1, 2, AxisType::Auto}, {"fsdp", -1, 1, AxisType::Explicit}, {"tp", 4, 1, AxisType::Manual}};
  s.mesh.allow_split_physical_axes = true;
  s.model = {"", "/tmp/model.safetensors", Json()};
  s.rules = {"", {{".*q_proj.*", Json::parse(R"([["fsdp","sp"], "tp"])")}}};
  s.training.optimizer = Optimizer::Adafactor;
  s.training.recompute = Recompute::Full;
  s.training.hbm_bytes_override = 80e9;
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
}

TEST_CASE("scenario errors name the field", "[scenario]") {
  auto bad = [](const char* text) { return scenarioFromJson(Json::parse(text)); };
  CHECK_THROWS_WITH(bad(R"({"mesh": {"axes": [{"name": "dp", "ici": 0}]}})"),
                    "mesh.axes[0].ici must be positive or -1");
  CHECK_THROWS_WITH(bad(R"({"mesh": {"axes": [{"name": "dp", "ici": "two"}]}})"),
                    "mesh.axes[0].ici must be an integer");
  CHECK_THROWS_WITH(bad(R"({"topology": {"shape": [4, 0, 8]}})"),
                    "topology.shape[1] must be an integer between 1 and 4096");
  CHECK_THROWS_WITH(bad(R"({"training": {"optimizer": "lion"}})"),
                    "training.optimizer must be one of adamw, adafactor, sgd-momentum");
  CHECK_THROWS_WITH(bad(R"([1, 2])"), "a scenario must be a JSON object");
  CHECK_THROWS_WITH(bad(R"({"version": 7})"), "version must be 1 (this Shardscope reads version 1 workspaces)");
}

TEST_CASE("resolveIciShape fills -1 and rejects impossible shapes", "[scenario]") {
  MeshConfig m;
  m.axes = {{"dp", 2}, {"fsdp", -1}, {"tp", 4}};
  CHECK(resolveIciShape(m, 128) == Shape{2, 16, 4});
  CHECK_THROWS_WITH(resolveIciShape(m, 100),
                    "axis 'fsdp' is -1 but 100 devices are not divisible by the other axes' product 8");
  m.axes = {{"dp", -1}, {"tp", -1}};
  CHECK_THROWS_WITH(resolveIciShape(m, 128), "only one axis may have size -1, but 'dp' and 'tp' both do");
  m.axes = {{"tp", 2}, {"tp", 4}};
  CHECK_THROWS_WITH(resolveIciShape(m, 8), "axis name 'tp' is used twice");
}

TEST_CASE("an empty workspace is the default scenario", "[scenario]") {
  CHECK(scenarioFromJson(Json::object()) == defaultScenario());
}

TEST_CASE("link overrides round-trip, stay out of the file when unset, and are validated", "[scenario]") {
  Scenario s = defaultScenario();
  CHECK_FALSE(scenarioToJson(s).contains("links")); // defaults are not written
  s.links.ici_bandwidth = 9e10;
  s.links.uplink_latency = 2e-5;
  s.links.twisted = true;
  const Json j = scenarioToJson(s);
  CHECK(j["links"] == Json::parse(R"({"ici_bandwidth": 9e10, "uplink_latency": 2e-5, "twisted": true})"));
  CHECK(scenarioFromJson(j).links == s.links);
  const auto bad = [](const char* links) {
    Json w = Json::object();
    w["links"] = Json::parse(links);
    return w;
  };
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_bandwith": 1e9})")),
                    "links.ici_bandwith is not a link setting (ici_bandwidth, ici_latency, uplink_bandwidth, "
                    "uplink_latency, twisted)");
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_bandwidth": -1})")),
                    Catch::Matchers::StartsWith("links.ici_bandwidth must be a positive number"));
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_latency": 1e9})")),
                    Catch::Matchers::StartsWith("links.ici_latency must be a positive number"));
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"twisted": 1})")), "links.twisted must be true or false");
}
