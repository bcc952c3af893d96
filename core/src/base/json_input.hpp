// SPDX-License-Identifier: Apache-2.0
// Internal: reading the JSON files users give (workspaces, model files, rule files) (untrusted, possibly huge or
// hostile) and quoting bad values in error messages. Parsing itself goes through parseJsonText (json_text.hpp), which
// bounds nesting depth (destructors and dump recurse) and the memory the parsed values take.
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/base/json_text.hpp"

#include <cstdint>
#include <filesystem>
#include <string>

namespace shardscope {

// Scalars are shown (cut to a readable length); lists and objects only by type, because they may be
// huge or nested deep enough that printing them would cost more than the message is worth.
inline std::string jsonRepr(const Json& value) {
  if (value.is_structured()) return value.is_array() ? "a list" : "an object";
  std::string text = dumpJson(value);
  constexpr std::size_t kMax = 60;
  if (text.size() > kMax) text = text.substr(0, kMax) + "...";
  return text;
}

// An integer >= 0 that fits in int64 (sizes, offsets); `what` names the value in errors, worded
// as the field reader words them (json_fields.hpp).
std::int64_t nonNegativeInt(const Json& value, const std::string& what);

// The largest JSON file read (a workspace, model or rule file): the same 100 MB safetensors allows
// for a header, so a model index of any real checkpoint fits.
inline constexpr std::uintmax_t kMaxJsonFileBytes = 100'000'000;

// A JSON file of at most kMaxJsonFileBytes; `source` (usually the file name) names it in errors.
Json readJsonFile(const std::filesystem::path& file, const std::string& source);

} // namespace shardscope
