// SPDX-License-Identifier: Apache-2.0
// The bounded YAML reader. Expected values come from the YAML 1.1 type definitions PyYAML's
// SafeLoader implements (yaml.org/type/{int,float,bool,null}.html) with OmegaConf's float rule
// (an exponent without a dot is a float), worked out by hand below.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <catch2/catch.hpp>

#include <cmath>
#include <string>

using namespace shardscope;

TEST_CASE("plain scalars are typed as MaxText's loader types them", "[yaml]") {
  CHECK(yamlPlainScalar("2048") == 2048);
  CHECK(yamlPlainScalar("-1") == -1);
  CHECK(yamlPlainScalar("+7") == 7);
  CHECK(yamlPlainScalar("32_000") == 32000);      // base.yml's vocab_size
  CHECK(yamlPlainScalar("1_000_000") == 1000000); // mixtral's rope_max_timescale
  CHECK(yamlPlainScalar("0x1F") == 31);           // 16 + 15
  CHECK(yamlPlainScalar("017") == 15);            // YAML 1.1 octal: 8 + 7
  CHECK(yamlPlainScalar("0b101") == 5);           // 4 + 1
  CHECK(yamlPlainScalar("1:30") == 90);           // base 60: 1*60 + 30
  CHECK(yamlPlainScalar("12.0") == 12.0);
  CHECK(yamlPlainScalar("12.0").is_number_float());
  CHECK(yamlPlainScalar("1.0e-5") == 1.0e-5);
  CHECK(yamlPlainScalar("1.e-05") == 1.0e-5);       // base.yml's normalization_layer_epsilon
  CHECK(yamlPlainScalar("1e-5").is_number_float()); // OmegaConf's rule; plain PyYAML keeps a string
  CHECK(yamlPlainScalar(".5") == 0.5);
  CHECK(std::isinf(yamlPlainScalar("-.inf").get<double>()));
  CHECK(std::isnan(yamlPlainScalar(".NaN").get<double>()));
  CHECK(yamlPlainScalar("true") == true);
  CHECK(yamlPlainScalar("Yes") == true);
  CHECK(yamlPlainScalar("ON") == true);
  CHECK(yamlPlainScalar("off") == false);
  CHECK(yamlPlainScalar("No") == false);
  CHECK(yamlPlainScalar("~").is_null());
  CHECK(yamlPlainScalar("null").is_null());
  CHECK(yamlPlainScalar("").is_null());
  // Not numbers: kept as the text.
  CHECK(yamlPlainScalar("v5p-256") == "v5p-256");
  CHECK(yamlPlainScalar("1.2.3") == "1.2.3");
  CHECK(yamlPlainScalar("0x") == "0x");
  CHECK(yamlPlainScalar("089") == "089"); // 8 and 9 are no octal digits
  CHECK(yamlPlainScalar("yes please") == "yes please");
  CHECK(yamlPlainScalar("1:75") == "1:75"); // a base-60 digit above 59
}

TEST_CASE("a MaxText-style document: comments, block maps, flow lists over lines", "[yaml]") {
  const std::string text = "# model config\n"
                           "base_emb_dim: 8192 # width\n"
                           "mlp_activations: [\"silu\",\"linear\"]\n"
                           "decoder_block: \"llama2\"\n"
                           "remat_policy: 'full'\n"
                           "compile_topology: ''\n"
                           "logits_via_embedding: false\n"
                           "per_device_batch_size: 12.0\n"
                           "mesh_axes: ['data', 'fsdp', 'tensor']\n"
                           "logical_axis_rules: [\n"
                           "                      ['circular_repeats', []],\n"
                           "                      # a comment inside the list\n"
                           "                      ['embed', ['fsdp', 'tensor']], # and after an item\n"
                           "                      ['exp', 'expert'],\n"
                           "                  ]\n"
                           "empty_value:\n"
                           "url: http://x#y\n";
  const Json doc = parseYamlText(text, "base.yml");
  CHECK(doc["base_emb_dim"] == 8192);
  CHECK(doc["mlp_activations"] == Json::array({"silu", "linear"}));
  CHECK(doc["decoder_block"] == "llama2");
  CHECK(doc["remat_policy"] == "full");
  CHECK(doc["compile_topology"] == "");
  CHECK(doc["logits_via_embedding"] == false);
  CHECK(doc["per_device_batch_size"].is_number_float());
  CHECK(doc["mesh_axes"] == Json::array({"data", "fsdp", "tensor"}));
  const Json& rules = doc["logical_axis_rules"];
  REQUIRE(rules.size() == 3);
  CHECK(rules[0] == Json::array({"circular_repeats", Json::array()}));
  CHECK(rules[1] == Json::array({"embed", Json::array({"fsdp", "tensor"})}));
  CHECK(rules[2] == Json::array({"exp", "expert"}));
  CHECK(doc["empty_value"].is_null());
  CHECK(doc["url"] == "http://x#y"); // '#' not after a space starts no comment
  // Order is kept as written.
  CHECK(doc.begin().key() == "base_emb_dim");
}

