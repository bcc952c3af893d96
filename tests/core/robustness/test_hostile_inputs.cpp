// SPDX-License-Identifier: Apache-2.0
// Named hostile inputs, one per way a file or request can go wrong, each with the error it must
// produce. The byte-level cases live in tests/data/hostile/. Every case must answer quickly: the
// parsers bound sizes before they allocate or loop on them.
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/partition_spec.hpp"
#include "shardscope/sharding/rule_file.hpp"
#include "shardscope/analysis/rules_in_effect.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;
using Catch::Matchers::Contains;
using Catch::Matchers::Equals;
using Catch::Matchers::StartsWith;

namespace {

std::filesystem::path hostile(const char* name) {
  return std::filesystem::path(SHARDSCOPE_TEST_DATA "/hostile") / name;
}

// "[[[[...]]]]" nested `depth` levels.
std::string nestedLists(std::size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// "a<i>", built by appending (GCC 12 warns falsely, -Wrestrict, on "literal" + std::string&&).
std::string axisName(int i) {
  std::string name = "a";
  name.append(std::to_string(i));
  return name;
}

// "a0:1,a1:1,..." with `count` distinct axis names.
std::string manyAxes(std::size_t count) {
  std::string text;
  for (std::size_t i = 0; i < count; ++i) {
    text.append(i ? ",a" : "a");
    text.append(std::to_string(i));
    text.append(":1");
  }
  return text;
}

} // namespace

// --- safetensors headers -------------------------------------------------------------------------

TEST_CASE("hostile safetensors: file shorter than the 8-byte length", "[hostile]") {
  REQUIRE_THROWS_WITH(
      loadSafetensors(hostile("truncated-length.safetensors")),
      Equals("truncated-length.safetensors: truncated: the file is shorter than the 8-byte header length (5 bytes)"));
}

TEST_CASE("hostile safetensors: header length over the 100 MB limit", "[hostile]") {
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("oversized-header.safetensors")),
                      Equals("oversized-header.safetensors: header length 1099511627776 exceeds the 100 MB limit"));
}

TEST_CASE("hostile safetensors: header length pointing past the file", "[hostile]") {
  REQUIRE_THROWS_WITH(
      loadSafetensors(hostile("header-past-end.safetensors")),
      Equals("header-past-end.safetensors: header length 1000 runs past the end of the file (29 bytes)"));
}

TEST_CASE("hostile safetensors: header JSON cut short", "[hostile]") {
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("truncated-header-json.safetensors")),
                      StartsWith("truncated-header-json.safetensors: the header is not valid JSON"));
}

TEST_CASE("hostile safetensors: tensor name that is not UTF-8", "[hostile]") {
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("non-utf8-name.safetensors")),
                      StartsWith("non-utf8-name.safetensors: the header is not valid JSON"));
}

TEST_CASE("hostile safetensors: a dimension of 0 is a valid empty tensor", "[hostile]") {
  const Model m = loadSafetensors(hostile("dim-zero.safetensors"));
  REQUIRE(m.params.size() == 2);
  CHECK(m.params[0].path == "empty");
  CHECK(m.params[0].shape == Shape{0, 4});
  CHECK(m.params[0].elements() == 0);
  CHECK(m.params[1].elements() == 2);
}

TEST_CASE("hostile safetensors: a dimension of 2^62", "[hostile]") {
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("dim-2pow62.safetensors")),
                      Equals("parameter 'w': shape (4611686018427387904,) has more than 2^53 elements"));
}

TEST_CASE("hostile safetensors: a shape whose product overflows 64 bits", "[hostile]") {
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("shape-overflow.safetensors")),
                      Equals("parameter 'w': shape (4294967296, 4294967296, 16) has more than 2^53 elements"));
}

TEST_CASE("hostile safetensors: data_offsets past the data section", "[hostile]") {
  REQUIRE_THROWS_WITH(
      loadSafetensors(hostile("data-past-end.safetensors")),
      Equals("data-past-end.safetensors: tensor 'w': 'data_offsets' end 16 runs past the data section (8 bytes)"));
}

TEST_CASE("hostile safetensors: a data offset of 2^64-1", "[hostile]") {
  REQUIRE_THROWS_WITH(
      loadSafetensors(hostile("offset-2pow64.safetensors")),
      Equals("offset-2pow64.safetensors: tensor 'w': 'data_offsets'[1] must be at most 9223372036854775807, got "
             "18446744073709551615"));
}

// --- mesh strings, mesh JSON, scenario axes ------------------------------------------------------

TEST_CASE("hostile mesh string: a million axes", "[hostile]") {
  const std::string text = manyAxes(1'000'000);
  REQUIRE_THROWS_WITH(parseMeshAxes(text, 8),
                      StartsWith("mesh 'a0:1,a1:1,a2:1,") && Catch::Matchers::EndsWith(": more than 16 axes"));
  // The message quotes a bounded prefix of the text, not 10 MB of it.
  try {
    parseMeshAxes(text, 8);
  } catch (const Error& e) {
    CHECK(std::string(e.what()).size() < 200);
  }
}

