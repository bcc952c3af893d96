// SPDX-License-Identifier: Apache-2.0
// The quoting functions for generated Python and YAML: expected texts written by hand from Python's
// repr() and the YAML 1.2 spec's double-quoted escapes (section 5.7).
#include "shardscope/base/py_value.hpp"
#include "shardscope/base/quoting.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <catch2/catch.hpp>

#include <cstdint>
#include <string>

using namespace shardscope;

TEST_CASE("pythonStrRepr writes what Python's repr() writes", "[quoting]") {
  CHECK(pythonStrRepr("dp") == "'dp'");
  CHECK(pythonStrRepr("dp\nimport os") == "'dp\\nimport os'");
  CHECK(pythonStrRepr("it's") == "\"it's\"");
  CHECK(pythonStrRepr("a'b\"c") == "'a\\'b\"c'");
  CHECK(pythonStrRepr(std::string("n\0l", 3)) == "'n\\x00l'");
  CHECK(pythonStrRepr("\x1b[31m") == "'\\x1b[31m'");
  CHECK(pythonStrRepr("back\\slash\r\t") == "'back\\\\slash\\r\\t'");
  // repr('\u2028') and repr('\x85') escape them; 'é' stays as it is.
  CHECK(pythonStrRepr("a\xE2\x80\xA8"
                      "b") == "'a\\u2028b'");
  CHECK(pythonStrRepr("\xC2\x85") == "'\\x85'");
  CHECK(pythonStrRepr("caf\xC3\xA9") == "'caf\xC3\xA9'");
  // Bytes that are not UTF-8 cannot be in Python source: U+FFFD stands for each.
  CHECK(pythonStrRepr("x\xff") == "'x\xEF\xBF\xBD'");
}

TEST_CASE("comment text stays on its line in Python and YAML", "[quoting]") {
  CHECK(pythonCommentText("dp\nimport os") == "dp\\x0aimport os");
  CHECK(pythonCommentText("a\rb") == "a\\x0db");
  CHECK(yamlCommentText("x\xE2\x80\xA8y\xE2\x80\xA9z\xC2\x85") == "x\\u2028y\\u2029z\\x85");
  CHECK(yamlCommentText("plain text, caf\xC3\xA9") == "plain text, caf\xC3\xA9");
}

TEST_CASE("yamlQuoted writes a double-quoted scalar that loads as the text", "[quoting]") {
  CHECK(yamlQuoted("data") == "\"data\"");
  CHECK(yamlQuoted("a\"b\\c") == "\"a\\\"b\\\\c\"");
  CHECK(yamlQuoted("x\nload_parameters_path: gs://a") == "\"x\\nload_parameters_path: gs://a\"");
  CHECK(yamlQuoted("\xE2\x80\xA8\xE2\x80\xA9\xC2\x85") == "\"\\L\\P\\N\"");
  CHECK(yamlQuoted(std::string("\0\x7f", 2)) == "\"\\x00\\x7f\"");
  CHECK(yamlQuoted("\xEF\xBB\xBF") == "\"\\ufeff\"");
  // Each loads back as the text through this project's reader.
  for (const std::string text : {std::string("x\n: y # z"), std::string("'\"\\"), std::string("\xE2\x80\xA8\xC2\x85"),
                                 std::string("tab\there"), std::string("\x01\x1f\x7f"), std::string("caf\xC3\xA9")}) {
    INFO(text);
    CHECK(parseYamlValue(yamlQuoted(text), "v") == text);
  }
}

TEST_CASE("isValidUtf8 accepts shortest-form scalar values only, and appendUtf8 writes them", "[quoting]") {
  CHECK(isValidUtf8("fsdp"));
  CHECK(isValidUtf8("\xC3\xA9\xE2\x80\xA8\xF0\x9F\x98\x80")); // é, U+2028, U+1F600
  CHECK_FALSE(isValidUtf8("\xff"));
  CHECK_FALSE(isValidUtf8("\xC0\xAF"));         // an overlong '/'
  CHECK_FALSE(isValidUtf8("\xED\xA0\x80"));     // the surrogate U+D800
  CHECK_FALSE(isValidUtf8("\xE2\x80"));         // cut short
  CHECK_FALSE(isValidUtf8("\xF4\x90\x80\x80")); // beyond U+10FFFF
  std::string out;
  for (const std::uint32_t cp : {0x41U, 0xE9U, 0x2028U, 0x1F600U}) appendUtf8(out, cp);
  CHECK(out == "A\xC3\xA9\xE2\x80\xA8\xF0\x9F\x98\x80");
}
