// SPDX-License-Identifier: Apache-2.0
// One quoting function per language the app writes for people to run or load: every string that
// reaches generated Python or YAML goes through one of these, so a name holding a newline, a quote,
// a NUL or a Unicode line separator comes out as that name and nothing else (issue 31).
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope {

// A Python string literal that evaluates to `s`, as Python's repr() writes it: single quotes
// unless the text holds a single quote and no double quote; control characters as \n, \t, \r or
// \xNN. Valid UTF-8 passes through; a byte that is not valid UTF-8 becomes U+FFFD (Python source
// must be UTF-8).
std::string pythonStrRepr(std::string_view s);

// `s` made safe inside a `#` comment of Python source: one line, valid UTF-8. Control characters
// and the Unicode line breaks (U+0085, U+2028, U+2029) are written as \xNN / \uNNNN, invalid
// UTF-8 bytes as U+FFFD; everything else is kept, so the comment reads as the text.
std::string pythonCommentText(std::string_view s);

// A YAML double-quoted scalar that loads (PyYAML, OmegaConf, this project's reader) as `s`: the
// backslash and the double quote escaped, every character YAML does not allow raw (C0 and C1
// controls, DEL, U+FEFF, U+FFFE, U+FFFF) and the YAML 1.1 line breaks (\N, \L, \P) escaped;
// invalid UTF-8 bytes become U+FFFD.
std::string yamlQuoted(std::string_view s);

// `s` made safe inside a `#` comment of YAML: one line (as pythonCommentText, with YAML 1.1's
// line breaks U+0085, U+2028 and U+2029 escaped too).
std::string yamlCommentText(std::string_view s);

// `s` as one line a terminal shows as text: the same escaping as the comments (no control
// character, C1 CSI included, can start an escape sequence; no line break splits a table row).
std::string oneLineText(std::string_view s);

// Whether `s` is valid UTF-8: shortest-form sequences of Unicode scalar values only (what a
// Python str, and so a JAX axis name, can hold).
bool isValidUtf8(std::string_view s);

// Appends the UTF-8 encoding of the Unicode scalar value `cp` (the readers of escapes such as
// \xNN, \uNNNN and \UNNNNNNNN); the caller has checked that `cp` is one.
void appendUtf8(std::string& out, std::uint32_t cp);

} // namespace shardscope
