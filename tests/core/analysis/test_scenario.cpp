// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
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
  s.model = {"", "/tmp/model.safetensors", Json(), Json(), Json()};
  s.rules = {"", {{".*q_proj.*", Json::parse(R"([["fsdp","sp"], "tp"])")}}};
  s.training.optimizer = Optimizer::Adafactor;
  s.training.recompute = Recompute::Full;
  s.training.hbm_bytes_override = 80e9;
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
}

TEST_CASE("scenario errors name the field", "[scenario]") {
  auto bad = [](const char* text) { return scenarioFromJson(Json::parse(text)); };
  CHECK_THROWS_WITH(bad(R"({"mesh": {"axes": [{"name": "dp", "ici": 0}]}})"),
                    "mesh.axes[0].ici must be positive or -1, got 0");
  CHECK_THROWS_WITH(bad(R"({"mesh": {"axes": [{"name": "dp", "ici": "two"}]}})"),
                    "mesh.axes[0].ici must be an integer, got \"two\"");
  CHECK_THROWS_WITH(bad(R"({"topology": {"shape": [4, 0, 8]}})"),
                    "topology.shape[1] must be a positive integer, got 0");
  CHECK_THROWS_WITH(bad(R"({"topology": {"shape": [4, 5000, 8]}})"),
                    "topology.shape[1] must be at most 4096, got 5000");
  CHECK_THROWS_WITH(bad(R"({"training": {"optimizer": "lion"}})"),
                    "training.optimizer must be one of adamw, adafactor, sgd-momentum, got \"lion\"");
  CHECK_THROWS_WITH(bad(R"({"training": {"optimizer": "adam"}})"),
                    "training.optimizer must be one of adamw, adafactor, sgd-momentum, got \"adam\" (did you mean "
                    "'adamw'?)");
  CHECK_THROWS_WITH(bad(R"({"training": {"micro_batch": -3}})"),
                    "training.micro_batch must be a positive integer, got -3");
  CHECK_THROWS_WITH(bad(R"([1, 2])"), "the workspace must be a JSON object, got a list");
  CHECK_THROWS_WITH(bad(R"({"version": 7})"), "version must be 1 (this Shardscope reads version 1 workspaces), got 7");
}

TEST_CASE("unknown keys are errors in every workspace section, with the closest known key", "[scenario]") {
  auto bad = [](const char* text) { return scenarioFromJson(Json::parse(text)); };
  CHECK_THROWS_WITH(bad(R"({"trainig": {}})"), "unknown key 'trainig' in the workspace (did you mean 'training'?)");
  CHECK_THROWS_WITH(bad(R"({"topology": {"chip": "v4", "slice": 2}})"),
                    "unknown key 'slice' in topology (did you mean 'slices'?)");
  CHECK_THROWS_WITH(bad(R"({"mesh": {"allow_split": true}})"),
                    "unknown key 'allow_split' in mesh (known keys: axes, allow_split_physical_axes, "
                    "contiguous_submeshes)");
  CHECK_THROWS_WITH(bad(R"({"mesh": {"axes": [{"name": "dp"}, {"name": "tp", "dnc": 2}]}})"),
                    "unknown key 'dnc' in mesh.axes[1] (did you mean 'dcn'?)");
  CHECK_THROWS_WITH(bad(R"({"model": {"presett": "gpt2"}})"),
                    "unknown key 'presett' in model (did you mean 'preset'?)");
  CHECK_THROWS_WITH(bad(R"({"rules": {"rule": []}})"), "unknown key 'rule' in rules (did you mean 'rules'?)");
  CHECK_THROWS_WITH(bad(R"({"training": {"micro_bach": 8}})"),
                    "unknown key 'micro_bach' in training (did you mean 'micro_batch'?)");
  CHECK_THROWS_WITH(bad(R"({"links": {"ici_bandwith": 1e9}})"),
                    "unknown key 'ici_bandwith' in links (did you mean 'ici_bandwidth'?)");
  // A section of the wrong type says so.
  CHECK_THROWS_WITH(bad(R"({"training": 5})"), "training must be an object, got 5");
  // null is the default, as for every field.
  CHECK(bad(R"({"training": null, "links": null})") == defaultScenario());
}

