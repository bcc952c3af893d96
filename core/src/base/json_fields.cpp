// SPDX-License-Identifier: Apache-2.0
// The shared JSON field reader: paths, typed getters and their messages, unknown-key checks with a
// "did you mean" suggestion.
#include "shardscope/base/json_fields.hpp"

#include "base/json_input.hpp"
#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <unordered_set>

namespace shardscope {

namespace {

char lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }

// Optimal string alignment distance (Levenshtein plus swaps of neighbours), case-insensitive,
// stopping early once every entry of a row exceeds `limit`.
std::size_t editDistance(std::string_view a, std::string_view b, std::size_t limit) {
  const std::size_t n = a.size(), m = b.size();
  if ((n > m ? n - m : m - n) > limit) return limit + 1;
  std::vector<std::size_t> prev2(m + 1), prev(m + 1), row(m + 1);
  for (std::size_t j = 0; j <= m; ++j) prev[j] = j;
  for (std::size_t i = 1; i <= n; ++i) {
    row[0] = i;
    std::size_t best = row[0];
    for (std::size_t j = 1; j <= m; ++j) {
      const bool same = lower(a[i - 1]) == lower(b[j - 1]);
      row[j] = std::min({prev[j] + 1, row[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
      if (i > 1 && j > 1 && lower(a[i - 1]) == lower(b[j - 2]) && lower(a[i - 2]) == lower(b[j - 1]))
        row[j] = std::min(row[j], prev2[j - 2] + 1);
      best = std::min(best, row[j]);
    }
    if (best > limit) return limit + 1;
    prev2.swap(prev);
    prev.swap(row);
  }
  return prev[m];
}

bool fitsInt(std::int64_t v) { return v >= std::numeric_limits<int>::min() && v <= std::numeric_limits<int>::max(); }

// A range narrow enough to state both ends ("between 0 and 2") rather than a kind of integer.
bool narrow(IntRange r) {
  return r.min != std::numeric_limits<std::int64_t>::min() && r.max >= r.min &&
         static_cast<std::uint64_t>(r.max) - static_cast<std::uint64_t>(r.min) <= 64;
}

std::string knownList(const std::vector<std::string_view>& names) {
  std::string out;
  for (auto name : names) {
    if (!out.empty()) out += ", ";
    out += name;
  }
  return out;
}

} // namespace

std::string numberText(double value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof buffer, value);
  return std::string(buffer, result.ptr);
}

std::string describeIntRange(IntRange r) {
  if (narrow(r)) return "an integer between " + std::to_string(r.min) + " and " + std::to_string(r.max);
  if (r.min == 1) return "a positive integer";
  if (r.min == 0) return "a non-negative integer";
  if (r.min == std::numeric_limits<std::int64_t>::min()) return "an integer";
  return "an integer of at least " + std::to_string(r.min);
}

std::string describeNumberRange(NumberRange r) {
  const bool hasMin = std::isfinite(r.min), hasMax = std::isfinite(r.max);
  if (!hasMin && !hasMax) return "a finite number";
  if (hasMin && !hasMax && r.min == 0) return r.min_open ? "a positive number" : "a non-negative number";
  if (hasMin && hasMax && !r.min_open && !r.max_open)
    return "a number between " + numberText(r.min) + " and " + numberText(r.max);
  std::string out = "a number";
  if (hasMin) out += (r.min_open ? " greater than " : " of at least ") + numberText(r.min);
  if (hasMin && hasMax) out += " and";
  if (hasMax) out += (r.max_open ? " less than " : (hasMin ? " at most " : " of at most ")) + numberText(r.max);
  return out;
}

std::string closestKey(std::string_view key, const std::vector<std::string_view>& known) {
  // Up to one edit for short names, two for medium, three for long ones; never a guess that
  // replaces every letter, and none for one or two letters ("v9" is not a misspelt "v2").
  if (key.size() < 3) return {};
  const std::size_t limit = key.size() <= 4 ? 1 : key.size() <= 8 ? 2 : 3;
  std::string_view best;
  std::size_t bestDistance = limit + 1;
  for (auto name : known) {
    const std::size_t d = editDistance(key, name, limit);
    if (d < bestDistance && d < std::max(key.size(), name.size())) {
      best = name;
      bestDistance = d;
    }
  }
  return std::string(best);
}

JsonField::JsonField(const Json& root, FieldStyle style, std::string source, std::string rootName)
    : value_(&root),
      document_(std::make_shared<const Document>(Document{style, std::move(source), std::move(rootName)})) {}

JsonField::JsonField(const Json* value, std::shared_ptr<const Document> document, std::string path)
    : value_(value), document_(std::move(document)), path_(std::move(path)) {}

JsonField JsonField::operator[](std::string_view key) const {
  const Json* child = nullptr;
  if (value_ && value_->is_object()) {
    auto it = value_->find(key);
    if (it != value_->end()) child = &*it;
  }
  std::string path = path_;
  if (!path.empty()) path.push_back('.');
  path.append(key);
  return JsonField(child, document_, std::move(path));
}

JsonField JsonField::operator[](std::size_t index) const {
  const Json* child = value_ && value_->is_array() && index < value_->size() ? &(*value_)[index] : nullptr;
  std::string path = path_;
  path.push_back('[');
  path.append(std::to_string(index));
  path.push_back(']');
  return JsonField(child, document_, std::move(path));
}

JsonField JsonField::annotated(std::string_view note) const {
  std::string path = path_;
  path.append(" (");
  path.append(note);
  path.push_back(')');
  return JsonField(value_, document_, std::move(path));
}

JsonField JsonField::renamed(std::string path) const { return JsonField(value_, document_, std::move(path)); }

const Json& JsonField::json() const {
  if (!value_) missing();
  return *value_;
}

std::string JsonField::subject() const {
  const Document& d = *document_;
  if (path_.empty()) return d.rootName.empty() ? d.source : d.rootName;
  if (d.style == FieldStyle::Quoted) return "field '" + path_ + "'";
  return d.source.empty() ? path_ : d.source + ": " + path_;
}

void JsonField::fail(std::string_view reason) const {
  std::string message = subject();
  message.push_back(' ');
  message.append(reason);
  throwValueError(message);
}

void JsonField::missing() const { fail("is missing"); }

void JsonField::wrong(std::string_view expected) const {
  std::string reason = "must be ";
  reason.append(expected);
  reason.append(", got ");
  reason.append(value_ ? jsonRepr(*value_) : "nothing");
  fail(reason);
}

std::int64_t JsonField::toInt(IntRange range) const {
  if (!present()) missing();
  const Json& v = *value_;
  const auto tooLarge = [&] {
    if (narrow(range)) wrong(describeIntRange(range));
    fail("must be at most " + std::to_string(range.max) + ", got " + jsonRepr(v));
  };
  std::int64_t x = 0;
  if (v.is_number_unsigned()) {
    const auto u = v.get<std::uint64_t>();
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) tooLarge();
    x = static_cast<std::int64_t>(u);
  } else if (v.is_number_integer()) {
    x = v.get<std::int64_t>();
  } else if (v.is_number_float() && range.whole_floats) {
    const double d = v.get<double>();
    if (!std::isfinite(d) || d != std::trunc(d)) wrong(describeIntRange(range));
    // Test the range before converting: casting an out-of-range double is undefined.
    if (d >= 0x1p63) tooLarge();
    if (d < -0x1p63) wrong(describeIntRange(range));
    x = static_cast<std::int64_t>(d);
  } else {
    wrong(describeIntRange(range));
  }
  if (x < range.min) wrong(describeIntRange(range));
  if (x > range.max) tooLarge();
  return x;
}

int JsonField::toInt32(IntRange range) const {
  range.min = std::max<std::int64_t>(range.min, std::numeric_limits<int>::min());
  range.max = std::min<std::int64_t>(range.max, std::numeric_limits<int>::max());
  const auto x = toInt(range);
  return fitsInt(x) ? static_cast<int>(x) : 0;
}

double JsonField::toNumber(NumberRange range) const {
  if (!present()) missing();
  const Json& v = *value_;
  if (!v.is_number()) wrong(describeNumberRange(range));
  const double x = v.get<double>();
  const bool below = range.min_open ? !(x > range.min) : !(x >= range.min);
  const bool above = range.max_open ? !(x < range.max) : !(x <= range.max);
  if (!std::isfinite(x) || below || above) wrong(describeNumberRange(range));
  return x;
}

bool JsonField::toBool() const {
  if (!present()) missing();
  if (!value_->is_boolean()) wrong("true or false");
  return value_->get<bool>();
}

std::string JsonField::toString() const {
  if (!present()) missing();
  if (!value_->is_string()) wrong("a string");
  return value_->get<std::string>();
}

std::string JsonField::toNonEmptyString() const {
  if (!present()) missing();
  if (!value_->is_string() || value_->get_ref<const std::string&>().empty()) wrong("a non-empty string");
  return value_->get<std::string>();
}

std::vector<std::string> JsonField::toStrings() const {
  const Json& list = toArray("a list of strings");
  std::vector<std::string> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) out.push_back((*this)[i].toString());
  return out;
}

