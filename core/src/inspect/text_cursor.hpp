// SPDX-License-Identifier: Apache-2.0
// Internal: one cursor over a whole text for the inspect readers (HLO, StableHLO, OOM reports).
// Everything is a view into the text: no copy per line or per token, so a 20 MB module is read in
// one linear pass. Errors name "<source>:<line>:<column>" (counted from 1; the line is found only
// when an error is thrown). A cursor over a string unescaped out of the text (a Shardy attribute in
// a `\22`-escaped frontend attribute) reports the position of that string in the outer text.
#pragma once

#include "shardscope/base/errors.hpp"

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope::inspect_detail {

// Nesting of brackets the skippers follow; deeper text is refused (no recursion is involved, the
// bound keeps hostile input from growing the closer stack without end).
inline constexpr std::size_t kMaxNesting = 1024;

inline bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }
inline bool isDigit(char c) { return c >= '0' && c <= '9'; }
inline bool isAlpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
// Characters of an HLO or MLIR name: letters, digits, '_', '.', '-' ("all-gather-start.2", "Arg_0.1").
inline bool isNameChar(char c) { return isAlpha(c) || isDigit(c) || c == '_' || c == '.' || c == '-' || c == '$'; }

class TextCursor {
public:
  // `source` names the text in messages (a file name); `outer`/`outerPos`: see the file comment.
  TextCursor(std::string_view text, std::string_view source) : text_(text), source_(source) {}
  TextCursor(std::string_view text, std::string_view source, std::string_view outer, std::size_t outerPos)
      : text_(text), source_(source), outer_(outer), outerPos_(outerPos), nested_(true) {}

  std::string_view text() const { return text_; }
  std::string_view source() const { return source_; }
  std::size_t pos() const { return pos_; }
  void seek(std::size_t pos) { pos_ = pos < text_.size() ? pos : text_.size(); }
  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  void advance(std::size_t n = 1) { pos_ = pos_ + n < text_.size() ? pos_ + n : text_.size(); }
  bool startsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }

  // Whitespace, `// ...` line comments and `/* ... */` block comments (HLO writes /*index=5*/).
  void skipSpace() {
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (isSpace(c)) {
        ++pos_;
      } else if (c == '/' && peek(1) == '/') {
        const auto eol = text_.find('\n', pos_);
        pos_ = eol == std::string_view::npos ? text_.size() : eol + 1;
      } else if (c == '/' && peek(1) == '*') {
        const auto end = text_.find("*/", pos_ + 2);
        if (end == std::string_view::npos) failAt(pos_, "a /* comment that is never closed");
        pos_ = end + 2;
      } else {
        return;
      }
    }
  }
  // Spaces and tabs only: stays on the line.
  void skipBlanks() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\t' || text_[pos_] == '\r')) ++pos_;
  }
  char next() {
    skipSpace();
    return peek();
  }
  bool accept(std::string_view token) {
    skipSpace();
    if (!startsWith(token)) return false;
    pos_ += token.size();
    return true;
  }
  // A keyword: `token` not followed by a name character.
  bool acceptWord(std::string_view word) {
    skipSpace();
    if (!startsWith(word) || isNameChar(peek(word.size()))) return false;
    pos_ += word.size();
    return true;
  }
  void expect(std::string_view token, std::string_view what) {
    if (!accept(token)) fail(what);
  }
  // A run of name characters (possibly empty), after an optional '%' when `percent`.
  std::string_view name(bool percent = false) {
    skipSpace();
    if (percent && peek() == '%') ++pos_;
    const std::size_t start = pos_;
    while (pos_ < text_.size() && isNameChar(text_[pos_])) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // A non-negative decimal integer below `limit`.
  std::int64_t integer(std::int64_t limit, std::string_view what) {
    skipSpace();
    const std::size_t start = pos_;
    if (!isDigit(peek())) fail(what);
    std::int64_t value = 0;
    while (pos_ < text_.size() && isDigit(text_[pos_])) {
      const int digit = text_[pos_] - '0';
      // value * 10 + digit >= limit, asked without overflowing.
      if (value > (limit - 1 - digit) / 10) failAt(start, std::string(what) + " below " + std::to_string(limit));
      value = value * 10 + digit;
      ++pos_;
    }
    return value;
  }
  // An optionally negative integer with magnitude below `limit`.
  std::int64_t signedInteger(std::int64_t limit, std::string_view what) {
    const bool negative = accept("-");
    const std::int64_t v = integer(limit, what);
    return negative ? -v : v;
  }
  // A "..." string with backslash escapes; returns the text between the quotes, escapes kept.
  std::string_view quoted(std::string_view what) {
    skipSpace();
    if (peek() != '"') fail(what);
    const std::size_t start = ++pos_;
    while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
    if (pos_ >= text_.size()) failAt(start - 1, "a string that is never closed");
    return text_.substr(start, pos_++ - start);
  }

  // From an opening bracket at pos(), past its matching closer. Quoted strings and comments are
  // skipped whole. `angles`: '<' and '>' nest too (MLIR types and attributes; "->" is not a
  // closer). Returns the text from the opener to the closer, both included.
  std::string_view skipBalanced(bool angles);
  // An HLO attribute value: a run of characters up to whitespace, ',' or an unmatched closer at
  // depth 0, with bracketed groups and strings taken whole ("{...}", "[2,4]<=[8]T(1,0)", "\"..\"").
  std::string_view hloValue();
  // An MLIR attribute value: up to ',' or an unmatched closer at depth 0 (spaces allowed:
  // "0 : i32", "#sdy.sharding<@mesh, [{}]>").
  std::string_view mlirValue();

  [[noreturn]] void fail(std::string_view expected) const { failExpected(pos_, expected); }
  // "expected <what>, got '<text at pos>'"
  [[noreturn]] void failExpected(std::size_t pos, std::string_view expected) const;
  // "<why>" at pos.
  [[noreturn]] void failAt(std::size_t pos, const std::string& why) const;
  // "<source>:<line>:<column>" of a position (of the outer position for a nested cursor).
  std::string where(std::size_t pos) const;

private:
  std::string_view text_;
  std::string_view source_;
  std::string_view outer_;
  std::size_t outerPos_ = 0;
  bool nested_ = false;
  std::size_t pos_ = 0;

  std::string_view skipBracketed(bool angles, bool stopAtSpace, bool stopAtComma);
};

// "<source>:<line>:<column>" of `pos` in `text`.
std::string textPosition(std::string_view text, std::string_view source, std::size_t pos);

// A string's escapes resolved: MLIR's `\22` (hex byte) and `\"`, `\\`, `\n`, `\t`. Bounded by the
// input's size.
std::string unescapeString(std::string_view escaped);

} // namespace shardscope::inspect_detail
