// SPDX-License-Identifier: Apache-2.0
#include "mesh/eformer_python_text.hpp"

#include <cstdio>

namespace shardscope::pytext {

namespace {

// One decoded character: its code point and byte length; a malformed byte decodes as itself
// (0x80..0xFF) with length 1 so nothing is ever skipped silently.
struct CodePoint {
  std::uint32_t value;
  std::size_t length;
};

CodePoint decodeAt(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return {b0, 1};
  std::size_t len = b0 >= 0xF0 ? 4 : b0 >= 0xE0 ? 3 : b0 >= 0xC0 ? 2 : 0;
  if (len == 0 || b0 > 0xF4 || i + len > s.size()) return {b0, 1};
  std::uint32_t v = b0 & (0xFFu >> (len + 1));
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return {b0, 1};
    v = (v << 6) | (b & 0x3Fu);
  }
  return {v, len};
}

// The code point ending at byte `end` (exclusive), scanning back over continuation bytes.
CodePoint decodeBefore(std::string_view s, std::size_t end) {
  std::size_t start = end - 1;
  while (start > 0 && end - start < 4 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  CodePoint cp = decodeAt(s, start);
  if (start + cp.length != end) return {static_cast<unsigned char>(s[end - 1]), 1};
  return cp;
}

// Python's str.isspace().
bool isPySpace(std::uint32_t c) {
  return (c >= 0x09 && c <= 0x0D) || (c >= 0x1C && c <= 0x20) || c == 0x85 || c == 0xA0 || c == 0x1680 ||
         (c >= 0x2000 && c <= 0x200A) || c == 0x2028 || c == 0x2029 || c == 0x202F || c == 0x205F || c == 0x3000;
}

// Python's str.isprintable(), for the characters that plausibly reach a mesh string: controls,
// separators other than the space, format characters and private use are not printable. (Other
// unassigned code points are printed as they are; the reference would escape them.)
bool isPyPrintable(std::uint32_t c) {
  if (c == 0x20) return true;
  if (c < 0x20 || (c >= 0x7F && c <= 0xA0) || c == 0xAD) return false;
  if (isPySpace(c)) return false;
  if ((c >= 0x200B && c <= 0x200F) || (c >= 0x202A && c <= 0x202E) || (c >= 0x2060 && c <= 0x206F)) return false;
  if (c == 0xFEFF || (c >= 0xFFF9 && c <= 0xFFFB) || (c >= 0xD800 && c <= 0xF8FF)) return false;
  return c < 0xF0000;
}

// The zero of every run of ten Unicode decimal digits (category Nd): int() reads them all, as
// CPython maps each to its ASCII digit before parsing.
constexpr std::uint32_t kDecimalZeros[] = {
    0x0030,  0x0660,  0x06F0,  0x07C0,  0x0966,  0x09E6,  0x0A66,  0x0AE6,  0x0B66,  0x0BE6,  0x0C66,  0x0CE6,
    0x0D66,  0x0DE6,  0x0E50,  0x0ED0,  0x0F20,  0x1040,  0x1090,  0x17E0,  0x1810,  0x1946,  0x19D0,  0x1A80,
    0x1A90,  0x1B50,  0x1BB0,  0x1C40,  0x1C50,  0xA620,  0xA8D0,  0xA900,  0xA9D0,  0xA9F0,  0xAA50,  0xABF0,
    0xFF10,  0x104A0, 0x10D30, 0x11066, 0x110F0, 0x11136, 0x111D0, 0x112F0, 0x11450, 0x114D0, 0x11650, 0x116C0,
    0x11730, 0x118E0, 0x11950, 0x11C50, 0x11D50, 0x11DA0, 0x11F50, 0x16A60, 0x16AC0, 0x16B50, 0x1D7CE, 0x1D7D8,
    0x1D7E2, 0x1D7EC, 0x1D7F6, 0x1E140, 0x1E2F0, 0x1E4F0, 0x1E950, 0x1FBF0,
};

// The value of a decimal digit code point, or -1.
int decimalValue(std::uint32_t c) {
  for (std::uint32_t zero : kDecimalZeros)
    if (c >= zero && c <= zero + 9) return static_cast<int>(c - zero);
  return -1;
}

void appendUtf8(std::string& out, std::string_view s, std::size_t i, std::size_t len) { out.append(s.substr(i, len)); }

std::string hexEscape(std::uint32_t c) {
  char buf[16];
  if (c < 0x100)
    std::snprintf(buf, sizeof buf, "\\x%02x", static_cast<unsigned>(c));
  else if (c < 0x10000)
    std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(c));
  else
    std::snprintf(buf, sizeof buf, "\\U%08x", static_cast<unsigned>(c));
  return buf;
}

} // namespace

