// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/json_text.hpp"

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"

#include <unordered_set>
#include <vector>

namespace shardscope {

namespace {
// Maximum bracket depth outside strings; stops counting as soon as the limit is passed.
bool deeperThan(std::string_view text, int limit) {
  int depth = 0;
  bool inString = false, escaped = false;
  for (char c : text) {
    if (inString) {
      if (escaped)
        escaped = false;
      else if (c == '\\')
        escaped = true;
      else if (c == '"')
        inString = false;
      continue;
    }
    if (c == '"')
      inString = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') {
      --depth;
    }
  }
  return false;
}
} // namespace

namespace {
Json parseChecked(std::string_view text, std::string_view what, const Json::parser_callback_t& callback) {
  if (deeperThan(text, kMaxJsonDepth))
    throwValueError(std::string(what) + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  try {
    return Json::parse(text.begin(), text.end(), callback, true, false);
  } catch (const nlohmann::json::parse_error& e) {
    // nlohmann's text quotes the offending bytes, which may not be UTF-8; keep only the 1-based
    // position of the byte where parsing failed (end of input counts as one past the last byte).
    throwValueError(std::string(what) + " is not valid JSON (syntax error at byte " + std::to_string(e.byte) + ")");
  } catch (const nlohmann::json::out_of_range&) {
    throwValueError(std::string(what) + " is not valid JSON (a number is too large to represent)");
  }
}
} // namespace

Json parseJsonText(std::string_view text, std::string_view what) { return parseChecked(text, what, nullptr); }

Json parseJsonTextUniqueKeys(std::string_view text, std::string_view what) {
  // The keys seen so far in each object being read, innermost last: keys only ever belong to the
  // innermost open object.
  std::vector<std::unordered_set<std::string>> open;
  return parseChecked(text, what, [&](int, Json::parse_event_t event, Json& parsed) {
    switch (event) {
    case Json::parse_event_t::object_start:
      open.emplace_back();
      break;
    case Json::parse_event_t::object_end:
      open.pop_back();
      break;
    case Json::parse_event_t::key:
      if (!open.back().insert(parsed.get<std::string>()).second)
        throwValueError(std::string(what) + " names key " + shardscope::quoted(parsed.get<std::string>()) + " twice");
      break;
    default:
      break;
    }
    return true;
  });
}

std::string dumpJson(const Json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace shardscope