TEST_CASE("hostile mesh string: eformer axis_dims with a million axes", "[hostile]") {
  REQUIRE_THROWS_WITH(parseMeshString(std::string(2'000'000 - 1, ',').insert(0, "1"), {"dp", "tp"}),
                      Equals("invalid literal for int() with base 10: ''"));
  std::string ones;
  for (int i = 0; i < 1'000'000; ++i) ones += i ? ",1" : "1";
  REQUIRE_THROWS_WITH(parseMeshString(ones, {"dp", "tp"}), Equals("Number of dimensions and names must match"));
}

TEST_CASE("hostile mesh string: duplicate axis names", "[hostile]") {
  REQUIRE_THROWS_WITH(parseMeshAxes("tp:2,tp:4", 8), Equals("mesh 'tp:2,tp:4': axis name 'tp' appears twice"));
  REQUIRE_THROWS_WITH(MeshAxes({"tp", "tp"}, {2, 4}), Equals("mesh axes: axis name 'tp' appears twice"));
}

TEST_CASE("hostile mesh string: sizes of 0 and 2^62", "[hostile]") {
  REQUIRE_THROWS_WITH(
      parseMeshAxes("dp:0", 8),
      Equals("mesh 'dp:0': size of axis 'dp' must be a positive integer up to the device count (8) or -1, got '0'"));
  REQUIRE_THROWS_WITH(parseMeshAxes("dp:4611686018427387904", 8),
                      Equals("mesh 'dp:4611686018427387904': size of axis 'dp' must be a positive integer up to the "
                             "device count (8) or -1, got "
                             "'4611686018427387904'"));
}

TEST_CASE("hostile mesh string: sizes whose product overflows 64 bits", "[hostile]") {
  const std::int64_t big = std::int64_t{1} << 62;
  REQUIRE_THROWS_WITH(parseMeshAxes("a:4294967296,b:4294967296,c:4294967296", big),
                      Equals("mesh 'a:4294967296,b:4294967296,c:4294967296': axis sizes multiply to more than "
                             "4611686018427387904, not the "
                             "4611686018427387904 devices"));
  REQUIRE_THROWS_WITH(MeshAxes({"a", "b", "c"}, {std::int64_t{1} << 32, std::int64_t{1} << 32, std::int64_t{1} << 32}),
                      Equals("mesh axes: the mesh has more than 2^32 devices"));
}

TEST_CASE("hostile mesh JSON: mesh_axes with a million entries", "[hostile]") {
  Json axes = Json::array();
  for (int i = 0; i < 1'000'000; ++i) axes.push_back(Json::array({axisName(i), 1}));
  REQUIRE_THROWS_WITH(MeshAxes::fromJson(axes), Equals("mesh axes: 1000000 axes; at most 64 are supported"));
}

TEST_CASE("hostile eval: mesh_shape with a million entries", "[hostile]") {
  Json r = {{"op", "create_device_mesh"}, {"device_kind", "TPU v4"}, {"platform", "tpu"}};
  r["devices"] =
      Json::array({{{"id", 0}, {"coords", {0, 0, 0}}, {"core_on_chip", 0}, {"process_index", 0}, {"slice_index", 0}}});
  r["mesh_shape"] = Json::array();
  for (int i = 0; i < 1'000'000; ++i) r["mesh_shape"].push_back(1);
  // NumPy refuses arrays of rank > 64 (JAX reshapes the device list with it); so do we, instead of
  // overflowing the stack writing a list nested a million deep.
  const Json answer = evalRequest(r);
  REQUIRE(answer["ok"] == false);
  CHECK(answer["error"]["type"] == "ValueError");
  CHECK(answer["error"]["message"] == "maximum supported dimension for an ndarray is currently 64, found 1000000");
}

TEST_CASE("hostile scenario: ICI axes whose product overflows 64 bits", "[hostile]") {
  MeshConfig mesh;
  for (int i = 0; i < 4; ++i) mesh.axes.push_back({axisName(i), 1 << 24, 1, AxisType::Explicit});
  REQUIRE_THROWS_WITH(resolveIciShape(mesh, 256), Equals("the product of the mesh axis sizes overflows"));
}

TEST_CASE("hostile scenario: duplicate and excessive axes", "[hostile]") {
  MeshConfig mesh;
  mesh.axes.push_back({"tp", 2, 1, AxisType::Explicit});
  mesh.axes.push_back({"tp", 2, 1, AxisType::Explicit});
  REQUIRE_THROWS_WITH(resolveIciShape(mesh, 4), Equals("axis name 'tp' is used twice"));
  Json ws = scenarioToJson(defaultScenario());
  ws["mesh"]["axes"] = Json::array();
  for (int i = 0; i < 1'000'000; ++i) ws["mesh"]["axes"].push_back({{"name", axisName(i)}, {"ici", 1}});
  REQUIRE_THROWS_WITH(scenarioFromJson(ws), Equals("mesh.axes has 1000000 axes; at most 64 are supported"));
}

