// SPDX-License-Identifier: Apache-2.0
// Python values: repr, int() and a literal parser, enough to replay the reference's loose
// argument handling exactly.
#include "shardscope/base/py_value.hpp"

#include "shardscope/base/errors.hpp"

#include <cctype>
#include <charconv>
#include <cmath>
#include <limits>

namespace shardscope {

namespace {

std::string floatRepr(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof buf, v);
  std::string out(buf, ec == std::errc() ? end : buf);
  // Python always shows a float as a float: 2.0, not 2.
  if (out.find_first_of(".en") == std::string::npos) out += ".0";
  return out;
}

std::string strRepr(const std::string& s) {
  const bool useDouble = s.find('\'') != std::string::npos && s.find('"') == std::string::npos;
  const char quote = useDouble ? '"' : '\'';
  std::string out(1, quote);
  for (unsigned char c : s) {
    if (c == '\\')
      out += "\\\\";
    else if (c == static_cast<unsigned char>(quote)) {
      out += '\\';
      out += static_cast<char>(c);
    } else if (c == '\n')
      out += "\\n";
    else if (c == '\t')
      out += "\\t";
    else if (c == '\r')
      out += "\\r";
    else if (c < 0x20 || c == 0x7f) {
      static const char* hex = "0123456789abcdef";
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else
      out += static_cast<char>(c);
  }
  out += quote;
  return out;
}

bool isSpace(char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v'; }

// int("...") : optional sign, decimal digits, single underscores between digits, surrounding space.
std::optional<std::int64_t> intFromString(std::string_view text) {
  while (!text.empty() && isSpace(text.front())) text.remove_prefix(1);
  while (!text.empty() && isSpace(text.back())) text.remove_suffix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '+' || text.front() == '-')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  if (text.empty()) return std::nullopt;
  std::int64_t value = 0;
  bool lastDigit = false;
  for (std::size_t k = 0; k < text.size(); ++k) {
    const char c = text[k];
    if (c == '_') {
      if (!lastDigit || k + 1 == text.size()) return std::nullopt;
      lastDigit = false;
      continue;
    }
    if (c < '0' || c > '9') return std::nullopt;
    if (value > (std::numeric_limits<std::int64_t>::max() - (c - '0')) / 10) return std::nullopt;
    value = value * 10 + (c - '0');
    lastDigit = true;
  }
  return negative ? -value : value;
}

class LiteralParser {
public:
  explicit LiteralParser(std::string_view text) : text_(text) {}

  PyValue parseAll() {
    PyValue v = parseValue(0);
    skipSpace();
    if (pos_ != text_.size()) fail("unexpected text");
    return v;
  }

private:
  [[noreturn]] void fail(const char* what) const {
    throwValueError("cannot read Python literal '" + std::string(text_) + "': " + what + " at position " +
                    std::to_string(pos_));
  }
  void skipSpace() {
    while (pos_ < text_.size() && isSpace(text_[pos_])) ++pos_;
  }
  bool consume(std::string_view token) {
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }

  PyValue parseValue(int depth) {
    if (depth > 64) fail("nesting too deep");
    skipSpace();
    if (pos_ >= text_.size()) fail("missing value");
    const char c = text_[pos_];
    if (c == '(' || c == '[') return parseSequence(depth);
    if (c == '\'' || c == '"') return parseString();
    if (consume("None")) return PyValue::none();
    if (consume("True") || consume("False")) {
      PyValue v;
      v.kind = PyValue::Kind::Bool;
      v.b = text_.substr(pos_ - 4, 4) == "True";
      return v;
    }
    if (consume("np.") || consume("numpy.")) return parseNumpyScalar(depth);
    return parseNumber();
  }

  PyValue parseSequence(int depth) {
    const char open = text_[pos_++];
    const char close = open == '(' ? ')' : ']';
    std::vector<PyValue> items;
    bool sawComma = false;
    skipSpace();
    while (pos_ < text_.size() && text_[pos_] != close) {
      items.push_back(parseValue(depth + 1));
      skipSpace();
      if (pos_ < text_.size() && text_[pos_] == ',') {
        ++pos_;
        sawComma = true;
        skipSpace();
      } else
        break;
    }
    if (pos_ >= text_.size() || text_[pos_] != close) fail("unclosed bracket");
    ++pos_;
    // "(4)" is just 4 in Python; "(4,)" is a tuple.
    if (open == '(' && items.size() == 1 && !sawComma) return items[0];
    return open == '(' ? PyValue::tuple(std::move(items)) : PyValue::list(std::move(items));
  }

  PyValue parseString() {
    const char quote = text_[pos_++];
    PyValue v;
    v.kind = PyValue::Kind::Str;
    while (pos_ < text_.size() && text_[pos_] != quote) {
      char c = text_[pos_++];
      if (c == '\\' && pos_ < text_.size()) {
        const char e = text_[pos_++];
        c = e == 'n' ? '\n' : e == 't' ? '\t' : e == 'r' ? '\r' : e;
      }
      v.s += c;
    }
    if (pos_ >= text_.size()) fail("unclosed string");
    ++pos_;
    return v;
  }

  PyValue parseNumpyScalar(int depth) {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::isalnum(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    const std::string type(text_.substr(start, pos_ - start));
    skipSpace();
    if (!consume("(")) fail("expected '(' after a numpy type");
    PyValue inner = parseValue(depth + 1);
    skipSpace();
    if (!consume(")")) fail("expected ')'");
    if (inner.kind != PyValue::Kind::Int && inner.kind != PyValue::Kind::Float && inner.kind != PyValue::Kind::Bool)
      fail("a numpy scalar must wrap a number");
    if (inner.kind == PyValue::Kind::Bool) {
      inner.kind = PyValue::Kind::Int;
      inner.i = inner.b ? 1 : 0;
    }
    inner.s = "np." + type;
    return inner;
  }

  PyValue parseNumber() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && (text_[pos_] == '-' || text_[pos_] == '+')) ++pos_;
    bool isFloat = false;
    while (pos_ < text_.size()) {
      const char c = text_[pos_];
      if (c >= '0' && c <= '9')
        ++pos_;
      else if (c == '.' || c == 'e' || c == 'E') {
        isFloat = true;
        ++pos_;
      } else if ((c == '-' || c == '+') && (text_[pos_ - 1] == 'e' || text_[pos_ - 1] == 'E'))
        ++pos_;
      else
        break;
    }
    std::string token(text_.substr(start, pos_ - start));
    if (token.empty() || token == "-" || token == "+") fail("expected a value");
    if (token.front() == '+') token.erase(0, 1);
    PyValue v;
    if (!isFloat) {
      auto parsed = intFromString(token);
      if (!parsed) fail("integer out of range");
      v.kind = PyValue::Kind::Int;
      v.i = *parsed;
      return v;
    }
    double d = 0;
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), d);
    if (ec != std::errc() || end != token.data() + token.size()) fail("bad float");
    v.kind = PyValue::Kind::Float;
    v.f = d;
    return v;
  }

  std::string_view text_;
  std::size_t pos_ = 0;
};

} // namespace

