// SPDX-License-Identifier: Apache-2.0
// Fuzzes the workspace reader: JSON text -> Scenario must answer an Error or a value, never crash.
#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using shardscope::Json;
  const Json parsed = Json::parse(data, data + size, nullptr, false);
  if (parsed.is_discarded()) return 0;
  try {
    const auto scenario = shardscope::scenarioFromJson(parsed);
    (void)shardscope::scenarioToJson(scenario);
  } catch (const shardscope::Error&) {}
  return 0;
}
