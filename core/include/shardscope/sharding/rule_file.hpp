// SPDX-License-Identifier: Apache-2.0
// A standalone regex rule file (docs/formats.md, "Rule files"): the [regex, spec] pairs eformer's
// match_partition_rules takes, saved on their own so they can be shared between workspaces.
//   {"rules": [["embed_tokens/embedding", ["tp", null]], [".*", []]]}   or the bare list.
// Each spec is PartitionSpec's JSON form. Patterns are only checked for being strings here; RuleSet
// compiles them (and names the rule whose pattern is invalid).
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/sharding/partition_rules.hpp"

#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// More rules than any real model needs; each one is a compiled regex tried on every parameter.
inline constexpr std::size_t kMaxRuleFileRules = 10'000;

// The rules of a parsed rule file; `source` names the file in ValueErrors, which also name the
// rule index ("rules.json: rules[2]: ...").
std::vector<PartitionRule> rulesFromJson(const Json& json, const std::string& source);
// Parses the text of a rule file (depth-bounded JSON), then rulesFromJson.
std::vector<PartitionRule> parseRuleFile(std::string_view text, const std::string& source);
// Reads a rule file (at most 100 MB) and parses it.
std::vector<PartitionRule> loadRuleFile(const std::filesystem::path& file);
// {"rules": [[regex, spec], ...]}: the form loadRuleFile reads back.
Json rulesToJson(const std::vector<PartitionRule>& rules);

} // namespace shardscope