TEST_CASE("block lists, nested maps, compact maps in lists, flow maps, escapes", "[yaml]") {
  const std::string text = "outer:\n"
                           "  inner:\n"
                           "    a: 1\n"
                           "  list:\n"
                           "  - x\n"
                           "  - [1, 2]\n"
                           "  -\n"
                           "    - deep\n"
                           "  - name: n\n"
                           "    size: 3\n"
                           "flow: {a: 1, 'b c': [x, y], d: }\n"
                           "quotes: \"tab\\there \\u00e9\"\n"
                           "single: 'it''s'\n"
                           "top_list:\n"
                           "- 1\n"
                           "- two\n";
  const Json doc = parseYamlText(text, "t.yml");
  CHECK(doc["outer"]["inner"]["a"] == 1);
  const Json& list = doc["outer"]["list"];
  REQUIRE(list.size() == 4);
  CHECK(list[0] == "x");
  CHECK(list[1] == Json::array({1, 2}));
  CHECK(list[2] == Json::array({"deep"}));
  CHECK(list[3]["name"] == "n");
  CHECK(list[3]["size"] == 3);
  CHECK(doc["flow"]["a"] == 1);
  CHECK(doc["flow"]["b c"] == Json::array({"x", "y"}));
  CHECK(doc["flow"]["d"].is_null());
  CHECK(doc["quotes"] == "tab\there \xC3\xA9");
  CHECK(doc["single"] == "it's");
  CHECK(doc["top_list"] == Json::array({1, "two"}));
  CHECK(parseYamlText("", "empty.yml") == Json::object());
  CHECK(parseYamlText("# only a comment\n\n", "c.yml") == Json::object());
  CHECK(parseYamlText("---\na: 1\r\nb: 2\r\n", "crlf.yml") == Json({{"a", 1}, {"b", 2}}));
}

TEST_CASE("bad YAML names the file, line and column", "[yaml]") {
  // Columns are 1-based; the position is where the problem starts.
  CHECK_THROWS_WITH(parseYamlText("a: 1\nb: [x, y\n", "m.yml"), "m.yml:2:4: this '[' is never closed");
  CHECK_THROWS_WITH(parseYamlText("a: 1\nb: [x, y\nc: 2\n", "m.yml"),
                    "m.yml:3:1: expected ',' or ']' in a flow collection");
  CHECK_THROWS_WITH(parseYamlText("a: 1\na: 2\n", "m.yml"),
                    Catch::StartsWith("m.yml:2:1: the key 'a' is repeated (MaxText's loader, OmegaConf, refuses"));
  CHECK_THROWS_WITH(parseYamlText("a:\n  b: 1\n    c: 2\n", "m.yml"), "m.yml:3:5: unexpected indentation");
  CHECK_THROWS_WITH(parseYamlText("a: &x 1\n", "m.yml"), "m.yml:1:4: anchors (&) are not supported");
  CHECK_THROWS_WITH(parseYamlText("a: *x\n", "m.yml"), "m.yml:1:4: aliases (*) are not supported");
  CHECK_THROWS_WITH(parseYamlText("a: !!str 1\n", "m.yml"), "m.yml:1:4: tags (!) are not supported");
  CHECK_THROWS_WITH(parseYamlText("a: |\n  x\n", "m.yml"), "m.yml:1:4: block scalars (| and >) are not supported");
  CHECK_THROWS_WITH(parseYamlText("a: 'x\n", "m.yml"), "m.yml:1:4: a quoted string must end on its line");
  CHECK_THROWS_WITH(parseYamlText("a:\n\tb: 1\n", "m.yml"), "m.yml:2:1: a tab in indentation (use spaces)");
  CHECK_THROWS_WITH(parseYamlText("a: [x,, y]\n", "m.yml"),
                    "m.yml:1:7: an empty entry (two commas) in a flow collection");
  CHECK_THROWS_WITH(parseYamlText("a: [x] y\n", "m.yml"), "m.yml:1:8: unexpected text after the value");
  CHECK_THROWS_WITH(parseYamlText("a: b: c\n", "m.yml"), "m.yml:1:4: a map cannot start on the line of its key");
  CHECK_THROWS_WITH(parseYamlValue("a: b", "x"), "x: a ':' inside a value (quote the value) (column 2)");
  CHECK_THROWS_WITH(parseYamlText("a: 1\n---\nb: 2\n", "m.yml"),
                    "m.yml:2:1: more than one YAML document (only one is read)");
  CHECK_THROWS_WITH(parseYamlText("a: \"\\q\"\n", "m.yml"), "m.yml:1:6: an unknown escape in a double-quoted string");
}

