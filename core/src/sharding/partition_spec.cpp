// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/partition_spec.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/quoting.hpp"

#include <cctype>

namespace shardscope {

namespace {

// Python's str() of a JSON request value after lists became tuples: ('a', ('b',)), None, 3.
std::string pythonRepr(const Json& v) {
  if (v.is_null()) return "None";
  if (v.is_string()) return pythonStrRepr(v.get_ref<const std::string&>());
  if (v.is_boolean()) return v.get<bool>() ? "True" : "False";
  if (v.is_array()) {
    std::string out = "(";
    for (std::size_t i = 0; i < v.size(); ++i) {
      if (i) out += ", ";
      out += pythonRepr(v[i]);
    }
    if (v.size() == 1) out += ",";
    return out + ")";
  }
  return dumpJson(v);
}

bool isFalsy(const Json& v) {
  if (v.is_null()) return true;
  if (v.is_string()) return v.get_ref<const std::string&>().empty();
  if (v.is_array() || v.is_object()) return v.empty();
  if (v.is_boolean()) return !v.get<bool>();
  if (v.is_number_integer()) return v.get<std::int64_t>() == 0;
  if (v.is_number_float()) return v.get<double>() == 0.0;
  return false;
}

[[noreturn]] void badMember(std::string_view what, std::size_t index, const Json& v) {
  throwValueError(std::string(what) + "[" + std::to_string(index) +
                  "]: a partition spec entry must be null, a mesh axis name or a list of axis names, got " +
                  std::string(v.type_name()) + " " + dumpJson(v));
}

SpecEntry entryFromJson(const Json& v, std::string_view what, std::size_t index) {
  // Our own extension (JSON has no sentinel object): {"unconstrained": true} is P.UNCONSTRAINED.
  if (v.is_object() && v.size() == 1 && v.contains("unconstrained") && v["unconstrained"] == true)
    return SpecEntry::unconstrained();
  if (isFalsy(v)) return SpecEntry::none();
  if (v.is_string()) return SpecEntry::axis(v.get<std::string>());
  if (!v.is_array()) badMember(what, index, v);
  // JAX checks for nested tuples before collapsing one-element tuples.
  for (const auto& m : v)
    if (m.is_array())
      throwValueError("A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: " + pythonRepr(v) +
                      " and the nested tuple: " + pythonRepr(m));
  std::vector<std::optional<std::string>> members;
  for (const auto& m : v) {
    if (m.is_null())
      members.emplace_back(std::nullopt);
    else if (m.is_string())
      members.emplace_back(m.get<std::string>());
    else
      badMember(what, index, v);
  }
  if (members.size() == 1) {
    if (!members[0]) return SpecEntry::none();
    return SpecEntry::axis(*members[0]); // a one-element list keeps even "" (JAX returns the element)
  }
  return SpecEntry{SpecEntry::Kind::Tuple, std::move(members)};
}

// --- text parser -------------------------------------------------------------------------

class TextParser {
public:
  explicit TextParser(std::string_view text) : s_(text) {}

  PartitionSpec parseAll() {
    skipSpace();
    bool wrapped = false;
    for (std::string_view head : {"PartitionSpec", "P"}) {
      if (s_.substr(pos_).starts_with(head)) {
        std::size_t save = pos_;
        pos_ += head.size();
        skipSpace();
        if (peek() == '(') {
          ++pos_;
          wrapped = true;
          break;
        }
        pos_ = save;
      }
    }
    std::vector<SpecEntry> entries;
    skipSpace();
    const char close = wrapped ? ')' : '\0';
    while (!atEnd() && peek() != close) {
      entries.push_back(parseEntry());
      skipSpace();
      if (peek() == ',') {
        ++pos_;
        skipSpace();
      } else if (!atEnd() && peek() != close) {
        fail("expected ',' or '" + std::string(wrapped ? ")" : "end") + "'");
      }
    }
    if (wrapped) {
      if (peek() != ')') fail("missing ')'");
      ++pos_;
    }
    skipSpace();
    if (!atEnd()) fail("unexpected text after the spec");
    return PartitionSpec(std::move(entries));
  }

private:
  // A raw value: None, a quoted string, a group of values, or UNCONSTRAINED.
  struct Raw {
    enum class T { None, Str, Group, Unconstrained } t = T::None;
    std::string str;
    std::vector<Raw> items;
  };

  SpecEntry parseEntry() {
    Raw r = parseRaw();
    switch (r.t) {
    case Raw::T::None:
      return SpecEntry::none();
    case Raw::T::Unconstrained:
      return SpecEntry::unconstrained();
    case Raw::T::Str:
      return r.str.empty() ? SpecEntry::none() : SpecEntry::axis(r.str);
    case Raw::T::Group:
      break;
    }
    if (r.items.empty()) return SpecEntry::none();
    for (const auto& m : r.items)
      if (m.t == Raw::T::Group)
        throwValueError("A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: " + rawRepr(r) +
                        " and the nested tuple: " + rawRepr(m));
    std::vector<std::optional<std::string>> members;
    for (const auto& m : r.items) {
      if (m.t == Raw::T::None)
        members.emplace_back(std::nullopt);
      else if (m.t == Raw::T::Str)
        members.emplace_back(m.str);
      else
        fail("UNCONSTRAINED cannot be a tuple member");
    }
    if (members.size() == 1) return members[0] ? SpecEntry::axis(*members[0]) : SpecEntry::none();
    return SpecEntry{SpecEntry::Kind::Tuple, std::move(members)};
  }

