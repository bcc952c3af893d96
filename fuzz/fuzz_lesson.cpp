// SPDX-License-Identifier: Apache-2.0
// Fuzzes the lesson reader: JSON text -> a lesson -> each step applied to the default workspace.
// Must answer an Error or a value, never crash.
#include "shardscope/teaching/lessons.hpp"
#include "shardscope/base/errors.hpp"

#include <cstddef>
#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using shardscope::Json;
  const Json parsed = Json::parse(data, data + size, nullptr, false);
  if (parsed.is_discarded()) return 0;
  try {
    const auto lesson = shardscope::lessonFromJson(parsed, "fuzz", "fuzz.json");
    shardscope::Scenario s = shardscope::defaultScenario();
    for (const auto& step : lesson.steps) s = shardscope::applyLessonStep(s, step);
  } catch (const shardscope::Error&) {}
  return 0;
}
