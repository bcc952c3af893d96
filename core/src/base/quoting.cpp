// SPDX-License-Identifier: Apache-2.0
// Quoting strings for generated Python and YAML (quoting.hpp).
#include "shardscope/base/quoting.hpp"

#include <cstdint>
#include <optional>

namespace shardscope {

namespace {

constexpr char kHex[] = "0123456789abcdef";

// The code point of the UTF-8 sequence at s[i] and its length; nullopt when the bytes there are
// not a valid, shortest-form sequence of a Unicode scalar value.
std::optional<std::pair<std::uint32_t, std::size_t>> decodeUtf8(std::string_view s, std::size_t i) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  if (b0 < 0x80) return std::pair{std::uint32_t{b0}, std::size_t{1}};
  std::size_t len = 0;
  std::uint32_t cp = 0, min = 0;
  if ((b0 & 0xE0) == 0xC0) {
    len = 2, cp = b0 & 0x1F, min = 0x80;
  } else if ((b0 & 0xF0) == 0xE0) {
    len = 3, cp = b0 & 0x0F, min = 0x800;
  } else if ((b0 & 0xF8) == 0xF0) {
    len = 4, cp = b0 & 0x07, min = 0x10000;
  } else {
    return std::nullopt;
  }
  if (i + len > s.size()) return std::nullopt;
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b & 0xC0) != 0x80) return std::nullopt;
    cp = (cp << 6) | (b & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return std::nullopt;
  return std::pair{cp, len};
}

void appendHex(std::string& out, const char* prefix, std::uint32_t cp, int digits) {
  out += prefix;
  for (int d = digits - 1; d >= 0; --d) out.push_back(kHex[(cp >> (4 * d)) & 15]);
}

// The escape of a code point that must not appear raw: \xNN below U+0100, \uNNNN above.
void appendEscape(std::string& out, std::uint32_t cp) {
  if (cp < 0x100)
    appendHex(out, "\\x", cp, 2);
  else
    appendHex(out, "\\u", cp, 4);
}

constexpr std::string_view kReplacement = "\xEF\xBF\xBD"; // U+FFFD

bool isLineBreak(std::uint32_t cp) { return cp == 0x85 || cp == 0x2028 || cp == 0x2029; }

// Walks `s` by code points (invalid bytes as U+FFFD, one byte each) and lets `put` write each.
template <typename Put>
std::string eachCodePoint(std::string_view s, Put put) {
  std::string out;
  out.reserve(s.size() + 2);
  for (std::size_t i = 0; i < s.size();) {
    const auto decoded = decodeUtf8(s, i);
    if (!decoded) {
      out += kReplacement;
      ++i;
      continue;
    }
    put(out, decoded->first, s.substr(i, decoded->second));
    i += decoded->second;
  }
  return out;
}

std::string commentText(std::string_view s) {
  return eachCodePoint(s, [](std::string& out, std::uint32_t cp, std::string_view raw) {
    if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xA0) || isLineBreak(cp) || cp == 0xFEFF)
      appendEscape(out, cp);
    else
      out += raw;
  });
}

} // namespace

std::string pythonStrRepr(std::string_view s) {
  const bool hasSingle = s.find('\'') != std::string_view::npos;
  const bool hasDouble = s.find('"') != std::string_view::npos;
  const char q = (hasSingle && !hasDouble) ? '"' : '\'';
  std::string body = eachCodePoint(s, [q](std::string& out, std::uint32_t cp, std::string_view raw) {
    if (cp == '\\')
      out += "\\\\";
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\t')
      out += "\\t";
    else if (cp == '\r')
      out += "\\r";
    else if (cp == static_cast<std::uint32_t>(q))
      out += std::string("\\") + q;
    else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xA0) || isLineBreak(cp)) // as repr: '\x01'
      appendEscape(out, cp);
    else
      out += raw;
  });
  return std::string(1, q) + body + q;
}

std::string pythonCommentText(std::string_view s) { return commentText(s); }

std::string yamlQuoted(std::string_view s) {
  std::string body = eachCodePoint(s, [](std::string& out, std::uint32_t cp, std::string_view raw) {
    if (cp == '\\')
      out += "\\\\";
    else if (cp == '"')
      out += "\\\"";
    else if (cp == '\n')
      out += "\\n";
    else if (cp == '\t')
      out += "\\t";
    else if (cp == '\r')
      out += "\\r";
    else if (cp == 0x85)
      out += "\\N";
    else if (cp == 0x2028)
      out += "\\L";
    else if (cp == 0x2029)
      out += "\\P";
    else if (cp < 0x20 || cp == 0x7f || (cp >= 0x80 && cp < 0xA0) || cp == 0xFEFF || cp == 0xFFFE || cp == 0xFFFF)
      appendEscape(out, cp);
    else
      out += raw;
  });
  return "\"" + body + "\"";
}

std::string yamlCommentText(std::string_view s) { return commentText(s); }

std::string oneLineText(std::string_view s) { return commentText(s); }

bool isValidUtf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const auto decoded = decodeUtf8(s, i);
    if (!decoded) return false;
    i += decoded->second;
  }
  return true;
}

void appendUtf8(std::string& out, std::uint32_t cp) {
  if (cp < 0x80) {
    out.push_back(static_cast<char>(cp));
  } else if (cp < 0x800) {
    out.push_back(static_cast<char>(0xC0 | (cp >> 6)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else if (cp < 0x10000) {
    out.push_back(static_cast<char>(0xE0 | (cp >> 12)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  } else {
    out.push_back(static_cast<char>(0xF0 | (cp >> 18)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 12) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | ((cp >> 6) & 0x3F)));
    out.push_back(static_cast<char>(0x80 | (cp & 0x3F)));
  }
}

} // namespace shardscope