  static std::string rawRepr(const Raw& r) {
    switch (r.t) {
    case Raw::T::None:
      return "None";
    case Raw::T::Str:
      return pythonStrRepr(r.str);
    case Raw::T::Unconstrained:
      return "UNCONSTRAINED";
    case Raw::T::Group:
      break;
    }
    std::string out = "(";
    for (std::size_t i = 0; i < r.items.size(); ++i) out += (i ? ", " : "") + rawRepr(r.items[i]);
    if (r.items.size() == 1) out += ",";
    return out + ")";
  }

  Raw parseRaw() {
    if (++depth_ > 32) fail("nesting too deep");
    skipSpace();
    Raw r;
    const char c = peek();
    if (c == '\'' || c == '"') {
      r.t = Raw::T::Str;
      r.str = parseQuoted();
    } else if (c == '(' || c == '[') {
      const char close = c == '(' ? ')' : ']';
      ++pos_;
      r.t = Raw::T::Group;
      skipSpace();
      while (peek() != close) {
        if (atEnd()) fail(std::string("missing '") + close + "'");
        r.items.push_back(parseRaw());
        skipSpace();
        if (peek() == ',') {
          ++pos_;
          skipSpace();
        } else if (peek() != close) {
          fail(std::string("expected ',' or '") + close + "'");
        }
      }
      ++pos_;
    } else if (consumeWord("None") || consumeWord("null")) {
      r.t = Raw::T::None;
    } else if (consumeWord("P.UNCONSTRAINED") || consumeWord("PartitionSpec.UNCONSTRAINED") ||
               consumeWord("UNCONSTRAINED")) {
      r.t = Raw::T::Unconstrained;
    } else if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') {
      // A bare identifier is read as an axis name: P(fsdp, tp) is a common shorthand.
      r.t = Raw::T::Str;
      while (!atEnd() && (std::isalnum(static_cast<unsigned char>(peek())) || peek() == '_' || peek() == '-'))
        r.str += s_[pos_++];
    } else if (c == ',') {
      fail("empty entry (write None for a replicated dimension)");
    } else {
      fail(atEnd() ? "unexpected end of text" : std::string("unexpected character '") + c + "'");
    }
    --depth_;
    return r;
  }

  // A Python string literal: its quote, the escapes pythonStrRepr writes (\n \t \r, and \xNN, \uNNNN,
  // \UNNNNNNNN as code points; a backslash before any other character keeps that character).
  // An axis name is a Python str, so the text must be valid UTF-8.
  std::string parseQuoted() {
    const std::size_t start = pos_;
    const char q = s_[pos_++];
    std::string out;
    while (true) {
      if (atEnd()) fail("unterminated string");
      char c = s_[pos_++];
      if (c == q) break;
      if (c != '\\') {
        out += c;
        continue;
      }
      if (atEnd()) fail("unterminated string");
      c = s_[pos_++];
      if (c == 'n')
        out += '\n';
      else if (c == 't')
        out += '\t';
      else if (c == 'r')
        out += '\r';
      else if (c == 'x')
        appendUtf8(out, parseHexCodePoint('x', 2));
      else if (c == 'u')
        appendUtf8(out, parseHexCodePoint('u', 4));
      else if (c == 'U')
        appendUtf8(out, parseHexCodePoint('U', 8));
      else
        out += c;
    }
    if (!isValidUtf8(out)) {
      pos_ = start;
      fail("an axis name must be valid UTF-8");
    }
    return out;
  }

  // The hex digits after "\x", "\u" or "\U": a Unicode scalar value.
  std::uint32_t parseHexCodePoint(char letter, int digits) {
    std::uint32_t value = 0;
    for (int i = 0; i < digits; ++i) {
      if (atEnd() || !std::isxdigit(static_cast<unsigned char>(s_[pos_])))
        fail(std::string("\\") + letter + " must be followed by " +
             (digits == 2   ? "two"
              : digits == 4 ? "four"
                            : "eight") +
             " hex digits");
      const char h = static_cast<char>(std::tolower(static_cast<unsigned char>(s_[pos_++])));
      value = value * 16 + static_cast<std::uint32_t>(h <= '9' ? h - '0' : h - 'a' + 10);
    }
    if (value > 0x10FFFF || (value >= 0xD800 && value <= 0xDFFF)) fail("an escape that names no Unicode character");
    return value;
  }