TEST_CASE("YAML size and nesting are bounded", "[yaml]") {
  // 65 nested flow lists pass the 64-level bound; the error points at the 65th '['.
  const std::string deep = "a: " + std::string(100000, '[');
  CHECK_THROWS_WITH(parseYamlText(deep, "d.yml"), "d.yml:1:68: nests deeper than 64 levels");
  const std::string ok = "a: " + std::string(60, '[') + std::string(60, ']') + "\n";
  CHECK(parseYamlText(ok, "d.yml")["a"].is_array());
  std::string blockDeep;
  for (int i = 0; i < 100; ++i) blockDeep += std::string(static_cast<std::size_t>(i), ' ') + "k:\n";
  CHECK_THROWS_WITH(parseYamlText(blockDeep, "b.yml"), Catch::Contains("nests deeper than 64 levels"));
  const std::string big(kMaxYamlBytes + 1, ' ');
  CHECK_THROWS_WITH(parseYamlText(big, "big.yml"), Catch::StartsWith("big.yml: larger than 4 MiB"));
  std::string many = "a: [";
  for (std::size_t i = 0; i < kMaxYamlValues + 1; ++i) many += "1,";
  many += "]\n";
  CHECK_THROWS_WITH(parseYamlText(many, "many.yml"), Catch::Contains("holds more than 200000 values"));
}

TEST_CASE("an override value is read as YAML on one line", "[yaml]") {
  CHECK(parseYamlValue("4", "ici_tensor_parallelism") == 4);
  CHECK(parseYamlValue("-1", "ici_fsdp_parallelism") == -1);
  CHECK(parseYamlValue("v5p-256", "compile_topology") == "v5p-256");
  CHECK(parseYamlValue("0.5", "per_device_batch_size") == 0.5);
  CHECK(parseYamlValue("[['embed', 'fsdp'], ['mlp', ['tensor']]]", "logical_axis_rules") ==
        Json::array({Json::array({"embed", "fsdp"}), Json::array({"mlp", Json::array({"tensor"})})}));
  CHECK(parseYamlValue("'4'", "x") == "4");
  CHECK(parseYamlValue("", "x").is_null());
  CHECK_THROWS_WITH(parseYamlValue("[a, b", "logical_axis_rules"),
                    "logical_axis_rules: this '[' is never closed (column 1)");
}

TEST_CASE("YAML lines may end in a lone CR, and merge keys are refused rather than kept as a key", "[yaml]") {
  // Classic Mac OS line endings: three keys, not one line "a: 1\rb: 2\rc: x".
  const Json crOnly = parseYamlText("a: 1\rb: 2\rc: x\r", "m.yml");
  CHECK(crOnly.size() == 3);
  CHECK(crOnly["b"] == 2);
  CHECK(crOnly["c"] == "x");
  const Json mixed = parseYamlText("a: 1\r\nb: [1,\r 2]\n", "m.yml");
  CHECK(mixed["b"] == Json::array({1, 2}));
  // The position of a problem counts a lone CR as a line end.
  CHECK_THROWS_WITH(parseYamlText("a: 1\ra: 2\r", "m.yml"), Catch::StartsWith("m.yml:2:1: the key 'a' is repeated"));
  CHECK_THROWS_WITH(parseYamlText("a:\n  <<: {x: 1}\n", "m.yml"), "m.yml:2:3: merge keys (<<) are not supported");
  // Quoted, "<<" is an ordinary key.
  CHECK(parseYamlText("'<<': 1\n", "m.yml")["<<"] == 1);
  // A key=value override cannot smuggle a second line through a CR.
  CHECK_THROWS_WITH(parseYamlValue("1\rload_parameters_path: x", "ici_fsdp_parallelism"),
                    "ici_fsdp_parallelism: the value must be on one line");
}

TEST_CASE("YAML's named escapes in double quotes are the characters the YAML spec gives", "[yaml]") {
  // YAML 1.2 section 5.7: \N U+0085, \_ U+00A0, \L U+2028, \P U+2029, \e ESC, \a BEL, \v VT.
  const Json j = parseYamlText("a: \"x\\Ny\\_z\\L\\P\\e\\a\\v\\b\\f\"\n", "m.yml");
  CHECK(j["a"] == std::string("x\xC2\x85y\xC2\xA0z\xE2\x80\xA8\xE2\x80\xA9\x1b\a\v\b\f"));
}
