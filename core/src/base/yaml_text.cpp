// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/yaml_text.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/quoting.hpp"

#include "quoted_text.hpp"

#include <cerrno>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <optional>
#include <string>

namespace shardscope {

namespace {

// MaxText loads its configs with OmegaConf (since February 2025), which refuses a key written twice
// in one map; PyYAML alone, as older MaxText read them, kept the last.
constexpr const char* kRepeatedKeyNote =
    " (MaxText's loader, OmegaConf, refuses a key written twice; write each key once, or pass it as key=value)";

bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\r'; }

// Digits of `text` in `base`, `_` skipped (YAML 1.1 allows it anywhere after the first digit).
// Empty when a character is not a digit of the base or the value passes int64.
std::optional<std::int64_t> digitsValue(std::string_view text, int base) {
  if (text.empty()) return std::nullopt;
  std::uint64_t value = 0;
  bool any = false;
  for (char c : text) {
    if (c == '_') continue;
    int d = -1;
    if (isDigit(c))
      d = c - '0';
    else if (c >= 'a' && c <= 'f')
      d = c - 'a' + 10;
    else if (c >= 'A' && c <= 'F')
      d = c - 'A' + 10;
    if (d < 0 || d >= base) return std::nullopt;
    if (value > (std::uint64_t{1} << 62) / static_cast<std::uint64_t>(base)) return std::nullopt;
    value = value * static_cast<std::uint64_t>(base) + static_cast<std::uint64_t>(d);
    any = true;
  }
  if (!any) return std::nullopt;
  return static_cast<std::int64_t>(value);
}

bool allDigits(std::string_view text, bool underscores) {
  if (text.empty()) return false;
  for (char c : text)
    if (!isDigit(c) && !(underscores && c == '_')) return false;
  return true;
}

// PyYAML's int resolver (YAML 1.1): [-+]? then 0b..., 0[0-7_]+, 0|[1-9][0-9_]*, 0x..., or base 60
// ([1-9][0-9_]*(:[0-5]?[0-9])+).
std::optional<std::int64_t> yamlInt(std::string_view text) {
  std::int64_t sign = 1;
  if (!text.empty() && (text[0] == '-' || text[0] == '+')) {
    if (text[0] == '-') sign = -1;
    text.remove_prefix(1);
  }
  if (text.empty() || !isDigit(text[0])) return std::nullopt;
  std::optional<std::int64_t> value;
  if (text.size() > 2 && text[0] == '0' && text[1] == 'b')
    value = digitsValue(text.substr(2), 2);
  else if (text.size() > 2 && text[0] == '0' && text[1] == 'x')
    value = digitsValue(text.substr(2), 16);
  else if (text.size() > 1 && text[0] == '0')
    value = digitsValue(text.substr(1), 8);
  else if (text.find(':') != std::string_view::npos) {
    // Base 60: the first part as decimal, each later part 0..59.
    std::uint64_t total = 0;
    std::size_t start = 0;
    bool first = true;
    while (start <= text.size()) {
      const std::size_t end = std::min(text.find(':', start), text.size());
      const std::string_view part = text.substr(start, end - start);
      if (!allDigits(part, first)) return std::nullopt;
      const auto v = digitsValue(part, 10);
      if (!v || (!first && (part.size() > 2 || *v > 59))) return std::nullopt;
      if (total > (std::uint64_t{1} << 56)) return std::nullopt;
      total = total * (first ? 1 : 60) + static_cast<std::uint64_t>(*v);
      first = false;
      start = end + 1;
    }
    value = static_cast<std::int64_t>(total);
  } else if (allDigits(text, true))
    value = digitsValue(text, 10);
  if (!value) return std::nullopt;
  return sign * *value;
}

// OmegaConf's float resolver (it replaces PyYAML's, which needs a dot, so that `1e-5` is a float):
// [-+]? digits[_] . digits[_]* exponent?, [-+]? digits[_] exponent, [-+]? . digits[_] exponent?,
// [-+]? .inf, .nan (three cases each).
std::optional<double> yamlFloat(std::string_view text) {
  std::string_view body = text;
  bool negative = false;
  if (!body.empty() && (body[0] == '-' || body[0] == '+')) {
    negative = body[0] == '-';
    body.remove_prefix(1);
  }
  if (body == ".inf" || body == ".Inf" || body == ".INF")
    return negative ? -std::numeric_limits<double>::infinity() : std::numeric_limits<double>::infinity();
  if (text == ".nan" || text == ".NaN" || text == ".NAN") return std::numeric_limits<double>::quiet_NaN();
  std::size_t i = 0;
  const auto digitsRun = [&](bool underscores) {
    const std::size_t start = i;
    while (i < body.size() && (isDigit(body[i]) || (underscores && body[i] == '_' && i > start))) ++i;
    return i - start;
  };
  const std::size_t intDigits = digitsRun(true);
  bool dot = false;
  std::size_t fracDigits = 0;
  if (i < body.size() && body[i] == '.') {
    dot = true;
    ++i;
    fracDigits = digitsRun(true);
  }
  bool exponent = false;
  if (i < body.size() && (body[i] == 'e' || body[i] == 'E')) {
    ++i;
    if (i < body.size() && (body[i] == '-' || body[i] == '+')) ++i;
    if (digitsRun(false) == 0) return std::nullopt;
    exponent = true;
  }
  if (i != body.size()) return std::nullopt;
  if (intDigits == 0 && (!dot || fracDigits == 0)) return std::nullopt;
  if (intDigits > 0 && !dot && !exponent) return std::nullopt; // an int
  std::string clean;
  for (char c : text)
    if (c != '_') clean.push_back(c);
  errno = 0;
  const double value = std::strtod(clean.c_str(), nullptr);
  if (errno == ERANGE && std::isinf(value)) return std::nullopt; // too large: kept as text, reported by the reader
  return value;
}

} // namespace

Json yamlPlainScalar(std::string_view text) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") return nullptr;
  for (std::string_view t : {"true", "True", "TRUE", "yes", "Yes", "YES", "on", "On", "ON"})
    if (text == t) return true;
  for (std::string_view f : {"false", "False", "FALSE", "no", "No", "NO", "off", "Off", "OFF"})
    if (text == f) return false;
  if (const auto i = yamlInt(text)) return *i;
  if (const auto f = yamlFloat(text)) return *f;
  return std::string(text);
}

