// SPDX-License-Identifier: Apache-2.0
// The batch matcher evaluates a rule once per path with its index digits zeroed. These rules name
// digits in every way the classification distinguishes; the batch answers must equal a plain
// search of each path.
#include "shardscope/sharding/partition_rules.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("batch matching keeps the digits a rule names after a letter", "[partition_rules]") {
  const std::vector<std::string> patterns = {
      "experts[./]\\d+[./](w1|w3)[./]weight$", // digits after a letter: memoised with the digits kept
      "fc12\\.bias$",                          // a run of two after-letter digits
      "layers\\.1\\.",                         // a digit after a '.': evaluated on every path
      "_2$",                                   // after '_'
      "(a)3",                                  // after a group
      "x?4",                                   // after a quantifier
      "[5-6]x$",                               // in a class
      "\\d\\d\\.z$",                           // two-digit index, no digit named
      "block\\d+\\.y$",
  };
  std::vector<PartitionRule> rules;
  for (const auto& p : patterns) rules.push_back({p, PartitionSpec::ofAxes({"fsdp"})});
  const RuleSet set(rules);

  std::vector<std::string> paths;
  for (const char* prefix : {"layers.", "experts.", "h_", "block", "a", "x", "fc", "w"})
    for (const char* index : {"0", "1", "2", "3", "4", "5", "6", "7", "12", "21", "99", "100"})
      for (const char* tail :
           {".w1.weight", ".w2.weight", ".w3.weight", ".fc12.bias", ".fc13.bias", "", "x", ".z", ".y", ".2", "3", "4"})
        paths.push_back(std::string(prefix) + index + tail);
  const auto fast = set.firstMatches(paths);
  REQUIRE(fast.size() == paths.size());
  int hits = 0;
  for (std::size_t k = 0; k < paths.size(); ++k) {
    INFO(paths[k]);
    CHECK(fast[k] == set.firstMatch(paths[k]));
    hits += fast[k] >= 0 ? 1 : 0;
  }
  CHECK(hits > 100);                            // the rules do match
  CHECK(hits < static_cast<int>(paths.size())); // and do not match everything
  // Answers that differ only by a named digit.
  CHECK(set.firstMatch("experts.7.w1.weight") == 0);
  CHECK(set.firstMatch("experts.7.w2.weight") == -1);
  CHECK(set.firstMatch("experts.5.fc12.bias") == 1);
  CHECK(set.firstMatch("experts.5.fc13.bias") == -1);
}