std::string pyRepr(const PyValue& v) {
  switch (v.kind) {
  case PyValue::Kind::None:
    return "None";
  case PyValue::Kind::Bool:
    return v.b ? "True" : "False";
  case PyValue::Kind::Int:
    return v.s.empty() ? std::to_string(v.i) : v.s + "(" + std::to_string(v.i) + ")";
  case PyValue::Kind::Float:
    return v.s.empty() ? floatRepr(v.f) : v.s + "(" + floatRepr(v.f) + ")";
  case PyValue::Kind::Str:
    return strRepr(v.s);
  case PyValue::Kind::List:
  case PyValue::Kind::Tuple: {
    const bool tuple = v.kind == PyValue::Kind::Tuple;
    std::string out = tuple ? "(" : "[";
    for (std::size_t k = 0; k < v.items.size(); ++k) {
      if (k) out += ", ";
      out += pyRepr(v.items[k]);
    }
    if (tuple && v.items.size() == 1) out += ",";
    out += tuple ? ")" : "]";
    return out;
  }
  }
  return "None";
}

std::optional<std::int64_t> pyInt(const PyValue& v) {
  switch (v.kind) {
  case PyValue::Kind::Bool:
    return v.b ? 1 : 0;
  case PyValue::Kind::Int:
    return v.i;
  case PyValue::Kind::Float: {
    if (!std::isfinite(v.f)) return std::nullopt;
    const double t = std::trunc(v.f);
    if (t < -9.2e18 || t > 9.2e18) return std::nullopt;
    return static_cast<std::int64_t>(t);
  }
  case PyValue::Kind::Str:
    return intFromString(v.s);
  default:
    return std::nullopt;
  }
}

PyValue parsePyLiteral(std::string_view text) { return LiteralParser(text).parseAll(); }

PyValue pyFromJson(const Json& value, std::string_view what) {
  PyValue v;
  if (value.is_null()) return v;
  if (value.is_boolean()) {
    v.kind = PyValue::Kind::Bool;
    v.b = value.get<bool>();
  } else if (value.is_number_integer()) {
    if (value.is_number_unsigned() &&
        value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
      throwValueError("field '" + std::string(what) + "' holds an integer too large");
    v.kind = PyValue::Kind::Int;
    v.i = value.get<std::int64_t>();
  } else if (value.is_number_float()) {
    v.kind = PyValue::Kind::Float;
    v.f = value.get<double>();
  } else if (value.is_string()) {
    v.kind = PyValue::Kind::Str;
    v.s = value.get<std::string>();
  } else if (value.is_array()) {
    v.kind = PyValue::Kind::List;
    v.items.reserve(value.size());
    for (const auto& item : value) v.items.push_back(pyFromJson(item, what));
  } else {
    throwValueError("field '" + std::string(what) + "' must be a list, got " + std::string(value.type_name()));
  }
  return v;
}

PyValue pyTupleOf(const std::vector<std::int64_t>& values) {
  std::vector<PyValue> items;
  items.reserve(values.size());
  for (auto x : values) items.push_back(PyValue::integer(x));
  return PyValue::tuple(std::move(items));
}

} // namespace shardscope