namespace {

// The reader: recursive descent over the whole text, block structure from columns. `pos_` is a
// byte offset; lines and columns are worked out only when an error is reported.
class YamlReader {
public:
  YamlReader(std::string_view text, std::string_view file, bool inlineValue)
      : text_(text), file_(file), inline_(inlineValue) {}

  Json document() {
    if (text_.size() >= 3 && text_.substr(0, 3) == "\xEF\xBB\xBF") pos_ = 3;
    skipBlankLines();
    if (startsWith("---") && (pos_ + 3 == text_.size() || isSpace(text_[pos_ + 3]) || text_[pos_ + 3] == '\n')) {
      pos_ += 3;
      skipSpacesAndComment();
      skipBlankLines();
    }
    if (atEnd()) return Json::object();
    Json value = blockNode(column(), 0);
    skipBlankLines();
    if (!atEnd()) {
      if (startsWith("---") || startsWith("...")) fail("more than one YAML document (only one is read)");
      fail("unexpected text after the document (check its indentation)");
    }
    return value;
  }

  Json value() {
    skipSpaces();
    if (atEnd()) return nullptr;
    Json v = inlineNode(0, false);
    skipSpaces();
    if (!atEnd()) fail("unexpected text after the value");
    return v;
  }

private:
  std::string_view text_;
  std::string_view file_;
  bool inline_ = false;
  std::size_t pos_ = 0;
  std::size_t values_ = 0;