// --- topology and device kinds -------------------------------------------------------------------

TEST_CASE("hostile topology: unknown chip name", "[hostile]") {
  REQUIRE_THROWS_WITH(parseTopology("v99:2x2"), StartsWith("unknown chip 'v99'; known chips: v2, "));
}

TEST_CASE("hostile topology: dimensions of 0, 2^62 and an overflowing product", "[hostile]") {
  REQUIRE_THROWS_WITH(parseTopology("v4:0x2"),
                      Equals("topology 'v4:0x2': chip dimensions must be a positive integer, got '0'"));
  REQUIRE_THROWS_WITH(parseTopology("v4:4611686018427387904"),
                      Equals("topology 'v4:4611686018427387904': chip dimensions '4611686018427387904' exceeds the "
                             "device limit of 1048576"));
  REQUIRE_THROWS_WITH(makeDevices(parseTopology("v4:65536x65536x65536")),
                      Equals("topology 'v4:65536x65536x65536': too many devices: 281474976710656, more than the "
                             "supported 1048576"));
  std::string million = "v4:";
  million.append(1'000'000, 'x');
  std::string expected = "topology 'v4:";
  expected.append(57, 'x');
  expected.append("...': chip dimensions must be a positive integer, got ''");
  REQUIRE_THROWS_WITH(parseTopology(million), Equals(expected));
}

TEST_CASE("hostile eval: a device_kind no handler knows still builds a mesh", "[hostile]") {
  // JAX falls back to the generic (non-torus-aware) ordering for unknown TPU kinds.
  Json r = {{"op", "create_device_mesh"},
            {"device_kind", "TPU v99 experimental"},
            {"platform", "tpu"},
            {"mesh_shape", {2, 2}}};
  r["devices"] = Json::array();
  for (int k = 0; k < 4; ++k)
    r["devices"].push_back(
        {{"id", k}, {"coords", {k % 2, k / 2, 0}}, {"core_on_chip", 0}, {"process_index", 0}, {"slice_index", 0}});
  const Json answer = evalRequest(r);
  INFO(answer.dump());
  REQUIRE(answer["ok"] == true);
}

// --- regex rules -------------------------------------------------------------------------------

TEST_CASE("hostile rules: catastrophic backtracking is stopped by the match limit", "[hostile]") {
  const RuleSet rules({{"(a+)+$", PartitionSpec::ofAxes({"tp"})}});
  const std::string path = std::string(64, 'a') + "!";
  REQUIRE_THROWS_WITH(rules.firstMatch(path),
                      StartsWith("partition rule 0 '(a+)+$' is too complex to match against '" + path +
                                 "' (catastrophic backtracking; simplify nested quantifiers)"));
}

TEST_CASE("hostile rules: a pattern that does not compile", "[hostile]") {
  REQUIRE_THROWS_WITH(RuleSet({{"(unclosed", PartitionSpec()}}),
                      StartsWith("partition rule 0: invalid regular expression '(unclosed': "));
}

TEST_CASE("hostile rules: a pattern past the length limit is refused, quoting a prefix", "[hostile]") {
  // A 30 MB pattern once took 11 s and 3.7 GB to compile; an invalid 5 MB one was repeated whole.
  const std::string longest(kMaxRulePatternBytes, 'a');
  CHECK_NOTHROW(RuleSet({{longest, PartitionSpec()}}));
  const std::string tooLong = "(" + std::string(kMaxRulePatternBytes, 'a');
  REQUIRE_THROWS_WITH(RuleSet({{"x", PartitionSpec()}, {tooLong, PartitionSpec()}}),
                      Equals("partition rule 1: regular expression '(" + std::string(199, 'a') +
                             "'... (10001 bytes) is longer than the limit of 10000 bytes"));
}

TEST_CASE("hostile rule file: wrong shapes name the rule", "[hostile]") {
  REQUIRE_THROWS_WITH(parseRuleFile("{\"rule\": []}", "r.json"),
                      Equals("unknown key 'rule' in r.json (did you mean 'rules'?)"));
  REQUIRE_THROWS_WITH(parseRuleFile("{}", "r.json"), Equals("r.json: rules is missing"));
  REQUIRE_THROWS_WITH(parseRuleFile("{\"rules\": 3}", "r.json"),
                      Equals("r.json: rules must be a list of [regex, spec] pairs, got 3"));
  REQUIRE_THROWS_WITH(parseRuleFile("[[\".*\"]]", "r.json"),
                      Equals("r.json: rules[0] must be a [regex, spec] pair, got a list"));
  REQUIRE_THROWS_WITH(parseRuleFile("[[1, []]]", "r.json"),
                      Equals("r.json: rules[0][0] (the regex) must be a string, got 1"));
  REQUIRE_THROWS_WITH(parseRuleFile("[[\".*\", 5]]", "r.json"), StartsWith("r.json: rules[0][1]"));
  REQUIRE_THROWS_WITH(parseRuleFile(nestedLists(100000), "r.json"), Equals("r.json nests deeper than 128 levels"));
}

