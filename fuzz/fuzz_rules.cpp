// SPDX-License-Identifier: Apache-2.0
// Fuzzes the regex rules: each input line is a pattern (Python `re` syntax); the set is compiled
// and matched against a few real parameter paths. The match-complexity limit must turn runaway
// backtracking into a ValueError well inside the fuzzer's 10 s timeout.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/partition_rules.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  std::vector<PartitionRule> rules;
  std::size_t start = 0;
  while (start <= text.size() && rules.size() < 16) {
    const std::size_t end = std::min(text.find('\n', start), text.size());
    rules.push_back({std::string(text.substr(start, end - start)), PartitionSpec::ofAxes({"fsdp", "tp"})});
    start = end + 1;
  }
  static const std::vector<std::string> paths{
      "model/layers/0/self_attn/q_proj/kernel",
      "model/embed_tokens/embedding",
      "lm_head/kernel",
      "model/layers/31/mlp/experts/7/down_proj/kernel",
      std::string(200, 'a') + "/" + std::string(200, 'b') + "!",
  };
  try {
    const RuleSet set(std::move(rules));
    (void)set.firstMatches(paths);
    for (const auto& p : paths) (void)set.firstMatch(p);
  } catch (const Error&) {}
  return 0;
}
