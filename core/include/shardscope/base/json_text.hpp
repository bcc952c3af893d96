// SPDX-License-Identifier: Apache-2.0
// Parsing untrusted JSON text: one place that bounds nesting depth and the memory the parsed
// values take, and turns every parse failure into a ValueError naming what was being read.
#pragma once

#include "shardscope/base/json.hpp"

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace shardscope {

// Deeper than this is refused before parsing: real workspaces and requests nest fewer than 16
// levels, and a bound keeps recursive consumers (dump, destructors) safe.
inline constexpr int kMaxJsonDepth = 128;

// The most memory the values of one parsed document may take (estimated from each value's type
// and length as it is read, counting a container's spare capacity). A parsed value costs 2 to 10
// times its text (an empty object `{}`: 3 bytes of text, about 80 bytes parsed), so without this a
// 100 MB file of `[{},{},...]` took over 2 GB. 512 MB holds a model of about a million parameters
// in our JSON form; documented in docs/formats.md.
inline constexpr std::size_t kMaxJsonMemoryBytes = std::size_t{512} << 20;

// Parses `text`; throws ValueError("<what> is not valid JSON: ..."), ("<what> nests deeper than
// 128 levels"), ("<what> holds too many JSON values: ...") or ("<what> repeats the key 'k' in one
// object: ..."; parseJsonObjectMembers leaves the top-level object's keys to its sink). Error texts never contain the
// input's raw bytes, so they are always valid UTF-8.
Json parseJsonText(std::string_view text, std::string_view what);

// Receives one member (key, value) of a top-level object.
using JsonMemberSink = std::function<void(std::string&& key, Json&& value)>;

// Parses `text` like parseJsonText, but when the document is an object, hands each of its members
// to `sink` as soon as it is read, in order, repeated keys included, and keeps none of them: the
// memory bound applies to one member at a time (a safetensors header of a million tensors). The
// returned value is the document itself when it is not an object, else an empty object. A syntax
// error anywhere is reported first; otherwise the first exception `sink` threw is rethrown after
// parsing (the sink is not called again after it throws).
Json parseJsonObjectMembers(std::string_view text, std::string_view what, const JsonMemberSink& sink);

// Serialises for output; invalid UTF-8 inside strings is replaced instead of thrown on.
std::string dumpJson(const Json& json, int indent = -1);

} // namespace shardscope
