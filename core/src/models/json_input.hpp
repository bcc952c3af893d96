// Internal: reading JSON that model files bring in (untrusted, possibly huge or hostile) and quoting
// bad values in error messages.
#pragma once

#include "shardscope/eval.hpp"

#include <filesystem>
#include <string>
#include <string_view>

namespace shardscope {

// Scalars are shown (cut to a readable length); lists and objects only by type, because they may be
// huge or nested deep enough that printing them would cost more than the message is worth.
inline std::string jsonRepr(const Json& value) {
  if (value.is_structured()) return value.is_array() ? "a list" : "an object";
  std::string text = value.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  constexpr std::size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// Depth of nested lists/objects we accept in model files. nlohmann's ordered_json copies values
// recursively when an object's storage grows, so a hostile file nested a few hundred thousand
// levels deep would overflow the stack while parsing; no real header nests more than 3 levels.
inline constexpr int kMaxJsonDepth = 64;

// Scans JSON text (strings and escapes skipped) and throws ValueError naming `source` when lists
// and objects nest deeper than kMaxJsonDepth. Run before parsing any file we did not write.
void requireShallowJson(std::string_view text, const std::string& source);

// Depth check, then parse; a syntax error becomes "<source>: <what> is not valid JSON (...)", or
// "<source>: not valid JSON (...)" when `what` is empty.
Json parseJsonText(std::string_view text, const std::string& source, const std::string& what = {});

// A JSON file of at most 100 MB, parsed as above; `source` (usually the file name) prefixes errors.
Json readJsonFile(const std::filesystem::path& file, const std::string& source);

} // namespace shardscope
