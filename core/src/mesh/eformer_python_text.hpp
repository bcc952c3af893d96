// SPDX-License-Identifier: Apache-2.0
// Internal: the few CPython text behaviours eformer's messages and parsers expose (str.strip's
// whitespace, repr of a str and of a list of str, int() of a str). Kept together so the mesh
// parser and its error texts agree with the reference byte for byte where it matters.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::pytext {

// str.strip() with no argument: removes the characters Python's str.isspace() accepts (ASCII
// and Unicode whitespace, UTF-8 encoded) from both ends.
std::string_view strip(std::string_view text);

// ASCII lower-casing, enough for matching the ASCII keywords eformer compares against.
std::string asciiLower(std::string_view text);

// repr() of a str: quotes chosen as CPython does, backslash escapes for quotes, backslashes and
// non-printable characters (ASCII controls, Latin-1 controls and the Unicode whitespace above).
std::string reprStr(std::string_view text);

// repr() of a list of str: "['dp', 'tp']".
std::string reprStrList(const std::vector<std::string>& items);

// int(text) for base 10: optional surrounding whitespace, an optional sign, decimal digits (ASCII
// or any Unicode Nd digit, as CPython) with single underscores between them. nullopt when Python would raise ValueError
// (the caller builds the message with invalidIntLiteral). Values outside int64 also give nullopt via `outOfRange`.
struct ParsedInt {
  std::optional<std::int64_t> value;
  bool out_of_range = false; // a valid literal too large for 64 bits
};
ParsedInt parseInt(std::string_view text);

// CPython's message for a bad int() literal, the repr cut to 200 characters as %.200R does.
std::string invalidIntLiteral(std::string_view text);

} // namespace shardscope::pytext