  [[noreturn]] void fail(const std::string& what) const { failAt(pos_, what); }
  [[noreturn]] void failAt(std::size_t at, const std::string& what) const {
    at = std::min(at, text_.size());
    std::size_t line = 1, lineStart = 0;
    for (std::size_t i = 0; i < at; ++i)
      if (text_[i] == '\n') {
        ++line;
        lineStart = i + 1;
      }
    const std::size_t col = at - lineStart + 1;
    if (inline_) throwValueError(std::string(file_) + ": " + what + " (column " + std::to_string(col) + ")");
    throwValueError(std::string(file_) + ":" + std::to_string(line) + ":" + std::to_string(col) + ": " + what);
  }

  bool atEnd() const { return pos_ >= text_.size(); }
  char peek(std::size_t ahead = 0) const { return pos_ + ahead < text_.size() ? text_[pos_ + ahead] : '\0'; }
  bool startsWith(std::string_view s) const { return text_.substr(pos_, s.size()) == s; }
  bool atLineEnd() const { return atEnd() || peek() == '\n'; }

  // The column (0-based) of pos_ on its line.
  int column() const {
    std::size_t start = pos_;
    while (start > 0 && text_[start - 1] != '\n') --start;
    return static_cast<int>(pos_ - start);
  }

  void countValue() {
    if (++values_ > kMaxYamlValues) fail("holds more than " + std::to_string(kMaxYamlValues) + " values");
  }
  void checkDepth(int depth) const {
    if (depth > kMaxYamlDepth) fail("nests deeper than " + std::to_string(kMaxYamlDepth) + " levels");
  }

  void skipSpaces() {
    while (!atEnd() && isSpace(peek())) ++pos_;
  }
  // Spaces, then a comment to the end of the line; stops before the newline.
  void skipSpacesAndComment() {
    skipSpaces();
    if (peek() == '#')
      while (!atLineEnd()) ++pos_;
  }
  // From anywhere on a line: the rest of it must be blank or a comment; moves past blank and
  // comment-only lines and leaves pos_ at the first content character of the next line (its
  // indentation skipped) or at the end. Tabs in indentation are refused.
  void skipBlankLines() {
    for (;;) {
      skipSpacesAndComment();
      if (atEnd()) return;
      if (peek() != '\n') return;
      ++pos_;
      while (!atEnd() && peek() == ' ') ++pos_;
      if (peek() == '\t') {
        // A tab among the indentation of a line with content is an error; on a blank line it is fine.
        std::size_t p = pos_;
        while (p < text_.size() && isSpace(text_[p])) ++p;
        if (p < text_.size() && text_[p] != '\n' && text_[p] != '#') failAt(pos_, "a tab in indentation (use spaces)");
      }
    }
  }
  // After a complete value on a line: only spaces or a comment may follow.
  void expectLineEnd() {
    skipSpacesAndComment();
    if (!atLineEnd()) fail("unexpected text after the value");
  }

  // `---` or `...` at the start of a line: the end of this document.
  bool atDocumentMarker() const { return column() == 0 && (startsWith("---") || startsWith("...")); }

  bool isSeqEntry() const { return peek() == '-' && (pos_ + 1 >= text_.size() || isSpace(peek(1)) || peek(1) == '\n'); }

  // Whether the line from pos_ holds `key:` followed by a space or the line's end.
  bool looksLikeKey() const {
    std::size_t p = pos_;
    const char c = p < text_.size() ? text_[p] : '\0';
    if (c == '"' || c == '\'') {
      for (++p; p < text_.size() && text_[p] != '\n'; ++p) {
        if (c == '"' && text_[p] == '\\') {
          ++p;
          continue;
        }
        if (text_[p] == c) {
          if (c == '\'' && p + 1 < text_.size() && text_[p + 1] == '\'') {
            ++p;
            continue;
          }
          ++p;
          while (p < text_.size() && isSpace(text_[p])) ++p;
          return p < text_.size() && text_[p] == ':' &&
                 (p + 1 >= text_.size() || isSpace(text_[p + 1]) || text_[p + 1] == '\n');
        }
      }
      return false;
    }
    if (c == '[' || c == '{' || c == '#') return false;
    for (; p < text_.size() && text_[p] != '\n'; ++p) {
      if (text_[p] == '#' && p > pos_ && isSpace(text_[p - 1])) return false;
      if (text_[p] == ':' && (p + 1 >= text_.size() || isSpace(text_[p + 1]) || text_[p + 1] == '\n')) return true;
    }
    return false;
  }