  bool consumeWord(std::string_view w) {
    if (!s_.substr(pos_).starts_with(w)) return false;
    const std::size_t end = pos_ + w.size();
    if (end < s_.size() && (std::isalnum(static_cast<unsigned char>(s_[end])) || s_[end] == '_' || s_[end] == '.'))
      return false;
    pos_ = end;
    return true;
  }

  void skipSpace() {
    while (!atEnd() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  bool atEnd() const { return pos_ >= s_.size(); }
  char peek() const { return atEnd() ? '\0' : s_[pos_]; }
  [[noreturn]] void fail(const std::string& why) const {
    // The text as one readable line: its control characters escaped, bytes that are not UTF-8 as U+FFFD.
    throwValueError("cannot parse partition spec '" + oneLineText(s_) + "' at position " + std::to_string(pos_) + ": " +
                    why);
  }

  std::string_view s_;
  std::size_t pos_ = 0;
  int depth_ = 0;
};

} // namespace

SpecEntry SpecEntry::tuple(std::vector<std::optional<std::string>> names) {
  if (names.empty()) return none();
  if (names.size() == 1) return names[0] ? axis(*names[0]) : none();
  return SpecEntry{Kind::Tuple, std::move(names)};
}

bool SpecEntry::axisNames(std::vector<std::string>& out) const {
  out.clear();
  for (const auto& m : members) {
    if (!m) return false;
    out.push_back(*m);
  }
  return true;
}

PartitionSpec PartitionSpec::ofAxes(std::initializer_list<std::string_view> axes) {
  std::vector<SpecEntry> entries;
  for (auto a : axes) entries.push_back(a.empty() ? SpecEntry::none() : SpecEntry::axis(std::string(a)));
  return PartitionSpec(std::move(entries));
}

bool PartitionSpec::isReplicated() const {
  for (const auto& e : entries_)
    if (e.kind == SpecEntry::Kind::Axis || e.kind == SpecEntry::Kind::Tuple) return false;
  return true;
}

PartitionSpec PartitionSpec::fromJson(const Json& value, std::string_view what) {
  if (!value.is_array())
    throwValueError(std::string(what) +
                    ": a partition spec must be a JSON list such as [null, \"tp\", [\"fsdp\", \"sp\"]], got " +
                    std::string(value.type_name()));
  std::vector<SpecEntry> entries;
  entries.reserve(value.size());
  for (std::size_t i = 0; i < value.size(); ++i) entries.push_back(entryFromJson(value[i], what, i));
  return PartitionSpec(std::move(entries));
}

Json PartitionSpec::toJson() const {
  Json out = Json::array();
  for (const auto& e : entries_) {
    switch (e.kind) {
    case SpecEntry::Kind::None:
      out.push_back(nullptr);
      break;
    case SpecEntry::Kind::Axis:
      out.push_back(*e.members[0]);
      break;
    case SpecEntry::Kind::Tuple: {
      Json t = Json::array();
      for (const auto& m : e.members) t.push_back(m ? Json(*m) : Json(nullptr));
      out.push_back(std::move(t));
      break;
    }
    case SpecEntry::Kind::Unconstrained:
      out.push_back(Json{{"unconstrained", true}});
      break;
    }
  }
  return out;
}

std::string entryRepr(const SpecEntry& e) {
  switch (e.kind) {
  case SpecEntry::Kind::None:
    return "None";
  case SpecEntry::Kind::Axis:
    return pythonStrRepr(*e.members[0]);
  case SpecEntry::Kind::Unconstrained:
    return "UNCONSTRAINED";
  case SpecEntry::Kind::Tuple:
    break;
  }
  std::string out = "(";
  for (std::size_t i = 0; i < e.members.size(); ++i)
    out += (i ? ", " : "") + (e.members[i] ? pythonStrRepr(*e.members[i]) : std::string("None"));
  return out + ")";
}

std::string PartitionSpec::toString() const {
  std::string out = "P(";
  for (std::size_t i = 0; i < entries_.size(); ++i) {
    const SpecEntry& e = entries_[i];
    // A bare '' would read back as None (falsy); the 1-tuple ('',) canonicalises to the axis "".
    const bool emptyAxis = e.kind == SpecEntry::Kind::Axis && e.members[0] && e.members[0]->empty();
    out += (i ? ", " : "") + (emptyAxis ? std::string("('',)") : entryRepr(e));
  }
  return out + ")";
}

std::string PartitionSpec::repr() const {
  std::string out = "PartitionSpec(";
  for (std::size_t i = 0; i < entries_.size(); ++i) out += (i ? ", " : "") + entryRepr(entries_[i]);
  if (entries_.size() == 1) out += ",";
  return out + ")";
}

PartitionSpec PartitionSpec::parse(std::string_view text) {
  std::size_t first = 0;
  while (first < text.size() && std::isspace(static_cast<unsigned char>(text[first]))) ++first;
  if (first < text.size() && text[first] == '[') {
    // Depth-bounded, and the error never quotes the (possibly invalid UTF-8) input bytes.
    return fromJson(parseJsonText(text, "partition spec"), "spec");
  }
  return TextParser(text).parseAll();
}

} // namespace shardscope
