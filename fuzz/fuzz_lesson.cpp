// SPDX-License-Identifier: Apache-2.0
// Fuzzes the lesson reader: JSON text -> a lesson -> each step applied to the default workspace;
// and the same bytes as a learner's answer to a question in each kind of unit. Must answer an
// Error or a value, never crash.
#include "shardscope/teaching/lesson_answers.hpp"
#include "shardscope/teaching/lessons.hpp"
#include "shardscope/base/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using shardscope::Json;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const char* unit : {"us", "GiB", "%"}) {
    try {
      const double v = shardscope::parseLessonAnswer(text, unit);
      if (!(v == v)) __builtin_trap(); // a number, never NaN
    } catch (const shardscope::Error&) {}
  }
  const Json parsed = Json::parse(data, data + size, nullptr, false);
  if (parsed.is_discarded()) return 0;
  try {
    const auto lesson = shardscope::lessonFromJson(parsed, "fuzz", "fuzz.json");
    shardscope::Scenario s = shardscope::defaultScenario();
    for (const auto& step : lesson.steps) s = shardscope::applyLessonStep(s, step);
  } catch (const shardscope::Error&) {}
  return 0;
}