// --- deeply nested JSON everywhere -------------------------------------------------------------

TEST_CASE("hostile JSON: deeply nested eval request", "[hostile]") {
  const Json answer = Json::parse(evalLine(nestedLists(1'000'000)));
  CHECK(answer["ok"] == false);
  CHECK_THAT(answer["error"]["message"].get<std::string>(), Equals("request nests deeper than 128 levels"));
}

TEST_CASE("hostile JSON: deeply nested workspace, model JSON and HF config", "[hostile]") {
  const std::string deep = "{\"a\": " + nestedLists(100000) + "}";
  REQUIRE_THROWS_WITH(parseJsonText(deep, "workspace.shardscope.json"),
                      Equals("workspace.shardscope.json nests deeper than 128 levels"));
  const auto dir = std::filesystem::temp_directory_path() / ("shardscope-hostile-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "deep-model.json") << deep;
    std::ofstream(dir / "config.json") << "{\"model_type\": \"llama\", \"x\": " << nestedLists(100000) << "}";
  }
  REQUIRE_THROWS_WITH(loadModelFile(dir / "deep-model.json"), Equals("deep-model.json nests deeper than 128 levels"));
  REQUIRE_THROWS_WITH(loadModelFile(dir / "config.json"), Equals("config.json nests deeper than 128 levels"));
  std::filesystem::remove_all(dir);
}

// --- models ----------------------------------------------------------------------------------

TEST_CASE("hostile model JSON: dimensions of 2^62 and overflowing shapes", "[hostile]") {
  const Json big =
      Json::parse(R"({"name": "m", "params": [{"path": "w", "shape": [4611686018427387904], "dtype": "float32"}]})");
  REQUIRE_THROWS_WITH(modelFromJson(big),
                      Equals("parameter 'w': shape (4611686018427387904,) has more than 2^53 elements"));
  const Json over = Json::parse(
      R"({"name": "m", "params": [{"path": "w", "shape": [4294967296, 4294967296, 4294967296], "dtype": "float32"}]})");
  REQUIRE_THROWS_WITH(modelFromJson(over),
                      Equals("parameter 'w': shape (4294967296, 4294967296, 4294967296) has more than 2^53 elements"));
}

TEST_CASE("hostile HF config: billions of layers and experts", "[hostile]") {
  Json c =
      Json::parse(R"({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
                           "num_key_value_heads": 4, "vocab_size": 100, "num_local_experts": 2147483648,
                           "num_experts_per_tok": 2, "num_hidden_layers": 2147483648})");
  REQUIRE_THROWS_WITH(
      modelFromHfConfig(c, "m"),
      Equals("config.json: 2147483648 layers of 8589934608+ tensors each would synthesize more than 1048576 tensors"));
  c["model_type"] = "llama";
  REQUIRE_THROWS_WITH(
      modelFromHfConfig(c, "m"),
      Equals("config.json: 2147483648 layers of 16+ tensors each would synthesize more than 1048576 tensors"));
}

TEST_CASE("hostile HF config: unknown model_type", "[hostile]") {
  const Json c = Json::parse(R"({"model_type": "not-a-model"})");
  REQUIRE_THROWS_WITH(modelFromHfConfig(c, "m"),
                      StartsWith("config.json: model_type 'not-a-model' is not supported (supported: "));
}

// --- silently ignored before, errors now ---------------------------------------------------------

TEST_CASE("hostile safetensors: a tensor named twice in the header", "[hostile]") {
  // JSON alone keeps the last entry; a header listing one tensor twice is corrupt.
  REQUIRE_THROWS_WITH(loadSafetensors(hostile("duplicate-name.safetensors")),
                      Equals("duplicate-name.safetensors: tensor 'w' appears twice in the header"));
}

TEST_CASE("hostile checkpoint index: a shard name with a NUL byte", "[hostile]") {
  // Opening "model.safetensors\0../../etc/passwd" would open model.safetensors.
  REQUIRE_THROWS_WITH(loadSafetensorsIndex(hostile("nul-shard.safetensors.index.json")),
                      Equals("nul-shard.safetensors.index.json: weight_map['w'] names a shard file with a NUL byte: "
                             "'model.safetensors\\x00../../etc/passwd'"));
}