std::vector<std::int64_t> JsonField::toInts(IntRange range) const {
  const Json& list = toArray("a list of integers");
  std::vector<std::int64_t> out;
  out.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& v = list[i];
    // The common case without building the element's path (parsed non-negative numbers are
    // unsigned).
    if (v.is_number_unsigned()) {
      const auto u = v.get<std::uint64_t>();
      if (u <= static_cast<std::uint64_t>(range.max) &&
          (range.min <= 0 || u >= static_cast<std::uint64_t>(range.min))) {
        out.push_back(static_cast<std::int64_t>(u));
        continue;
      }
    } else if (v.is_number_integer() && v.get<std::int64_t>() >= range.min && v.get<std::int64_t>() <= range.max) {
      out.push_back(v.get<std::int64_t>());
      continue;
    }
    out.push_back((*this)[i].toInt(range));
  }
  return out;
}

const Json& JsonField::toObject(std::string_view what) const {
  if (!present()) missing();
  if (!value_->is_object()) wrong(what);
  return *value_;
}

const Json& JsonField::toArray(std::string_view what) const {
  if (!present()) missing();
  if (!value_->is_array()) wrong(what);
  return *value_;
}

std::size_t JsonField::toChoice(const std::vector<std::string_view>& names) const {
  if (!present()) missing();
  if (value_->is_string()) {
    const auto& text = value_->get_ref<const std::string&>();
    for (std::size_t i = 0; i < names.size(); ++i)
      if (names[i] == text) return i;
    const std::string guess = closestKey(text, names);
    if (!guess.empty())
      fail("must be one of " + knownList(names) + ", got " + jsonRepr(*value_) + " (did you mean '" + guess + "'?)");
  }
  wrong("one of " + knownList(names));
}

