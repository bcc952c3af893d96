// SPDX-License-Identifier: Apache-2.0
// The shared JSON field reader: every typed getter's message names the path, what was expected and
// what was given; unknown keys name the closest known key.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardscope;
using Catch::Matchers::Equals;

namespace {
const Json kDoc = Json::parse(R"({
  "training": {"micro_batch": -3, "seq_len": 4096, "zero_stage": 5, "big": 18446744073709551615,
               "ratio": 0, "half": 0.5, "flag": "yes", "axes": ["dp", "fsdp", "dp"], "name": 7,
               "whole": 4096.0, "frac": 4096.5, "nothing": null},
  "mesh": {"axes": [{"name": "dp", "size": 2}, {"name": "tp", "size": "4"}]}
})");
JsonField workspace() { return fileFields(kDoc, "", "the workspace"); }
} // namespace

TEST_CASE("json fields: integers name the path, the range and the value", "[json_fields]") {
  const JsonField t = workspace()["training"];
  REQUIRE_THROWS_WITH(t["micro_batch"].toInt(kPositiveInt),
                      Equals("training.micro_batch must be a positive integer, got -3"));
  CHECK(t["seq_len"].toInt(kPositiveInt) == 4096);
  REQUIRE_THROWS_WITH(t["seq_len"].toInt({1, 1024}), Equals("training.seq_len must be at most 1024, got 4096"));
  REQUIRE_THROWS_WITH(t["zero_stage"].toInt({0, 2}),
                      Equals("training.zero_stage must be an integer between 0 and 2, got 5"));
  REQUIRE_THROWS_WITH(t["big"].toInt(kNonNegativeInt),
                      Equals("training.big must be at most 9223372036854775807, got 18446744073709551615"));
  REQUIRE_THROWS_WITH(t["flag"].toInt(), Equals("training.flag must be an integer, got \"yes\""));
  REQUIRE_THROWS_WITH(t["missing"].toInt(), Equals("training.missing is missing"));
  REQUIRE_THROWS_WITH(t["nothing"].toInt(), Equals("training.nothing is missing"));
  // Whole floats only where asked for (configs written by Python).
  REQUIRE_THROWS_WITH(t["whole"].toInt(), Equals("training.whole must be an integer, got 4096.0"));
  CHECK(t["whole"].toInt({1, 1 << 20, true}) == 4096);
  REQUIRE_THROWS_WITH(t["frac"].toInt({1, 1 << 20, true}),
                      Equals("training.frac must be a positive integer, got 4096.5"));
  // Defaults for absent and null only: a present bad value is still an error.
  CHECK(t["missing"].intOr(7, kPositiveInt) == 7);
  CHECK(t["nothing"].intOr(7, kPositiveInt) == 7);
  CHECK_FALSE(t["missing"].optionalInt().has_value());
  REQUIRE_THROWS_WITH(t["micro_batch"].intOr(7, kPositiveInt),
                      Equals("training.micro_batch must be a positive integer, got -3"));
}

TEST_CASE("json fields: numbers are finite and bounded, open or closed", "[json_fields]") {
  const JsonField t = workspace()["training"];
  constexpr NumberRange unit{0, 1, true, false}; // (0, 1]
  CHECK(t["half"].toNumber(unit) == 0.5);
  REQUIRE_THROWS_WITH(t["ratio"].toNumber(unit),
                      Equals("training.ratio must be a number greater than 0 and at most 1, got 0"));
  REQUIRE_THROWS_WITH(t["seq_len"].toNumber({1e6, 1e14}),
                      Equals("training.seq_len must be a number between 1e+06 and 1e+14, got 4096"));
  REQUIRE_THROWS_WITH(t["micro_batch"].toNumber({0}),
                      Equals("training.micro_batch must be a non-negative number, got -3"));
  REQUIRE_THROWS_WITH(t["flag"].toNumber(), Equals("training.flag must be a finite number, got \"yes\""));
  const Json nan = Json{{"x", std::nan("")}};
  REQUIRE_THROWS_WITH(fileFields(nan, "", "")["x"].toNumber(), Catch::StartsWith("x must be a finite number, got "));
  CHECK(t["missing"].numberOr(2.5, unit) == 2.5);
}