TEST_CASE("hostile models: more experts per token than experts, zero heads", "[hostile]") {
  const Json hf =
      Json::parse(R"({"model_type": "mixtral", "hidden_size": 64, "intermediate_size": 128, "num_attention_heads": 4,
                      "num_key_value_heads": 4, "vocab_size": 100, "num_local_experts": 8,
                      "num_experts_per_tok": 16, "num_hidden_layers": 2})");
  REQUIRE_THROWS_WITH(modelFromHfConfig(hf, "m"),
                      Equals("config.json: num_experts_per_tok (16) is larger than num_local_experts (8)"));
  const Json zeroHeads = Json::parse(R"({"params": [{"path": "w", "shape": [2], "dtype": "float32"}],
                                         "config": {"hidden": 64, "heads": 0}})");
  REQUIRE_THROWS_WITH(modelFromJson(zeroHeads), Equals("config.heads must be a positive integer, got 0"));
  const Json routed = Json::parse(R"({"params": [{"path": "w", "shape": [2], "dtype": "float32"}],
                                      "config": {"experts": 2, "experts_per_token": 4}})");
  REQUIRE_THROWS_WITH(modelFromJson(routed), Equals("config.experts_per_token (4) is larger than experts (2)"));
  const Json extra = Json::parse(R"({"params": [{"path": "w", "shape": [2], "dtype": "float32", "dtpye": "x"}]})");
  REQUIRE_THROWS_WITH(modelFromJson(extra), Equals("unknown key 'dtpye' in params[0] (did you mean 'dtype'?)"));
}

TEST_CASE("hostile workspace: misspelled keys, two model sources, a batch axis twice, a 3-D v5e", "[hostile]") {
  const auto load = [](const char* text) { return scenarioFromJson(Json::parse(text)); };
  REQUIRE_THROWS_WITH(load(R"({"training": {"micro_bach": 8}})"),
                      Equals("unknown key 'micro_bach' in training (did you mean 'micro_batch'?)"));
  REQUIRE_THROWS_WITH(load(R"({"model": {"preset": "gpt2", "params": [{"path": "w", "shape": [1]}]}})"),
                      Equals("model gives both 'preset' and 'params'; give one of preset, path, params or config"));
  REQUIRE_THROWS_WITH(load(R"({"training": {"batch_axes": ["dp", "dp"]}})"),
                      Equals("training.batch_axes lists 'dp' twice"));
  REQUIRE_THROWS_WITH(load(R"({"topology": {"chip": "v5e", "shape": [4, 4, 2]}})"),
                      Equals("topology.shape[2] must be 1: v5e is a 2-D torus, got 2"));
  REQUIRE_THROWS_WITH(load(R"({"links": {"ici_bandwidth": 1e-300}})"),
                      Equals("links.ici_bandwidth must be a number between 1e+06 and 1e+14, got 1e-300"));
}

TEST_CASE("hostile topology strings: each mistake named as itself", "[hostile]") {
  // The host block text is built once all three sizes are known.
  REQUIRE_THROWS_WITH(makeDevices(parseTopology("v4:4x4x8:host=3x3x3")),
                      Equals("topology: host block 3x3x3 does not divide the slice 4x4x8 along x"));
  // Too many devices is said as such, before any host-block or divisibility problem.
  REQUIRE_THROWS_WITH(parseTopology("v4:100000x100000x100000"),
                      Equals("topology 'v4:100000x100000x100000': too many devices: 1000000000000000, more than the "
                             "supported 1048576"));
  TopologySpec odd;
  odd.chip = "v4";
  odd.shape = {99999, 99999, 99999};
  REQUIRE_THROWS_WITH(makeDevices(odd),
                      Equals("topology: too many devices: 999970000299999, more than the supported 1048576"));
  odd.shape = {1 << 20, 1 << 20, 1 << 20};
  odd.slices = 1 << 20;
  REQUIRE_THROWS_WITH(makeDevices(odd),
                      Equals("topology: too many devices: more than 2^63, more than the supported 1048576"));
  REQUIRE_THROWS_WITH(parseTopology("h100:2x8:interleaved=yes"),
                      Equals("topology 'h100:2x8:interleaved=yes': option 'interleaved' takes no value; write "
                             "':interleaved' to number GPU ids k*num_processes+p, or leave it out"));
  REQUIRE_THROWS_WITH(parseTopology("v4:2x2:slices"),
                      Equals("topology 'v4:2x2:slices': option 'slices' needs a value: slices=N"));
  REQUIRE_THROWS_WITH(parseTopology("v4:2x2:slice=2"),
                      Equals("topology 'v4:2x2:slice=2': unknown option 'slice' (did you mean 'slices'?); options are "
                             "slices=N, cores=C, host=AxBxC, kind=NAME and interleaved"));
  REQUIRE_THROWS_WITH(parseTopology("cpu:100000000"),
                      Equals("topology 'cpu:100000000': device count '100000000' exceeds the device limit of 1048576"));
  REQUIRE_THROWS_WITH(parseTopology("h100:2000000x8"),
                      Equals("topology 'h100:2000000x8': hosts x devices per host '2000000' exceeds the device limit "
                             "of 1048576"));
  REQUIRE_THROWS_WITH(parseTopology("v4:4x4x4:slices=2:slices=3"),
                      Equals("topology 'v4:4x4x4:slices=2:slices=3': option 'slices' is given twice"));
  REQUIRE_THROWS_WITH(parseTopology("v5e:4x4x2"),
                      Equals("topology 'v5e:4x4x2': v5e is a 2-D torus, so its chips are XxY; got 2 along z"));
  REQUIRE_THROWS_WITH(parseTopology("v6e:2x2x2"),
                      Equals("topology 'v6e:2x2x2': v6e is a 2-D torus, so its chips are XxY; got 2 along z"));
  CHECK(parseTopology("v5e:4x4x1").shape == std::array<int, 3>{4, 4, 1});
}

