// SPDX-License-Identifier: Apache-2.0
// Fuzzes the standalone rule file format (rule_file.hpp): {"rules": [[regex, spec], ...]} or a bare
// list, then compiles and matches the rules it yields.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/rule_file.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  try {
    auto rules = parseRuleFile(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.rules.json");
    (void)rulesToJson(rules);
    const RuleSet set(std::move(rules));
    (void)set.firstMatch("model/layers/0/self_attn/q_proj/kernel");
  } catch (const Error&) {}
  return 0;
}