std::int64_t JsonField::intOr(std::int64_t fallback, IntRange range) const {
  return present() ? toInt(range) : fallback;
}

double JsonField::numberOr(double fallback, NumberRange range) const { return present() ? toNumber(range) : fallback; }

bool JsonField::boolOr(bool fallback) const { return present() ? toBool() : fallback; }

std::string JsonField::stringOr(std::string fallback) const { return present() ? toString() : std::move(fallback); }

std::vector<std::string> JsonField::stringsOr(std::vector<std::string> fallback) const {
  return present() ? toStrings() : std::move(fallback);
}

std::optional<std::int64_t> JsonField::optionalInt(IntRange range) const {
  if (!present()) return std::nullopt;
  return toInt(range);
}

std::optional<double> JsonField::optionalNumber(NumberRange range) const {
  if (!present()) return std::nullopt;
  return toNumber(range);
}

std::optional<std::string> JsonField::optionalString() const {
  if (!present()) return std::nullopt;
  return toString();
}

void JsonField::checkKeys(const std::vector<std::string_view>& known) const {
  const Json& object = toObject();
  for (auto it = object.begin(); it != object.end(); ++it) {
    const std::string& key = it.key();
    if (std::find(known.begin(), known.end(), key) != known.end()) continue;
    const Document& d = *document_;
    std::string message = d.source.empty() || (path_.empty() && d.rootName.empty()) ? "" : d.source + ": ";
    message += "unknown key " + shardscope::quoted(key) + " in ";
    if (path_.empty())
      message += d.rootName.empty() ? d.source : d.rootName;
    else
      message += d.style == FieldStyle::Quoted ? "field '" + path_ + "'" : path_;
    const std::string guess = closestKey(key, known);
    message += guess.empty() ? " (known keys: " + knownList(known) + ")" : " (did you mean '" + guess + "'?)";
    throwValueError(message);
  }
}

void JsonField::checkUniqueStrings() const {
  const Json& list = toArray("a list of strings");
  std::unordered_set<std::string_view> seen;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string text = (*this)[i].toString();
    if (!seen.insert(list[i].get_ref<const std::string&>()).second)
      fail("lists " + shardscope::quoted(text) + " twice");
  }
}

} // namespace shardscope