TEST_CASE("hostile topology: a million CPU devices in the link graph", "[hostile]") {
  // CPUs are not GPUs, and the remedy named is one the caller has.
  const Json answer = evalRequest(Json::parse(R"({"op": "links", "topology": "cpu:1048576"})"));
  REQUIRE(answer["ok"] == false);
  CHECK(answer["error"]["message"] == "link graph: 1048576 CPU devices in all-to-all groups of 576 need 301465600 "
                                      "links, more than the 8000000 modelled; use at most 27826 devices");
  // One device more than the limit named for groups of 576: 27827 * 575 / 2 = 8000262.5 links.
  CHECK(evalRequest(Json::parse(R"({"op": "links", "topology": "cpu:27827"})"))["error"]["message"] ==
        "link graph: 27827 CPU devices in all-to-all groups of 576 need 8000262 links, more than the 8000000 "
        "modelled; use at most 27826 devices");
}

TEST_CASE("hostile eval: op of the wrong type, make_mesh sizes of 0, -2 and [4]", "[hostile]") {
  const Json notString = evalRequest(Json::parse(R"({"op": 5})"));
  CHECK(notString["error"]["message"] == "field 'op' must be a string naming the operation, got 5");
  CHECK(evalRequest(Json::parse(R"({"op": "make_mesj"})"))["error"]["message"].get<std::string>().rfind(
            "unknown op 'make_mesj' (did you mean 'make_mesh'?); known ops: ", 0) == 0);
  Json r = {{"op", "make_mesh"}, {"platform", "cpu"}, {"device_kind", "cpu"}, {"axis_names", {"a", "b"}}};
  r["devices"] = Json::array();
  for (int i = 0; i < 8; ++i) r["devices"].push_back({{"id", i}});
  r["axis_sizes"] = {0, 4};
  CHECK(evalRequest(r)["error"]["message"] == "field 'axis_sizes[0]' must be a positive integer, got 0");
  r["axis_sizes"] = {4, -2};
  CHECK(evalRequest(r)["error"]["message"] == "field 'axis_sizes[1]' must be a positive integer, got -2");
  // JAX's own text, the value printed as the tuple a Python caller passes.
  r["axis_sizes"] = Json::parse("[[4], 4]");
  const Json nonInt = evalRequest(r);
  CHECK(nonInt["error"]["type"] == "ValueError");
  CHECK(nonInt["error"]["message"] == "`axis_sizes` passed to `make_mesh` should be a sequence of ints. Got ((4,), 4)");
  r["axis_sizes"] = {2, 4};
  CHECK(evalRequest(r)["ok"] == true);
}

// --- sizes: many keys, high ranks, many rules, memory (issue 13) ---------------------------------
// Each of these took seconds to minutes, or gigabytes, before; shardscope-bench times the large
// cases (json/*, safetensors/*, eval/*, rules/*). Here only the answers are checked.

namespace {

// prefix + n, built by appending (see axisName).
std::string numbered(const char* prefix, long long n) {
  std::string text = prefix;
  text.append(std::to_string(n));
  return text;
}

// {"k<n-1>": 0, "k<n-2>": 1, ..., "k0": n-1}: keys in an order that is not sorted.
std::string descendingKeys(int n) {
  std::string text = "{";
  for (int i = 0; i < n; ++i) {
    text.append(i ? ", \"k" : "\"k");
    text.append(std::to_string(n - 1 - i));
    text.append("\": ");
    text.append(std::to_string(i));
  }
  return text + "}";
}

// A safetensors header of `n` BF16 tensors "t<i>" of shape [2, 3], in that order.
std::string manyTensors(int n) {
  std::string text = "{\"__metadata__\": {\"format\": \"pt\"}";
  for (int i = 0; i < n; ++i) {
    text.append(", \"t");
    text.append(std::to_string(i));
    text.append("\": {\"dtype\": \"BF16\", \"shape\": [2, 3], \"data_offsets\": [");
    text.append(std::to_string(12 * i));
    text.append(", ");
    text.append(std::to_string(12 * i + 12));
    text.append("]}");
  }
  return text + "}";
}

// "[1, 1, ..., 1]" of `rank` ones.
std::string onesList(std::size_t rank) {
  std::string text = "[";
  for (std::size_t i = 0; i < rank; ++i) text.append(i ? ", 1" : "1");
  return text + "]";
}

} // namespace

