// SPDX-License-Identifier: Apache-2.0
#include "inspect/text_cursor.hpp"

#include <algorithm>

namespace shardscope::inspect_detail {

std::string textPosition(std::string_view text, std::string_view source, std::size_t pos) {
  pos = std::min(pos, text.size());
  std::size_t line = 1, lineStart = 0;
  for (std::size_t i = text.find('\n'); i != std::string_view::npos && i < pos; i = text.find('\n', i + 1)) {
    ++line;
    lineStart = i + 1;
  }
  return std::string(source) + ":" + std::to_string(line) + ":" + std::to_string(pos - lineStart + 1);
}

std::string TextCursor::where(std::size_t pos) const {
  if (!nested_) return textPosition(text_, source_, pos);
  return textPosition(outer_, source_, outerPos_) + " (column " + std::to_string(std::min(pos, text_.size()) + 1) +
         " of the quoted value)";
}

void TextCursor::failExpected(std::size_t pos, std::string_view expected) const {
  std::string got = "the end of the text";
  if (pos < text_.size()) {
    std::size_t n = 0;
    while (pos + n < text_.size() && n < 16 && !isSpace(text_[pos + n])) ++n;
    got = "'";
    for (char c : text_.substr(pos, std::max<std::size_t>(n, 1))) {
      const auto byte = static_cast<unsigned char>(c);
      if (byte < 0x20 || byte >= 0x7f) {
        constexpr char kHex[] = "0123456789abcdef";
        got += "\\x";
        got += kHex[byte >> 4];
        got += kHex[byte & 15];
      } else {
        got += c;
      }
    }
    got += "'";
  }
  throwValueError(where(pos) + ": expected " + std::string(expected) + ", got " + got);
}

void TextCursor::failAt(std::size_t pos, const std::string& why) const { throwValueError(where(pos) + ": " + why); }

namespace {

char closerOf(char open) {
  switch (open) {
  case '(':
    return ')';
  case '[':
    return ']';
  case '{':
    return '}';
  default:
    return '>';
  }
}

bool isOpener(char c, bool angles) { return c == '(' || c == '[' || c == '{' || (angles && c == '<'); }
bool isCloser(char c, bool angles) { return c == ')' || c == ']' || c == '}' || (angles && c == '>'); }

} // namespace

std::string_view TextCursor::skipBracketed(bool angles, bool stopAtSpace, bool stopAtComma) {
  const std::size_t start = pos_;
  std::string closers; // expected closers, innermost last
  const bool balanced = !stopAtSpace && !stopAtComma;
  while (pos_ < text_.size()) {
    const char c = text_[pos_];
    if (c == '"') {
      const std::size_t open = pos_++;
      while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
      if (pos_ >= text_.size()) failAt(open, "a string that is never closed");
      ++pos_;
      if (balanced && closers.empty()) break;
      continue;
    }
    const bool arrow = c == '>' && pos_ > 0 && text_[pos_ - 1] == '-';
    if (closers.empty() && !balanced) {
      if ((stopAtSpace && isSpace(c)) || (stopAtComma && c == ',')) break;
      if (isCloser(c, angles) && !arrow) break;
    }
    if (isOpener(c, angles)) {
      if (closers.size() >= kMaxNesting) failAt(pos_, "brackets nested deeper than " + std::to_string(kMaxNesting));
      closers.push_back(closerOf(c));
    } else if (isCloser(c, angles) && !arrow) {
      if (closers.empty() || closers.back() != c) {
        if (closers.empty()) failAt(pos_, std::string("a '") + c + "' that closes nothing");
        failAt(pos_, std::string("'") + c + "' where '" + closers.back() + "' closes the open bracket");
      }
      closers.pop_back();
      if (balanced && closers.empty()) {
        ++pos_;
        break;
      }
    }
    ++pos_;
  }
  if (!closers.empty()) failAt(start, std::string("a bracket that is never closed (missing '") + closers.back() + "')");
  return text_.substr(start, pos_ - start);
}

std::string_view TextCursor::skipBalanced(bool angles) {
  skipSpace();
  if (!isOpener(peek(), angles) && peek() != '"') fail("an opening bracket");
  return skipBracketed(angles, false, false);
}

std::string_view TextCursor::hloValue() {
  skipSpace();
  return skipBracketed(false, true, true);
}

std::string_view TextCursor::mlirValue() {
  skipSpace();
  const std::string_view v = skipBracketed(true, false, true);
  // Trailing spaces before the ',' or closer are not part of the value.
  std::size_t n = v.size();
  while (n > 0 && isSpace(v[n - 1])) --n;
  return v.substr(0, n);
}

std::string unescapeString(std::string_view s) {
  std::string out;
  out.reserve(s.size());
  auto hex = [](char c) -> int {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
  };
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] != '\\' || i + 1 >= s.size()) {
      out += s[i];
      continue;
    }
    const char e = s[i + 1];
    if (i + 2 < s.size() && hex(e) >= 0 && hex(s[i + 2]) >= 0) {
      out += static_cast<char>(hex(e) * 16 + hex(s[i + 2]));
      i += 2;
    } else {
      out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
      ++i;
    }
  }
  return out;
}

} // namespace shardscope::inspect_detail
