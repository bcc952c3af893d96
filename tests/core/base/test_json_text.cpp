// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/json_text.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>

using namespace shardscope;

TEST_CASE("deep nesting is refused before parsing", "[json]") {
  const std::string deep(100000, '[');
  CHECK_THROWS_WITH(parseJsonText(deep, "request"), "request nests deeper than 128 levels");
  const std::string ok = std::string(100, '[') + std::string(100, ']');
  CHECK(parseJsonText(ok, "request").is_array());
  // Brackets inside strings do not count.
  const std::string inString = "\"" + std::string(1000, '[') + "\"";
  CHECK(parseJsonText(inString, "request").is_string());
}

TEST_CASE("syntax errors name the byte and never echo raw input", "[json]") {
  CHECK_THROWS_WITH(parseJsonText("{\"a\": ", "workspace"), "workspace is not valid JSON (syntax error at byte 7)");
}

TEST_CASE("fuzz finding: invalid UTF-8 in a bad request answers a valid JSON line", "[json][regression]") {
  std::ifstream in(SHARDSCOPE_TEST_DATA "/fuzz-regressions/eval-invalid-utf8-in-parse-error.bin", std::ios::binary);
  REQUIRE(in);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  const std::string answer = evalLine(bytes);
  const Json parsed = Json::parse(answer); // must be valid JSON (and so valid UTF-8)
  CHECK(parsed["ok"] == false);
  CHECK(parsed["error"]["type"] == "ValueError");
}

TEST_CASE("fuzz finding: a number too large for a double answers an error", "[json][regression]") {
  CHECK_THROWS_WITH(parseJsonText("[1e999999]", "request"),
                    "request is not valid JSON (a number is too large to represent)");
  std::ifstream in(SHARDSCOPE_TEST_DATA "/fuzz-regressions/eval-number-overflow.bin", std::ios::binary);
  REQUIRE(in);
  const std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  CHECK(Json::parse(evalLine(bytes))["ok"] == false);
}
