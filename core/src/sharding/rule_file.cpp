// SPDX-License-Identifier: Apache-2.0
// Rule files: JSON [regex, spec] pairs, read with the same depth-bounded JSON parser as every other
// untrusted file, and rejected with a message naming the file, the rule index and the reason.
#include "shardscope/sharding/rule_file.hpp"

#include "base/json_input.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

namespace shardscope {

std::vector<PartitionRule> rulesFromJson(const Json& json, const std::string& source) {
  const Json* list = &json;
  if (json.is_object()) {
    auto it = json.find("rules");
    if (it == json.end()) throwValueError(source + ": missing key 'rules' (a list of [regex, spec] pairs)");
    list = &*it;
  }
  if (!list->is_array())
    throwValueError(source + ": 'rules' must be a list of [regex, spec] pairs, got " + jsonRepr(*list));
  if (list->size() > kMaxRuleFileRules)
    throwValueError(source + ": " + std::to_string(list->size()) + " rules is more than the limit of " +
                    std::to_string(kMaxRuleFileRules));
  std::vector<PartitionRule> rules;
  rules.reserve(list->size());
  for (std::size_t i = 0; i < list->size(); ++i) {
    const std::string where = "rules[" + std::to_string(i) + "]";
    const Json& r = (*list)[i];
    if (!r.is_array() || r.size() != 2)
      throwValueError(source + ": " + where + " must be a [regex, spec] pair, got " + jsonRepr(r));
    if (!r[0].is_string())
      throwValueError(source + ": " + where + "[0] (the regex) must be a string, got " + jsonRepr(r[0]));
    rules.push_back({r[0].get<std::string>(), PartitionSpec::fromJson(r[1], source + ": " + where + "[1]")});
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