  void refuseUnsupported() {
    switch (peek()) {
    case '&':
      fail("anchors (&) are not supported");
    case '*':
      fail("aliases (*) are not supported");
    case '!':
      fail("tags (!) are not supported");
    case '|':
    case '>':
      fail("block scalars (| and >) are not supported");
    case '@':
    case '`':
      fail("a plain value cannot start with '" + std::string(1, peek()) + "'");
    case '%':
      fail("directives (%) are not supported");
    default:
      return;
    }
  }

  // A node in block context starting at pos_, whose first line is at column `indent`.
  Json blockNode(int indent, int depth) {
    checkDepth(depth);
    if (isSeqEntry()) return blockSequence(indent, depth);
    if (looksLikeKey()) return blockMap(indent, depth);
    Json v = inlineNode(depth, false);
    expectLineEnd();
    skipBlankLines();
    return v;
  }

  // The value after `key:` or `- ` whose text starts on the next lines (or nowhere).
  Json nestedBlock(int parentIndent, bool sameIndentSequenceAllowed, int depth) {
    skipBlankLines();
    if (atEnd()) return nullptr;
    const int col = column();
    if (col > parentIndent) return blockNode(col, depth + 1);
    if (col == parentIndent && sameIndentSequenceAllowed && isSeqEntry()) return blockSequence(col, depth + 1);
    return nullptr;
  }

  Json blockMap(int indent, int depth) {
    checkDepth(depth);
    countValue();
    Json map = Json::object();
    for (;;) {
      const std::size_t keyAt = pos_;
      if (isSeqEntry()) fail("a list entry where a key of the map was expected");
      if (!looksLikeKey()) fail("expected 'key: value' in the map");
      std::string key;
      if (peek() == '"' || peek() == '\'')
        key = quoted();
      else {
        const std::size_t start = pos_;
        while (!(peek() == ':' && (isSpace(peek(1)) || peek(1) == '\n' || pos_ + 1 >= text_.size()))) ++pos_;
        std::size_t end = pos_;
        while (end > start && isSpace(text_[end - 1])) --end;
        key = std::string(text_.substr(start, end - start));
      }
      if (key == "<<" && text_[keyAt] == '<') failAt(keyAt, "merge keys (<<) are not supported");
      skipSpaces();
      ++pos_; // the ':'
      if (map.contains(key)) failAt(keyAt, "the key " + shardscope::quoted(key) + " is repeated" + kRepeatedKeyNote);
      skipSpacesAndComment();
      Json value;
      if (atLineEnd())
        value = nestedBlock(indent, true, depth);
      else {
        if (isSeqEntry()) fail("a list cannot start on the line of its key");
        if (looksLikeKey()) fail("a map cannot start on the line of its key");
        value = inlineNode(depth + 1, false);
        expectLineEnd();
        skipBlankLines();
      }
      map[key] = std::move(value);
      if (atEnd() || atDocumentMarker()) return map;
      const int col = column();
      if (col < indent) return map;
      if (col > indent) fail("unexpected indentation");
    }
  }

  Json blockSequence(int indent, int depth) {
    checkDepth(depth);
    countValue();
    Json list = Json::array();
    for (;;) {
      if (!isSeqEntry()) return list; // the next key of a map holding this list at its own column
      ++pos_;
      skipSpacesAndComment();
      if (atLineEnd())
        list.push_back(nestedBlock(indent, false, depth));
      else {
        const int col = column();
        if (isSeqEntry())
          list.push_back(blockSequence(col, depth + 1));
        else if (looksLikeKey())
          list.push_back(blockMap(col, depth + 1));
        else {
          list.push_back(inlineNode(depth + 1, false));
          expectLineEnd();
          skipBlankLines();
        }
      }
      if (atEnd() || atDocumentMarker()) return list;
      const int col = column();
      if (col < indent) return list;
      if (col > indent) fail("unexpected indentation");
    }
  }

