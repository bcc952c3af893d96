// SPDX-License-Identifier: Apache-2.0
// Parsing untrusted JSON text: one place that bounds nesting depth and turns every parse failure
// into a ValueError naming what was being read.
#pragma once

#include "shardscope/base/json.hpp"

#include <string_view>

namespace shardscope {

// Deeper than this is refused before parsing: real workspaces and requests nest fewer than 16
// levels, and a bound keeps recursive consumers (dump, destructors) safe.
inline constexpr int kMaxJsonDepth = 128;

// Parses `text`; throws ValueError("<what> is not valid JSON: ...") or ("<what> nests deeper than
// 128 levels"). Error texts never contain the input's raw bytes, so they are always valid UTF-8.
Json parseJsonText(std::string_view text, std::string_view what);

// As parseJsonText, but an object that names a key twice is refused instead of keeping the last
// value: "<what> names key 'w' twice" (a safetensors header listing one tensor twice is corrupt).
Json parseJsonTextUniqueKeys(std::string_view text, std::string_view what);

// Serialises for output; invalid UTF-8 inside strings is replaced instead of thrown on.
std::string dumpJson(const Json& json, int indent = -1);

} // namespace shardscope