TEST_CASE("json fields: bools, strings and lists name the element that is wrong", "[json_fields]") {
  const JsonField ws = workspace();
  REQUIRE_THROWS_WITH(ws["training"]["flag"].toBool(), Equals("training.flag must be true or false, got \"yes\""));
  REQUIRE_THROWS_WITH(ws["training"]["name"].toString(), Equals("training.name must be a string, got 7"));
  REQUIRE_THROWS_WITH(ws["mesh"]["axes"][1]["size"].toInt(kPositiveInt),
                      Equals("mesh.axes[1].size must be a positive integer, got \"4\""));
  CHECK(ws["mesh"]["axes"][0]["size"].toInt() == 2);
  REQUIRE_THROWS_WITH(ws["mesh"]["axes"][5]["size"].toInt(), Equals("mesh.axes[5].size is missing"));
  CHECK(ws["training"]["axes"].toStrings() == std::vector<std::string>{"dp", "fsdp", "dp"});
  REQUIRE_THROWS_WITH(ws["training"]["axes"].toInts(), Equals("training.axes[0] must be an integer, got \"dp\""));
  REQUIRE_THROWS_WITH(ws["training"]["seq_len"].toStrings(),
                      Equals("training.seq_len must be a list of strings, got 4096"));
  REQUIRE_THROWS_WITH(ws["training"]["axes"].checkUniqueStrings(), Equals("training.axes lists 'dp' twice"));
  REQUIRE_THROWS_WITH(ws["mesh"].toArray(), Equals("mesh must be a list, got an object"));
  CHECK(ws["training"]["missing"].stringOr("x") == "x");
  REQUIRE_THROWS_WITH(ws["training"]["flag"].toChoice({"yes!", "no"}),
                      Equals("training.flag must be one of yes!, no, got \"yes\" (did you mean 'yes!'?)"));
  REQUIRE_THROWS_WITH(ws["training"]["flag"].toChoice({"on", "off"}),
                      Equals("training.flag must be one of on, off, got \"yes\""));
  CHECK(ws["training"]["flag"].toChoice({"no", "yes"}) == 1);
}

TEST_CASE("json fields: unknown keys name the closest known key", "[json_fields]") {
  const Json ws = Json::parse(R"({"trainig": {}, "mesh": {"axes": [{"name": "dp", "dnc": 2}]}})");
  REQUIRE_THROWS_WITH(fileFields(ws, "", "the workspace").checkKeys({"topology", "mesh", "training"}),
                      Equals("unknown key 'trainig' in the workspace (did you mean 'training'?)"));
  REQUIRE_THROWS_WITH(fileFields(ws, "", "the workspace")["mesh"]["axes"][0].checkKeys({"name", "ici", "dcn", "type"}),
                      Equals("unknown key 'dnc' in mesh.axes[0] (did you mean 'dcn'?)"));
  REQUIRE_THROWS_WITH(fileFields(ws, "", "the workspace").checkKeys({"topology", "mesh"}),
                      Equals("unknown key 'trainig' in the workspace (known keys: topology, mesh)"));
  // Quoted style (eval requests) and a file source.
  REQUIRE_THROWS_WITH(requestFields(ws)["mesh"].checkKeys({"shape"}),
                      Equals("unknown key 'axes' in field 'mesh' (known keys: shape)"));
  REQUIRE_THROWS_WITH(fileFields(ws, "r.json", "")["mesh"].checkKeys({"axis"}),
                      Equals("r.json: unknown key 'axes' in mesh (did you mean 'axis'?)"));
  REQUIRE_THROWS_WITH(fileFields(ws, "r.json", "").checkKeys({"mesh"}),
                      Equals("unknown key 'trainig' in r.json (known keys: mesh)"));
  CHECK_NOTHROW(fileFields(ws, "", "").checkKeys({"trainig", "mesh"}));
}

TEST_CASE("json fields: closest key by edit distance", "[json_fields]") {
  const std::vector<std::string_view> known = {"preset", "path", "params", "micro_batch", "training", "dcn"};
  CHECK(closestKey("presett", known) == "preset");
  CHECK(closestKey("micro_bach", known) == "micro_batch");
  CHECK(closestKey("trainig", known) == "training");
  CHECK(closestKey("dnc", known) == "dcn");       // a swap of neighbours is one edit
  CHECK(closestKey("PARAMS", known) == "params"); // case does not count
  CHECK(closestKey("zzz", known).empty());
  CHECK(closestKey("x", known).empty());
  CHECK(closestKey("v9", {"v2", "v3"}).empty()); // too short to guess from
}

TEST_CASE("json fields: paths in each style", "[json_fields]") {
  const Json request = Json::parse(R"({"axis_sizes": [4, "a"], "devices": [{"id": 1}]})");
  REQUIRE_THROWS_WITH(requestFields(request)["axis_sizes"].toInts(),
                      Equals("field 'axis_sizes[1]' must be an integer, got \"a\""));
  REQUIRE_THROWS_WITH(requestFields(request)["devices"][0]["platform"].toString(),
                      Equals("field 'devices[0].platform' is missing"));
  const Json config = Json::parse(R"({"model_type": "llama"})");
  REQUIRE_THROWS_WITH(fileFields(config, "config.json", "")["hidden_size"].toInt(),
                      Equals("config.json: hidden_size is missing"));
  REQUIRE_THROWS_WITH(fileFields(config, "", "the model").toArray(), Equals("the model must be a list, got an object"));
  const Json model = Json::parse(R"({"params": [{"path": "w", "shape": [-1]}]})");
  REQUIRE_THROWS_WITH(fileFields(model, "", "")["params"][0].annotated("'w'")["shape"].toInts(kNonNegativeInt),
                      Equals("params[0] ('w').shape[0] must be a non-negative integer, got -1"));
  try {
    requestFields(request)["axis_sizes"].toInts();
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::ValueError);
  }
}
