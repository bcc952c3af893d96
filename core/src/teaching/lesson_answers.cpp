// SPDX-License-Identifier: Apache-2.0
#include "shardscope/teaching/lesson_answers.hpp"

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/units.hpp"

#include <array>
#include <cmath>
#include <cstdio>
#include <charconv>
#include <system_error>

namespace shardscope {

namespace {

enum class Kind { Time, Bytes, Fraction };
struct Unit {
  std::string_view name;
  Kind kind;
  double scale;
};
constexpr std::array<Unit, 15> kUnits{{
    {"s", Kind::Time, 1},
    {"ms", Kind::Time, 1e-3},
    {"us", Kind::Time, 1e-6},
    {"\xc2\xb5s", Kind::Time, 1e-6}, // µs
    {"ns", Kind::Time, 1e-9},
    {"B", Kind::Bytes, 1},
    {"KB", Kind::Bytes, 1e3},
    {"MB", Kind::Bytes, 1e6},
    {"GB", Kind::Bytes, 1e9},
    {"TB", Kind::Bytes, 1e12},
    {"KiB", Kind::Bytes, 1024.0},
    {"MiB", Kind::Bytes, 1024.0 * 1024},
    {"GiB", Kind::Bytes, 1024.0 * 1024 * 1024},
    {"TiB", Kind::Bytes, 1024.0 * 1024 * 1024 * 1024},
    {"%", Kind::Fraction, 0.01},
}};

const Unit* unitNamed(std::string_view name) {
  for (const auto& u : kUnits)
    if (u.name == name) return &u;
  return nullptr;
}

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t')) s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

std::string shown(double value, const Unit& unit, const char* micro) {
  if (unit.kind == Kind::Time) return formatSeconds(value, micro);
  if (unit.kind == Kind::Bytes) return formatBytes(value);
  return formatPercent(value);
}

} // namespace

bool lessonAnswerUnitKnown(std::string_view unit) { return unitNamed(unit) != nullptr; }

std::string lessonAnswerUnits() {
  std::string out;
  for (const auto& u : kUnits) out += (out.empty() ? "" : ", ") + std::string(u.name);
  return out;
}

double parseLessonAnswer(std::string_view text, std::string_view unit) {
  const Unit* asked = unitNamed(unit);
  if (!asked)
    throwValueError("unknown unit " + shardscope::quoted(std::string(unit)) + " (units: " + lessonAnswerUnits() + ")");
  const std::string_view t = trimmed(text);
  if (t.empty()) throwValueError("an answer is a number, optionally with a unit (" + std::string(unit) + ")");
  // from_chars, not strtod: the app runs under the user's locale, where "23.3" may not be a number.
  const std::string_view s = t.substr(0, 64);
  const std::string_view digits = s.substr(s.starts_with('+') ? 1 : 0);
  double v = 0;
  const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), v);
  if (error != std::errc() || end == digits.data() || !std::isfinite(v))
    throwValueError("an answer is a number, optionally with a unit (" + std::string(unit) + "), got " +
                    shardscope::quoted(std::string(s)));
  const std::string_view rest = trimmed(digits.substr(static_cast<std::size_t>(end - digits.data())));
  const Unit* given = rest.empty() ? asked : unitNamed(rest);
  if (!given)
    throwValueError("unknown unit " + shardscope::quoted(std::string(rest)) + " (units: " + lessonAnswerUnits() + ")");
  if (given->kind != asked->kind)
    throwValueError("the question asks in " + std::string(unit) + ", not in " + std::string(rest));
  return v * given->scale;
}

std::string lessonAnswerText(double value, const LessonPredict& predict, const char* micro) {
  const Unit* unit = unitNamed(predict.unit);
  return shown(value, unit ? *unit : kUnits[0], micro);
}

LessonGrade gradeLessonAnswer(double answer, double actual, const LessonPredict& predict, const char* micro) {
  LessonGrade g;
  g.answer = answer;
  g.actual = actual;
  if (actual == 0)
    g.right = answer == 0;
  else
    g.right = std::abs(answer / actual - 1) <= predict.tolerance;
  const std::string truth = lessonAnswerText(actual, predict, micro), yours = lessonAnswerText(answer, predict, micro);
  if (g.right) {
    g.verdict = "Right: " + truth + " (yours: " + yours + ").";
  } else if (answer > 0 && actual > 0) {
    const double ratio = answer > actual ? answer / actual : actual / answer;
    char buf[32];
    std::snprintf(buf, sizeof buf, "%.1fx", ratio);
    g.verdict =
        "Not quite: " + truth + "; yours (" + yours + ") is " + buf + (answer > actual ? " too large." : " too small.");
  } else {
    g.verdict = "Not quite: " + truth + " (yours: " + yours + ").";
  }
  return g;
}

} // namespace shardscope
