// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/json_text.hpp"

#include "shardscope/base/errors.hpp"

#include "quoted_text.hpp"

#include <exception>
#include <optional>
#include <vector>

namespace shardscope {

namespace {
// What one parsed value costs in memory, at most: its 16-byte slot in the parent (counted twice,
// for a vector's spare capacity), an object's or list's own allocation, a string's, and for an
// object member its key and the rest of the (key, value) pair and the hash index.
constexpr std::size_t kSlotBytes = 32;
constexpr std::size_t kObjectBytes = 48;
constexpr std::size_t kArrayBytes = 32;
constexpr std::size_t kMemberBytes = 80;
std::size_t stringBytes(std::size_t length) { return 48 + (length > 15 ? length + 24 : 0); }

// Before parsing, one pass over the text (no JSON is built) finds what would make parsing unsafe
// or too costly: nesting deeper than the limit, or values whose estimated memory passes the
// budget. It reads tokens loosely (a syntax error is the parser's to report, afterwards) and stops
// at the first problem.
enum class TextProblem { None, TooDeep, TooManyValues };

TextProblem prescan(std::string_view text, int depthLimit, bool checkBudget) {
  std::vector<bool> inObject; // per open container: an object (keys expected) or a list
  bool expectKey = false;     // the next string is a key
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    if (c == '"') {
      const std::size_t start = i;
      for (++i; i < text.size() && text[i] != '"'; ++i)
        if (text[i] == '\\') ++i;
      const std::size_t length = i - start - 1; // escapes counted as written: an over-estimate
      bytes += expectKey ? kMemberBytes + (length > 15 ? length + 24 : 0) : kSlotBytes + stringBytes(length);
      expectKey = false;
    } else if (c == '{' || c == '[') {
      if (static_cast<int>(inObject.size()) >= depthLimit) return TextProblem::TooDeep;
      bytes += kSlotBytes + (c == '{' ? kObjectBytes : kArrayBytes);
      inObject.push_back(c == '{');
      expectKey = c == '{';
    } else if (c == '}' || c == ']') {
      if (!inObject.empty()) inObject.pop_back();
      expectKey = false;
    } else if (c == ',') {
      expectKey = !inObject.empty() && inObject.back();
    } else if (c == ':') {
      expectKey = false;
    } else {
      // A number, true, false or null: skip to its end.
      bytes += kSlotBytes;
      while (i + 1 < text.size() && std::string_view(" \t\n\r,:]}[{\"").find(text[i + 1]) == std::string_view::npos)
        ++i;
      expectKey = false;
    }
    if (checkBudget && bytes > kMaxJsonMemoryBytes) return TextProblem::TooManyValues;
  }
  return TextProblem::None;
}

[[noreturn]] void throwTooManyValues(std::string_view what) {
  throwValueError(std::string(what) + " holds too many JSON values: reading them would take more than " +
                  std::to_string(kMaxJsonMemoryBytes >> 20) + " MB of memory");
}

// Builds the document from nlohmann's SAX events (what Json::parse does inside), adding up what
// the values cost: past the budget it stops before the memory is spent. With a member sink, each
// member of the top-level object is handed over as soon as it is complete and never kept, so the
// budget applies to one member at a time.
class BoundedBuilder {
public:
  BoundedBuilder(Json& root, const JsonMemberSink* sink) : root_(root), sink_(sink) {}

  bool null() { return add(Json(nullptr), kSlotBytes); }
  bool boolean(bool v) { return add(Json(v), kSlotBytes); }
  bool number_integer(Json::number_integer_t v) { return add(Json(v), kSlotBytes); }
  bool number_unsigned(Json::number_unsigned_t v) { return add(Json(v), kSlotBytes); }
  bool number_float(Json::number_float_t v, const std::string&) { return add(Json(v), kSlotBytes); }
  bool string(std::string& v) {
    const std::size_t cost = kSlotBytes + stringBytes(v.size());
    return add(Json(std::move(v)), cost);
  }
  bool binary(Json::binary_t& v) { return add(Json(Json::binary_t(std::move(v))), kSlotBytes); }
  bool start_object(std::size_t) { return open(Json(Json::value_t::object), kSlotBytes + kObjectBytes); }
  bool start_array(std::size_t) { return open(Json(Json::value_t::array), kSlotBytes + kArrayBytes); }
  bool key(std::string& k) {
    key_ = std::move(k);
    return charge(kMemberBytes + (key_.size() > 15 ? key_.size() + 24 : 0));
  }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool parse_error(std::size_t, const std::string&, const nlohmann::json::exception& e) {
    errorId_ = e.id;
    if (const auto* p = dynamic_cast<const nlohmann::json::parse_error*>(&e)) errorByte_ = p->byte;
    return false;
  }

