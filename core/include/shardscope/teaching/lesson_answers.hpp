// SPDX-License-Identifier: Apache-2.0
// A learner's prediction for a lesson step (LessonPredict): read as a number with an optional unit
// ("23", "23 us", "23µs", "1.5 GiB", "40%"), then graded against the figure the app computed for
// the workspace the step made.
#pragma once

#include "shardscope/teaching/lessons.hpp"

#include <optional>
#include <string>
#include <string_view>

namespace shardscope {

// Units an answer may carry: seconds (s, ms, us, µs, ns), bytes (B, KB, MB, GB, TB, KiB, MiB, GiB,
// TiB) and fractions (%).
bool lessonAnswerUnitKnown(std::string_view unit);
std::string lessonAnswerUnits(); // the list, for messages

// The answer in base units (seconds, bytes, a fraction), read in `unit` when it names none; a unit of
// another kind than `unit`'s ("GiB" for a question in µs) is refused. ValueError says what is wrong.
double parseLessonAnswer(std::string_view text, std::string_view unit);

struct LessonGrade {
  bool right = false;
  double answer = 0, actual = 0; // base units
  std::string verdict;           // "Right: 23.3 us (yours: 23 us)." / "Not quite: 46.6 us; yours is 2.0x too small."
};
// Right when the answer is within the tolerance of the figure (relative; both 0 is right). `micro`
// spells microseconds in the verdict (formatSeconds: "us" for terminals, "µs" for the app).
LessonGrade gradeLessonAnswer(double answer, double actual, const LessonPredict& predict, const char* micro = "us");
// A figure of the predict's kind as the verdict shows it ("23.3 us", "1.5 GiB", "40%").
std::string lessonAnswerText(double value, const LessonPredict& predict, const char* micro = "us");

} // namespace shardscope