std::string_view strip(std::string_view text) {
  std::size_t begin = 0, end = text.size();
  while (begin < end) {
    CodePoint cp = decodeAt(text, begin);
    if (!isPySpace(cp.value)) break;
    begin += cp.length;
  }
  while (end > begin) {
    CodePoint cp = decodeBefore(text, end);
    if (!isPySpace(cp.value)) break;
    end -= cp.length;
  }
  return text.substr(begin, end - begin);
}

std::string asciiLower(std::string_view text) {
  std::string out(text);
  for (char& ch : out)
    if (ch >= 'A' && ch <= 'Z') ch = static_cast<char>(ch - 'A' + 'a');
  return out;
}

std::string reprStr(std::string_view text) {
  // CPython: single quotes unless the text has a single quote and no double quote.
  const bool hasSingle = text.find('\'') != std::string_view::npos;
  const bool hasDouble = text.find('"') != std::string_view::npos;
  const char quote = hasSingle && !hasDouble ? '"' : '\'';
  std::string out(1, quote);
  for (std::size_t i = 0; i < text.size();) {
    CodePoint cp = decodeAt(text, i);
    const std::uint32_t c = cp.value;
    if (c == static_cast<std::uint32_t>(quote) || c == '\\') {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\t')
      out += "\\t";
    else if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (cp.length == 1 && c >= 0x80)
      out += hexEscape(c); // a malformed byte
    else if (!isPyPrintable(c))
      out += hexEscape(c);
    else
      appendUtf8(out, text, i, cp.length);
    i += cp.length;
  }
  out += quote;
  return out;
}

std::string reprStrList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) {
    if (i) out += ", ";
    out += reprStr(items[i]);
  }
  return out + "]";
}

ParsedInt parseInt(std::string_view text) {
  std::string_view s = strip(text);
  ParsedInt result;
  std::size_t i = 0;
  bool negative = false;
  if (i < s.size() && (s[i] == '+' || s[i] == '-')) negative = s[i++] == '-';
  if (i >= s.size()) return result;
  // Magnitude as unsigned so INT64_MIN parses; underscores only between two digits.
  std::uint64_t magnitude = 0;
  bool overflow = false, lastWasDigit = false;
  while (i < s.size()) {
    const CodePoint cp = decodeAt(s, i);
    i += cp.length;
    if (cp.value == '_') {
      if (!lastWasDigit) return result;
      lastWasDigit = false;
      continue;
    }
    const int digitValue = cp.length == 1 && cp.value >= 0x80 ? -1 : decimalValue(cp.value);
    if (digitValue < 0) return result;
    const auto digit = static_cast<std::uint64_t>(digitValue);
    if (magnitude > (UINT64_MAX - digit) / 10)
      overflow = true;
    else
      magnitude = magnitude * 10 + digit;
    lastWasDigit = true;
  }
  if (!lastWasDigit) return result; // empty digits or a trailing underscore
  const std::uint64_t limit = negative ? (std::uint64_t{1} << 63) : (std::uint64_t{1} << 63) - 1;
  if (overflow || magnitude > limit) {
    result.out_of_range = true;
    return result;
  }
  result.value = negative ? static_cast<std::int64_t>(0 - magnitude) : static_cast<std::int64_t>(magnitude);
  return result;
}

std::string invalidIntLiteral(std::string_view text) {
  std::string repr = reprStr(text);
  // %.200R keeps the first 200 characters (code points) of the repr.
  std::size_t bytes = 0, chars = 0;
  while (bytes < repr.size() && chars < 200) {
    bytes += decodeAt(repr, bytes).length;
    ++chars;
  }
  return "invalid literal for int() with base 10: " + repr.substr(0, bytes);
}

} // namespace shardscope::pytext
