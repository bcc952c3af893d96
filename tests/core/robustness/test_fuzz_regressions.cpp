// SPDX-License-Identifier: Apache-2.0
// Inputs the libFuzzer targets (fuzz/) found, kept as regression tests. Each test replays the exact
// bytes from tests/data/fuzz-regressions/ through the same calls as the target that found them.
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/yaml_text.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <limits>
#include <string>

using namespace shardscope;

namespace {

std::string finding(const char* name) {
  std::ifstream in(std::string(SHARDSCOPE_TEST_DATA "/fuzz-regressions/") + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("fuzz regression: a spec holding the axis '' prints to text that reads back", "[fuzz][partition_spec]") {
  // [null, "tp", [""]]: the 1-element list canonicalises to the axis "" (JAX keeps it), but the
  // short text printed it as '', which reads back as None; it now prints ('',).
  const PartitionSpec spec = PartitionSpec::parse(finding("partition-spec-empty-axis-roundtrip.bin"));
  REQUIRE(spec.size() == 3);
  CHECK(spec[2] == SpecEntry::axis(""));
  CHECK(spec.toString() == "P(None, 'tp', ('',))");
  CHECK(PartitionSpec::parse(spec.toString()) == spec);
  // The JSON form stays JAX's entry, "" (golden-compatible), which is why only the text form marks it.
  CHECK(spec.toJson() == Json::parse(R"([null, "tp", ""])"));
  CHECK(spec.repr() == "PartitionSpec(None, 'tp', '')");
}

TEST_CASE("fuzz regression: JSON partition specs are depth-bounded", "[fuzz][partition_spec]") {
  REQUIRE_THROWS_WITH(PartitionSpec::parse(std::string(100000, '[')),
                      Catch::Matchers::Equals("partition spec nests deeper than 128 levels"));
  REQUIRE_THROWS_WITH(PartitionSpec::parse("[\"tp\""),
                      Catch::Matchers::Equals("partition spec is not valid JSON (syntax error at byte 6)"));
}

TEST_CASE("fuzz regression: an axis name holding a carriage return reads back from its repr",
          "[fuzz][partition_spec]") {
  // "fL\rLL{": pythonStrRepr writes the CR as \r, which the text parser read as a plain 'r'.
  const PartitionSpec spec = PartitionSpec::parse(finding("partition-spec-carriage-return-roundtrip.bin"));
  REQUIRE(spec.size() == 1);
  CHECK(spec[0] == SpecEntry::axis("fL\rLL{"));
  CHECK(spec.toString() == "P('fL\\rLL{')");
  CHECK(PartitionSpec::parse(spec.toString()) == spec);
}

TEST_CASE("fuzz regression: an axis name holding control bytes reads back from its repr", "[fuzz][partition_spec]") {
  // "\x01\0\0\x01": pythonStrRepr writes each as \xHH, which the text parser read as a plain 'x'.
  const PartitionSpec spec = PartitionSpec::parse(finding("partition-spec-control-bytes-roundtrip.bin"));
  REQUIRE(spec.size() == 3);
  CHECK(spec[0] == SpecEntry::axis(std::string("\x01\0\0\x01", 4)));
  CHECK(spec.toString() == "P('\\x01\\x00\\x00\\x01', ('tp', 'sp'), 'Nonp')");
  CHECK(PartitionSpec::parse(spec.toString()) == spec);
  REQUIRE_THROWS_WITH(PartitionSpec::parse("P('a\\x4')"),
                      Catch::Matchers::EndsWith("\\x must be followed by two hex digits"));
}

TEST_CASE("fuzz regression: an axis name is valid UTF-8, and its repr's \\x and \\u escapes read back as code points",
          "[fuzz][partition_spec]") {
  // '"MMMMMMMMMMD\xff\xff...",': the quoted name held bytes that are not UTF-8, which the repr
  // writes as U+FFFD, so the printed spec read back as another name. A Python str cannot hold them.
  REQUIRE_THROWS_WITH(PartitionSpec::parse(finding("partition-spec-invalid-utf8.bin")),
                      Catch::Matchers::EndsWith("at position 0: an axis name must be valid UTF-8"));
  // U+0085 (a C1 control) prints as Python's repr prints it, '\x85', and U+2028 as '\u2028'; both
  // are code points, not bytes: '\x85' reads back as the two UTF-8 bytes C2 85.
  const PartitionSpec spec({SpecEntry::axis("a\xC2\x85"
                                            "b"),
                            SpecEntry::axis("c\xE2\x80\xA8"
                                            "d")});
  CHECK(spec.toString() == "P('a\\x85b', 'c\\u2028d')");
  CHECK(PartitionSpec::parse(spec.toString()) == spec);
  CHECK(PartitionSpec::parse("P('\\U0001F600')")[0] == SpecEntry::axis("\xF0\x9F\x98\x80"));
  REQUIRE_THROWS_WITH(PartitionSpec::parse("P('\\ud800')"),
                      Catch::Matchers::EndsWith("an escape that names no Unicode character"));
  REQUIRE_THROWS_WITH(PartitionSpec::parse("P('\\u12')"),
                      Catch::Matchers::EndsWith("\\u must be followed by four hex digits"));
}

TEST_CASE("fuzz regression: a MaxText rule holding invalid UTF-8 is refused with a readable error", "[fuzz][maxtext]") {
  // The error quoted the rule through Json::dump, which throws on invalid UTF-8; it now replaces it.
  // The finding's rule, merged over the test base config (appended after base.yml's rules).
  std::ifstream baseFile(SHARDSCOPE_TEST_DATA "/maxtext/base.yml");
  REQUIRE(baseFile);
  const Json base = parseYamlText(std::string(std::istreambuf_iterator<char>(baseFile), {}), "base.yml");
  const Json rule = parseYamlText(finding("maxtext-rule-invalid-utf8.yml"), "fuzz.yml");
  MaxTextImportNotes notes;
  REQUIRE_THROWS_WITH(scenarioFromMaxTextConfig(mergeMaxTextConfig(base, Json::object(), rule), notes),
                      Catch::Matchers::EndsWith("] must be [logical name, mesh axes], not '[\"embed\xef\xbf\xbd\"]'"));
}

TEST_CASE("fuzz regression: a MaxText dimension holding invalid UTF-8 is refused naming the key", "[fuzz][maxtext]") {
  // base_emb_dim: "\xec024" (an invalid UTF-8 lead byte): the error quoted the value through
  // Json::dump, which throws on invalid UTF-8 and aborted the import.
  const Json config = parseYamlText(finding("maxtext-integer-invalid-utf8.yml"), "fuzz.yml");
  MaxTextImportNotes notes;
  REQUIRE_THROWS_WITH(
      scenarioFromMaxTextConfig(mergeMaxTextConfig(config, Json::object(), Json::object()), notes),
      Catch::Matchers::StartsWith("MaxText key 'base_emb_dim' must be an integer, not '\"\xef\xbf\xbd"));
}

TEST_CASE("fuzz regression: config.json numbers beyond int64 are refused before conversion", "[fuzz][models]") {
  // The fuzzer wrote 1.28556e+106 for a dimension; converting it to int64 was undefined behaviour.
  Json config = Json::parse(R"({"model_type": "llama", "hidden_size": 4096, "intermediate_size": 11008,
    "num_attention_heads": 32, "num_hidden_layers": 2, "vocab_size": 32000})");
  config["hidden_size"] = 1.28556e+106;
  REQUIRE_THROWS_WITH(
      modelFromHfConfig(config, "x"),
      Catch::Matchers::StartsWith("config.json: hidden_size must be at most 2147483648, got 1.28556e+106"));
  config["hidden_size"] = std::numeric_limits<double>::infinity();
  REQUIRE_THROWS_WITH(modelFromHfConfig(config, "x"),
                      Catch::Matchers::StartsWith("config.json: hidden_size must be a positive integer, got "));
  config["hidden_size"] = std::numeric_limits<std::uint64_t>::max();
  REQUIRE_THROWS_WITH(
      modelFromHfConfig(config, "x"),
      Catch::Matchers::Equals("config.json: hidden_size must be at most 2147483648, got 18446744073709551615"));
  config["hidden_size"] = -4096.0;
  REQUIRE_THROWS_WITH(modelFromHfConfig(config, "x"),
                      Catch::Matchers::Equals("config.json: hidden_size must be a positive integer, got -4096.0"));
  // An integral float is still read as the integer Python meant.
  config["hidden_size"] = 4096.0;
  CHECK(modelFromHfConfig(config, "x").params.size() > 0);
}
