// SPDX-License-Identifier: Apache-2.0
// Fuzzes the validation-suite reader: JSON text -> published runs -> the workspace each becomes.
// Must answer an Error or a value, never crash.
#include "shardscope/validation/validation.hpp"
#include "shardscope/base/errors.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using shardscope::Json;
  const Json parsed = Json::parse(data, data + size, nullptr, false);
  if (parsed.is_discarded()) return 0;
  try {
    for (const auto& run : shardscope::validationRunsFromJson(parsed, "fuzz.json")) {
      try {
        (void)shardscope::scenarioToJson(shardscope::runScenario(run));
      } catch (const shardscope::Error&) {}
    }
  } catch (const shardscope::Error&) {}
  return 0;
}
