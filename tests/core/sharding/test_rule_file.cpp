// SPDX-License-Identifier: Apache-2.0
// Rule files (rule_file.hpp): both accepted shapes, the round trip, and the file reader's limits.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;

TEST_CASE("rule file: object and bare list give the same rules", "[rule_file]") {
  const auto a = parseRuleFile(
      R"({"rules": [["embed/embedding", ["tp", null]], ["(q|k)_proj", [null, ["fsdp", "sp"]]], [".*", []]]})",
      "a.json");
  const auto b = parseRuleFile(
      R"([["embed/embedding", ["tp", null]], ["(q|k)_proj", [null, ["fsdp", "sp"]]], [".*", []]])", "b.json");
  REQUIRE(a.size() == 3);
  REQUIRE(b.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(a[i].pattern == b[i].pattern);
    CHECK(a[i].spec == b[i].spec);
  }
  CHECK(a[0].spec == PartitionSpec::ofAxes({"tp", ""}));
  CHECK(a[1].spec[1] == SpecEntry::tuple({"fsdp", "sp"}));
  CHECK(a[2].spec.empty());
  // The rules work as a RuleSet: first match wins.
  const RuleSet set{std::vector<PartitionRule>(a)};
  CHECK(set.firstMatch("model/embed/embedding") == 0);
  CHECK(set.firstMatch("layers/0/attn/k_proj/kernel") == 1);
  CHECK(set.firstMatch("lm_head/kernel") == 2);
}

TEST_CASE("rule file: rulesToJson reads back", "[rule_file]") {
  const auto rules = parseRuleFile(R"([["a.*b", [null, "tp"]], ["x", [{"unconstrained": true}]]])", "r.json");
  const Json written = rulesToJson(rules);
  CHECK(written == Json::parse(R"({"rules": [["a.*b", [null, "tp"]], ["x", [{"unconstrained": true}]]]})"));
  const auto back = rulesFromJson(written, "r.json");
  REQUIRE(back.size() == 2);
  CHECK(back[1].spec[0].kind == SpecEntry::Kind::Unconstrained);
}

TEST_CASE("rule file: loadRuleFile names the file and the rule", "[rule_file]") {
  const auto dir = std::filesystem::temp_directory_path() / ("shardscope-rule-file-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "good.rules.json") << R"({"rules": [[".*", []]]})";
  std::ofstream(dir / "bad.rules.json") << R"({"rules": [[".*", []], [".*", "tp"]]})";
  CHECK(loadRuleFile(dir / "good.rules.json").size() == 1);
  REQUIRE_THROWS_WITH(loadRuleFile(dir / "bad.rules.json"), Catch::Matchers::StartsWith("bad.rules.json: rules[1][1]"));
  REQUIRE_THROWS_WITH(loadRuleFile(dir / "missing.rules.json"),
                      Catch::Matchers::StartsWith("missing.rules.json: cannot read file ("));
  std::filesystem::remove_all(dir);
}

TEST_CASE("rule file: more than 10000 rules is refused", "[rule_file]") {
  Json list = Json::array();
  for (std::size_t i = 0; i <= kMaxRuleFileRules; ++i) list.push_back(Json::array({".*", Json::array()}));
  REQUIRE_THROWS_WITH(rulesFromJson(list, "big.json"),
                      Catch::Matchers::Equals("big.json: 10001 rules is more than the limit of 10000"));
  list.erase(list.size() - 1);
  CHECK(rulesFromJson(list, "ok.json").size() == kMaxRuleFileRules);
}
