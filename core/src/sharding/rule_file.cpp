// SPDX-License-Identifier: Apache-2.0
// Rule files: JSON [regex, spec] pairs, read with the same depth-bounded JSON parser as every other
// untrusted file, and rejected with a message naming the file, the rule index and the reason.
#include "shardscope/sharding/rule_file.hpp"

#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/json_text.hpp"

namespace shardscope {

std::vector<PartitionRule> rulesFromJson(const Json& json, const std::string& source) {
  const JsonField root = fileFields(json, source, "");
  JsonField list = root.renamed("rules"); // the bare list form
  if (json.is_object()) {
    root.checkKeys({"rules"});
    list = root["rules"];
  }
  const Json& pairs = list.toArray("a list of [regex, spec] pairs");
  if (pairs.size() > kMaxRuleFileRules)
    throwValueError(source + ": " + std::to_string(pairs.size()) + " rules is more than the limit of " +
                    std::to_string(kMaxRuleFileRules));
  std::vector<PartitionRule> rules;
  rules.reserve(pairs.size());
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const JsonField rule = list[i];
    if (!pairs[i].is_array() || pairs[i].size() != 2)
      rule.fail("must be a [regex, spec] pair, got " + jsonRepr(pairs[i]));
    rules.push_back(
        {rule[0].annotated("the regex").toString(), PartitionSpec::fromJson(pairs[i][1], rule[1].subject())});
  }
  return rules;
}

std::vector<PartitionRule> parseRuleFile(std::string_view text, const std::string& source) {
  return rulesFromJson(parseJsonText(text, source), source);
}

std::vector<PartitionRule> loadRuleFile(const std::filesystem::path& file) {
  const std::string source = file.filename().string();
  return rulesFromJson(readJsonFile(file, source), source);
}

Json rulesToJson(const std::vector<PartitionRule>& rules) {
  Json list = Json::array();
  for (const auto& r : rules) list.push_back(Json::array({r.pattern, r.spec.toJson()}));
  return Json{{"rules", std::move(list)}};
}

} // namespace shardscope