TEST_CASE("a model gives one source of parameters, batch axes are listed once", "[scenario]") {
  auto bad = [](const char* text) { return scenarioFromJson(Json::parse(text)); };
  CHECK_THROWS_WITH(bad(R"({"model": {"preset": "gpt2", "params": []}})"),
                    "model gives both 'preset' and 'params'; give one of preset, path, params or config");
  CHECK_THROWS_WITH(bad(R"({"model": {"path": "m.json", "params": []}})"),
                    "model gives both 'path' and 'params'; give one of preset, path, params or config");
  CHECK(bad(R"({"model": {"path": "m.json"}})").model.preset.empty());
  // Listing an axis twice would split the activations twice (the memory estimate halved them).
  CHECK_THROWS_WITH(bad(R"({"training": {"batch_axes": ["dp", "fsdp", "dp"]}})"),
                    "training.batch_axes lists 'dp' twice");
  CHECK_THROWS_WITH(bad(R"({"training": {"seq_axes": ["sp", "sp"]}})"), "training.seq_axes lists 'sp' twice");
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
                    "unknown key 'ici_bandwith' in links (did you mean 'ici_bandwidth'?)");
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_bandwidth": -1})")),
                    "links.ici_bandwidth must be a number between 1e+06 and 1e+14, got -1");
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_latency": 1e9})")),
                    Catch::Matchers::StartsWith("links.ici_latency must be a number between 0 and 1, got 1"));
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"twisted": 1})")), "links.twisted must be true or false, got 1");
  // Implausible figures: 1e-300 B/s made every collective time overflow to null without a word.
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"ici_bandwidth": 1e-300})")),
                    "links.ici_bandwidth must be a number between 1e+06 and 1e+14, got 1e-300");
  CHECK_THROWS_WITH(scenarioFromJson(bad(R"({"uplink_bandwidth": 1e15})")),
                    Catch::Matchers::StartsWith("links.uplink_bandwidth must be a number between 1e+06 and 1e+14"));
  CHECK(scenarioFromJson(
            bad(R"({"ici_bandwidth": 1e6, "uplink_bandwidth": 1e14, "ici_latency": 0, "uplink_latency": 1})"))
            .links.uplink_latency == 1.0);
}

TEST_CASE("drop_size_one_axes leaves a rule's size-one mesh axes out of each spec, as MaxText does", "[scenario]") {
  RulesChoice choice;
  choice.preset.clear();
  // (fsdp, context, expert) on fsdp 8, context 1, expert 1 -> fsdp; (tensor, None) keeps the None
  // member (JAX keeps it) and drops nothing when tensor is 4; stage (1) alone -> None; an axis the
  // mesh lacks stays, for the sharding engine to report.
  choice.rules.emplace_back("^w$", Json::array({Json::array({"fsdp", "context", "expert"}), "stage",
                                                Json::array({"tensor", nullptr}), "absent"}));
  const MeshAxes mesh({"fsdp", "context", "expert", "stage", "tensor"}, {8, 1, 1, 1, 4});
  CHECK(rulesInEffect(choice, &mesh).front().spec.toString() ==
        "P(('fsdp', 'context', 'expert'), 'stage', ('tensor', None), 'absent')");
  choice.drop_size_one_axes = true;
  CHECK(rulesInEffect(choice, &mesh).front().spec.toString() == "P('fsdp', None, ('tensor', None), 'absent')");
  // The flag round-trips and is written only when set.
  Scenario s;
  s.rules = choice;
  CHECK(scenarioToJson(s)["rules"]["drop_size_one_axes"] == true);
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
  s.rules.drop_size_one_axes = false;
  CHECK_FALSE(scenarioToJson(s)["rules"].contains("drop_size_one_axes"));
}