TEST_CASE("hostile JSON: an object of 200,000 keys keeps its order and finds every key", "[hostile]") {
  const int n = 200'000;
  const Json object = parseJsonText(descendingKeys(n), "index");
  REQUIRE(object.size() == static_cast<std::size_t>(n));
  int i = 0;
  for (auto it = object.begin(); it != object.end(); ++it, ++i) {
    if (it.key() != numbered("k", n - 1 - i) || it.value() != i) {
      FAIL("entry " << i << " is " << it.key() << ": " << it.value().dump());
    }
  }
  for (int k = 0; k < n; k += 997) CHECK(object.at(numbered("k", k)) == n - 1 - k);
  CHECK_FALSE(object.contains("k200000"));
  // Written back in the same order. A repeated key is refused, naming it (readers disagree on
  // which of the two counts), at any depth.
  CHECK(dumpJson(parseJsonText(dumpJson(object), "again")) == dumpJson(object));
  REQUIRE_THROWS_WITH(parseJsonText(R"({"b": 1, "a": 2, "b": 3})", "workspace 'r.json'"),
                      Catch::Matchers::Equals("workspace 'r.json' repeats the key 'b' in one object: say it once "
                                              "(JSON readers disagree on which one counts)"));
  REQUIRE_THROWS_WITH(parseJsonText(R"({"weight_map": {"w": "a.safetensors", "w": "b.safetensors"}})", "index"),
                      Catch::Matchers::StartsWith("index repeats the key 'w' in one object"));
  // The same key in two objects is no repeat.
  CHECK(parseJsonText(R"([{"a": 1}, {"a": 2}])", "list").size() == 2);
  // Built key by key (an eval answer), erased from and copied.
  Json built = Json::object();
  for (int k = 0; k < n; ++k) built[std::to_string(k)] = k % 512;
  CHECK(built.size() == static_cast<std::size_t>(n));
  CHECK(built["199999"] == 199999 % 512);
  built.erase("5");
  const Json copy = built;
  CHECK(copy.size() == static_cast<std::size_t>(n - 1));
  CHECK_FALSE(copy.contains("5"));
  CHECK(copy.at("6") == 6);
  CHECK(copy.begin().key() == "0");
}