  // A scalar, quoted string or flow collection written on one line (a flow collection may go on).
  Json inlineNode(int depth, bool flowContext) {
    checkDepth(depth);
    refuseUnsupported();
    if (peek() == '[' || peek() == '{') return flowCollection(depth);
    countValue();
    if (peek() == '"' || peek() == '\'') return quoted();
    return plainScalar(flowContext);
  }

  Json plainScalar(bool flowContext) {
    const std::size_t start = pos_;
    while (!atLineEnd()) {
      const char c = peek();
      if (c == '#' && pos_ > start && isSpace(text_[pos_ - 1])) break;
      if (flowContext && (c == ',' || c == '[' || c == ']' || c == '{' || c == '}')) break;
      if (c == ':' && (isSpace(peek(1)) || peek(1) == '\n' || pos_ + 1 >= text_.size() ||
                       (flowContext && (peek(1) == ',' || peek(1) == ']' || peek(1) == '}')))) {
        if (flowContext) break;
        fail("a ':' inside a value (quote the value)");
      }
      ++pos_;
    }
    std::size_t end = pos_;
    while (end > start && isSpace(text_[end - 1])) --end;
    const std::string_view raw = text_.substr(start, end - start);
    return yamlPlainScalar(raw);
  }

  std::string quoted() {
    const char q = peek();
    const std::size_t start = pos_;
    ++pos_;
    std::string out;
    for (;;) {
      if (atLineEnd()) failAt(start, "a quoted string must end on its line");
      const char c = peek();
      if (c == q) {
        if (q == '\'' && peek(1) == '\'') {
          out.push_back('\'');
          pos_ += 2;
          continue;
        }
        ++pos_;
        return out;
      }
      if (q == '"' && c == '\\') {
        ++pos_;
        escape(out);
        continue;
      }
      out.push_back(c);
      ++pos_;
    }
  }

  void escape(std::string& out) {
    const char e = peek();
    const std::size_t at = pos_;
    ++pos_;
    switch (e) {
    case '\\':
      out.push_back('\\');
      return;
    case '"':
      out.push_back('"');
      return;
    case '/':
      out.push_back('/');
      return;
    case 'n':
      out.push_back('\n');
      return;
    case 't':
      out.push_back('\t');
      return;
    case 'r':
      out.push_back('\r');
      return;
    case '0':
      out.push_back('\0');
      return;
    case ' ':
      out.push_back(' ');
      return;
    case '\t':
      out.push_back('\t');
      return;
    case 'a':
      out.push_back('\a');
      return;
    case 'b':
      out.push_back('\b');
      return;
    case 'e':
      out.push_back('\x1b');
      return;
    case 'f':
      out.push_back('\f');
      return;
    case 'v':
      out.push_back('\v');
      return;
    case 'N': // YAML's named escapes of Unicode characters: next line, no-break space, line and paragraph separators
      out.append("\xC2\x85");
      return;
    case '_':
      out.append("\xC2\xA0");
      return;
    case 'L':
      out.append("\xE2\x80\xA8");
      return;
    case 'P':
      out.append("\xE2\x80\xA9");
      return;
    case 'x':
      return hexEscape(out, 2, at);
    case 'u':
      return hexEscape(out, 4, at);
    case 'U':
      return hexEscape(out, 8, at);
    default:
      failAt(at, "an unknown escape in a double-quoted string");
    }
  }

  void hexEscape(std::string& out, int digits, std::size_t at) {
    if (pos_ + static_cast<std::size_t>(digits) > text_.size()) failAt(at, "a short \\x/\\u/\\U escape");
    const auto code = digitsValue(text_.substr(pos_, static_cast<std::size_t>(digits)), 16);
    if (!code || text_.substr(pos_, static_cast<std::size_t>(digits)).find('_') != std::string_view::npos)
      failAt(at, "a \\x/\\u/\\U escape needs hex digits");
    pos_ += static_cast<std::size_t>(digits);
    auto cp = static_cast<std::uint32_t>(*code);
    if (cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) failAt(at, "an escape names no Unicode character");
    appendUtf8(out, cp);
  }