  bool overBudget() const { return overBudget_; }
  const std::optional<std::string>& duplicate() const { return duplicate_; }
  int errorId() const { return errorId_; }
  std::size_t errorByte() const { return errorByte_; }

private:
  bool charge(std::size_t bytes) {
    bytes_ += bytes;
    if (bytes_ <= kMaxJsonMemoryBytes) return true;
    overBudget_ = true;
    return false;
  }

  // Places `value` where the parser is: the root, the next element of a list, the value of the
  // last key read (a repeated key keeps its first place and takes the last value, as nlohmann's
  // own parser does), or, in sink mode, a member of the top-level object being read.
  bool add(Json&& value, std::size_t cost) {
    if (!charge(cost)) return false;
    if (stack_.empty()) {
      root_ = std::move(value);
      last_ = &root_;
    } else if (inTopObject()) {
      memberKey_ = std::move(key_);
      member_ = std::move(value);
      last_ = &member_;
      if (!member_.is_structured()) flush();
    } else if (stack_.back()->is_array()) {
      auto& array = stack_.back()->get_ref<Json::array_t&>();
      array.push_back(std::move(value));
      last_ = &array.back();
    } else {
      auto& object = stack_.back()->get_ref<Json::object_t&>();
      // A repeated key: JSON parsers keep one of the two silently (nlohmann the last), so what the
      // file says depends on the reader. Refused, naming the key.
      if (object.find(key_) != object.end()) {
        duplicate_ = key_;
        return false;
      }
      auto& slot = object[key_];
      slot = std::move(value);
      last_ = &slot;
    }
    return true;
  }

  bool open(Json&& value, std::size_t cost) {
    if (!add(std::move(value), cost)) return false;
    stack_.push_back(last_);
    return true;
  }

  bool close() {
    stack_.pop_back();
    if (inTopObject()) flush();
    return true;
  }

  // In sink mode, directly inside the top-level object.
  bool inTopObject() const { return sink_ && stack_.size() == 1 && root_.is_object(); }

  void flush() {
    (*sink_)(std::move(memberKey_), std::move(member_));
    member_ = Json();
    bytes_ = 0;
  }

  Json& root_;
  const JsonMemberSink* sink_;
  std::vector<Json*> stack_; // the open lists and objects, innermost last
  Json* last_ = nullptr;     // the value added last
  std::string key_;
  std::string memberKey_;
  Json member_;
  std::size_t bytes_ = 0;
  bool overBudget_ = false;
  std::optional<std::string> duplicate_;
  int errorId_ = 0;
  std::size_t errorByte_ = 0;
};

Json parseBounded(std::string_view text, std::string_view what, const JsonMemberSink* sink) {
  // With a sink, the members are not kept together: the budget is then the builder's, per member.
  switch (prescan(text, kMaxJsonDepth, sink == nullptr)) {
  case TextProblem::TooDeep:
    throwValueError(std::string(what) + " nests deeper than " + std::to_string(kMaxJsonDepth) + " levels");
  case TextProblem::TooManyValues:
    throwTooManyValues(what);
  case TextProblem::None:
    break;
  }
  Json root;
  BoundedBuilder builder(root, sink);
  if (Json::sax_parse(text.begin(), text.end(), &builder)) return root;
  if (builder.overBudget()) throwTooManyValues(what);
  if (builder.duplicate())
    throwValueError(std::string(what) + " repeats the key " + shardscope::quoted(*builder.duplicate()) +
                    " in one object: say it once (JSON readers disagree on which one counts)");
  // nlohmann's text quotes the offending bytes, which may not be UTF-8; keep only the 1-based
  // position of the byte where parsing failed (end of input counts as one past the last byte).
  if (builder.errorId() == 406)
    throwValueError(std::string(what) + " is not valid JSON (a number is too large to represent)");
  throwValueError(std::string(what) + " is not valid JSON (syntax error at byte " +
                  std::to_string(builder.errorByte()) + ")");
}
} // namespace

Json parseJsonText(std::string_view text, std::string_view what) { return parseBounded(text, what, nullptr); }

Json parseJsonObjectMembers(std::string_view text, std::string_view what, const JsonMemberSink& sink) {
  std::exception_ptr failure;
  const JsonMemberSink guarded = [&](std::string&& key, Json&& value) {
    if (failure) return;
    try {
      sink(std::move(key), std::move(value));
    } catch (...) {
      failure = std::current_exception();
    }
  };
  Json root = parseBounded(text, what, &guarded);
  if (failure) std::rethrow_exception(failure);
  return root;
}

std::string dumpJson(const Json& json, int indent) {
  return json.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

} // namespace shardscope