TEST_CASE("hostile safetensors: a header of 200,000 tensors, and a name given twice", "[hostile]") {
  const auto params = paramsFromSafetensorsHeader(manyTensors(200'000), "big.safetensors");
  REQUIRE(params.size() == 200'000);
  CHECK(params[0].path == "t0");
  CHECK(params[123'456].path == "t123456");
  CHECK(params[123'456].shape == Shape{2, 3});
  CHECK(params.back().dtype == "bfloat16");
  // The JSON parser alone would keep one of the two silently (the last).
  REQUIRE_THROWS_WITH(
      paramsFromSafetensorsHeader(
          R"({"w": {"dtype": "F32", "shape": [1], "data_offsets": [0, 4]}, "w": {"dtype": "F32", "shape": [2], "data_offsets": [4, 12]}})",
          "dup.safetensors"),
      Equals("dup.safetensors: tensor 'w' appears twice in the header"));
}

TEST_CASE("hostile shapes: ranks above NumPy's 64 are refused wherever a shape enters", "[hostile]") {
  const std::string rank100k = onesList(100'000);
  REQUIRE_THROWS_WITH(
      paramsFromSafetensorsHeader(R"({"w": {"dtype": "F32", "shape": )" + rank100k + R"(, "data_offsets": [0, 4]}})",
                                  "deep.safetensors"),
      Equals("deep.safetensors: tensor 'w': 'shape' has 100000 dimensions; at most 64 are supported (NumPy's limit)"));
  // 64 dimensions are fine.
  CHECK(paramsFromSafetensorsHeader(
            R"({"w": {"dtype": "F32", "shape": )" + onesList(64) + R"(, "data_offsets": [0, 4]}})", "ok.safetensors")
            .at(0)
            .shape.size() == 64);
  REQUIRE_THROWS_WITH(modelFromJson(parseJsonText(R"({"name": "m", "params": [{"path": "w", "shape": )" + onesList(65) +
                                                      R"(, "dtype": "float32"}]})",
                                                  "m.json")),
                      Equals("params[0] ('w').shape has 65 dimensions; at most 64 are supported (NumPy's limit)"));
  Model model;
  model.name = "m";
  model.params.push_back({"w", Shape(65, 1), "float32"});
  REQUIRE_THROWS_WITH(validateModel(model),
                      Equals("parameter 'w': shape has 65 dimensions; at most 64 are supported (NumPy's limit)"));
  for (const char* op : {"shard", "match_partition_rules"}) {
    INFO(op);
    Json request = parseJsonText(R"({"mesh_axes": [["dp", 1]], "rules": [[".*", []]],
                                     "params": [{"path": "w", "shape": )" +
                                     rank100k + R"(, "spec": []}]})",
                                 "request");
    request["op"] = op;
    const Json answer = evalRequest(request);
    REQUIRE(answer["ok"] == false);
    CHECK(answer["error"]["message"] ==
          "field 'params[0].shape' has 100000 dimensions; at most 64 are supported (NumPy's limit)");
  }
}

TEST_CASE("hostile rules: 10,000 rules against 200,000 paths answer as a plain search would", "[hostile]") {
  // Rule i names layer i exactly (a digit after '.': tried on every path); one in ten is
  // digit-insensitive instead; a catch-all comes last. Each path's first match is known by
  // construction.
  std::vector<PartitionRule> rules;
  for (int i = 0; i < 9'999; ++i) {
    const std::string layer = std::to_string(i);
    rules.push_back({i % 10 == 9 ? std::string("block_") + static_cast<char>('a' + i % 26) + "x" + layer + "y"
                                 : "layers\\." + layer + "\\.mlp\\.w\\d+$",
                     PartitionSpec::ofAxes({"fsdp"})});
  }
  rules.push_back({".*", PartitionSpec()});
  const RuleSet set(rules);
  std::vector<std::string> paths;
  std::vector<int> expected;
  for (int k = 0; k < 200'000; ++k) {
    const int layer = k % 12'000;
    paths.push_back(numbered("model.layers.", layer).append(".mlp.w").append(std::to_string(k % 3)));
    expected.push_back(layer < 9'999 && layer % 10 != 9 ? layer : 9'999);
  }
  const std::vector<int> found = set.firstMatches(paths);
  REQUIRE(found.size() == paths.size());
  int wrong = 0;
  for (std::size_t k = 0; k < paths.size(); ++k) wrong += found[k] != expected[k] ? 1 : 0;
  CHECK(wrong == 0);
  for (std::size_t k = 0; k < paths.size(); k += 1999) CHECK(set.firstMatch(paths[k]) == found[k]);
}

TEST_CASE("hostile rules: the 10,000-rule limit holds in eval and workspaces too", "[hostile]") {
  Json rules = Json::array();
  for (int i = 0; i < 10'001; ++i) rules.push_back(Json::array({numbered("r", i), Json::array()}));
  for (const char* op : {"shard", "match_partition_rules"}) {
    INFO(op);
    Json request = {{"op", op}, {"mesh_axes", Json::array({Json::array({"dp", 1})})}, {"rules", rules}};
    request["params"] = Json::array({{{"path", "w"}, {"shape", {4, 4}}}});
    const Json answer = evalRequest(request);
    REQUIRE(answer["ok"] == false);
    CHECK(answer["error"]["message"] == "field 'rules' holds 10001 rules, more than the limit of 10000");
  }
  RulesChoice choice;
  choice.preset.clear();
  for (int i = 0; i < 10'001; ++i) choice.rules.emplace_back(numbered("r", i), Json::array());
  REQUIRE_THROWS_WITH(rulesInEffect(choice, nullptr),
                      Equals("rules.rules holds 10001 rules, more than the limit of 10000"));
}

TEST_CASE("hostile JSON: 99 MB of empty objects is refused before it is built", "[hostile]") {
  // Each `{}` is 3 bytes of text but about 80 parsed; 33 million of them took over 2 GB.
  std::string text = "[";
  text.reserve(99'000'000);
  while (text.size() + 3 < 99'000'000) text.append("{},");
  text.append("{}]");
  REQUIRE_THROWS_WITH(parseJsonText(text, "workspace.json"),
                      Equals("workspace.json holds too many JSON values: reading them would take more than 512 MB "
                             "of memory"));
  const auto dir = std::filesystem::temp_directory_path() / ("shardscope-hostile-empty-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  { std::ofstream(dir / "empty.json", std::ios::binary) << text; }
  text.clear();
  text.shrink_to_fit();
  REQUIRE_THROWS_WITH(loadModelFile(dir / "empty.json"), Equals("empty.json holds too many JSON values: reading "
                                                                "them would take more than 512 MB of memory"));
  REQUIRE_THROWS_WITH(loadRuleFile(dir / "empty.json"), Equals("empty.json holds too many JSON values: reading "
                                                               "them would take more than 512 MB of memory"));
  REQUIRE_THROWS_WITH(loadScenarioFile(dir / "empty.json"), Contains("holds too many JSON values"));
  std::filesystem::remove_all(dir);
  // An eval line of 48 MB of numbers (under the line limit) is refused the same way.
  std::string line = R"({"op": "make_mesh", "axis_sizes": [)";
  for (int i = 0; i < 24'000'000; ++i) line.append(i ? ",1" : "1");
  line.append("]}");
  CHECK(Json::parse(evalLine(line))["error"]["message"] ==
        "request holds too many JSON values: reading them would take more than 512 MB of memory");
}

TEST_CASE("hostile JSON: the memory bound still admits a model of 200,000 parameters", "[hostile]") {
  std::string text = R"({"name": "big", "params": [)";
  for (int i = 0; i < 200'000; ++i) {
    text.append(i ? ", {\"path\": \"model.layers." : "{\"path\": \"model.layers.");
    text.append(std::to_string(i));
    text.append(".mlp.experts.gate_proj.weight\", \"shape\": [7168, 2048], \"dtype\": \"bfloat16\"}");
  }
  text.append("]}");
  CHECK(modelFromJson(parseJsonText(text, "big.json")).params.size() == 200'000);
}