  // Inside a flow collection: whitespace, newlines and comments between tokens.
  void skipFlowSpace() {
    for (;;) {
      while (!atEnd() && (isSpace(peek()) || peek() == '\n')) ++pos_;
      if (peek() == '#' && (pos_ == 0 || isSpace(text_[pos_ - 1]) || text_[pos_ - 1] == '\n')) {
        while (!atLineEnd()) ++pos_;
        continue;
      }
      return;
    }
  }

  Json flowCollection(int depth) {
    checkDepth(depth);
    countValue();
    const char open = peek();
    const char close = open == '[' ? ']' : '}';
    const std::size_t openAt = pos_;
    ++pos_;
    Json out = open == '[' ? Json::array() : Json::object();
    for (;;) {
      skipFlowSpace();
      if (atEnd()) failAt(openAt, std::string("this '") + open + "' is never closed");
      if (peek() == close) {
        ++pos_;
        return out;
      }
      if (peek() == ',') fail("an empty entry (two commas) in a flow collection");
      if (open == '[')
        out.push_back(flowItem(depth));
      else {
        const std::size_t keyAt = pos_;
        Json key = flowItem(depth);
        if (!key.is_string() && !key.is_number() && !key.is_boolean())
          failAt(keyAt, "a key of a flow map must be a scalar");
        const std::string k = key.is_string() ? key.get<std::string>() : dumpJson(key);
        skipFlowSpace();
        Json value;
        if (peek() == ':') {
          ++pos_;
          skipFlowSpace();
          value = (peek() == ',' || peek() == '}') ? Json(nullptr) : flowItem(depth);
        }
        if (out.contains(k)) failAt(keyAt, "the key " + shardscope::quoted(k) + " is repeated" + kRepeatedKeyNote);
        out[k] = std::move(value);
      }
      skipFlowSpace();
      if (peek() == ',') {
        ++pos_;
        continue;
      }
      if (peek() == close) continue;
      if (atEnd()) failAt(openAt, std::string("this '") + open + "' is never closed");
      fail(std::string("expected ',' or '") + close + "' in a flow collection");
    }
  }

  Json flowItem(int depth) {
    const std::size_t at = pos_;
    Json v = inlineNode(depth + 1, true);
    if (pos_ == at) fail("expected a value in a flow collection");
    return v;
  }
};

} // namespace

Json parseYamlText(std::string_view text, std::string_view file) {
  if (text.size() > kMaxYamlBytes)
    throwValueError(std::string(file) + ": larger than " + std::to_string(kMaxYamlBytes >> 20) +
                    " MiB (a YAML configuration is a few hundred KB at most)");
  if (text.find('\0') != std::string_view::npos) throwValueError(std::string(file) + ": holds a NUL byte (not text)");
  // A line may end in CR LF, LF or a lone CR (classic Mac OS), as YAML allows; the reader sees LF.
  std::string lines;
  for (std::size_t i = text.find('\r'); i != std::string_view::npos; i = text.find('\r', i + 1))
    if (i + 1 >= text.size() || text[i + 1] != '\n') {
      lines.assign(text);
      for (std::size_t k = 0; k < lines.size(); ++k)
        if (lines[k] == '\r' && (k + 1 >= lines.size() || lines[k + 1] != '\n')) lines[k] = '\n';
      text = lines;
      break;
    }
  return YamlReader(text, file, false).document();
}

Json parseYamlValue(std::string_view text, std::string_view what) {
  if (text.size() > kMaxYamlBytes) throwValueError(std::string(what) + ": the value is too long");
  if (text.find_first_of(std::string_view("\n\r\0", 3)) != std::string_view::npos)
    throwValueError(std::string(what) + ": the value must be on one line");
  return YamlReader(text, what, true).value();
}

} // namespace shardscope
