// SPDX-License-Identifier: Apache-2.0
// The one way every parser of the core reads fields out of JSON (workspaces, model files, Hugging
// Face configs, rule files, eval requests). A JsonField is a value at a path of a document; its
// typed getters check type and range and throw a ValueError that names the path and the reason in
// the same words everywhere: "training.micro_batch must be a positive integer, got -3",
// "config.json: hidden_size is missing", "field 'axis_sizes' must be a list of integers, got 4".
#pragma once

#include "shardscope/base/json.hpp"

#include <cstdint>
#include <initializer_list>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// How a path reads in messages.
enum class FieldStyle {
  Path,   // training.micro_batch / mesh.axes[1].ici ("config.json: hidden_size" with a source)
  Quoted, // field 'axis_sizes' / field 'devices[2].id' (eval requests)
};

// Integer bounds, both inclusive.
struct IntRange {
  std::int64_t min = std::numeric_limits<std::int64_t>::min();
  std::int64_t max = std::numeric_limits<std::int64_t>::max();
  // Accept 4096.0 for 4096 (configs written by Python); 4096.5 is still refused.
  bool whole_floats = false;
};
inline constexpr IntRange kAnyInt{};
inline constexpr IntRange kNonNegativeInt{0};
inline constexpr IntRange kPositiveInt{1};

// Number bounds; every number read must also be finite. `*_open` excludes the bound itself, so
// (0, 1] is {0, 1, true, false}.
struct NumberRange {
  double min = -std::numeric_limits<double>::infinity();
  double max = std::numeric_limits<double>::infinity();
  bool min_open = false;
  bool max_open = false;
};

// The closest of `known` to `key` by edit distance (a swap of two neighbours counts as one edit),
// when it is close enough to be a likely misspelling; empty otherwise.
std::string closestKey(std::string_view key, const std::vector<std::string_view>& known);

class JsonField {
public:
  // The root of a document. `source` (may be empty) prefixes Path-style messages ("config.json:
  // hidden_size ..."); `rootName` names the root itself ("the workspace", "the request").
  JsonField(const Json& root, FieldStyle style, std::string source, std::string rootName);

  // A member or an element; absent (not an error yet) when this is not an object/array or has no
  // such member. Reading an absent field throws "... is missing".
  JsonField operator[](std::string_view key) const;
  JsonField operator[](std::size_t index) const;
  // The same value with a note after its path in messages: params[3] ('w').shape.
  JsonField annotated(std::string_view note) const;
  // The same value under another path: a file that may be the list itself or {"rules": list}
  // names the list "rules" either way.
  JsonField renamed(std::string path) const;

  bool exists() const { return value_ != nullptr; }                        // even if null
  bool present() const { return value_ != nullptr && !value_->is_null(); } // absent and null both mean "the default"
  const Json& json() const;                                                // throws when absent
  const std::string& path() const { return path_; }
  // How messages name this field: "training.micro_batch", "field 'mesh_shape'", "the workspace".
  std::string subject() const;
  // Throws ValueError("<subject> <reason>").
  [[noreturn]] void fail(std::string_view reason) const;

  // Required reads: absent or null is "... is missing"; wrong type or range names both.
  std::int64_t toInt(IntRange range = kAnyInt) const;
  int toInt32(IntRange range) const; // range must lie within int
  double toNumber(NumberRange range = {}) const;
  bool toBool() const;
  std::string toString() const;
  std::string toNonEmptyString() const;
  std::vector<std::string> toStrings() const;
  std::vector<std::int64_t> toInts(IntRange range = kAnyInt) const;
  const Json& toObject(std::string_view what = "an object") const;
  const Json& toArray(std::string_view what = "a list") const;
  // One of `names`; "must be one of a, b, c, got 'x'".
  std::size_t toChoice(const std::vector<std::string_view>& names) const;

  // Defaulted reads: absent or null gives the fallback, anything else is checked as above.
  std::int64_t intOr(std::int64_t fallback, IntRange range = kAnyInt) const;
  double numberOr(double fallback, NumberRange range = {}) const;
  bool boolOr(bool fallback) const;
  std::string stringOr(std::string fallback) const;
  std::vector<std::string> stringsOr(std::vector<std::string> fallback) const;
  std::optional<std::int64_t> optionalInt(IntRange range = kAnyInt) const;
  std::optional<double> optionalNumber(NumberRange range = {}) const;
  std::optional<std::string> optionalString() const;

  // Throws unless this is an object whose keys are all in `known`:
  // "unknown key 'trainig' in the workspace (did you mean 'training'?)".
  void checkKeys(const std::vector<std::string_view>& known) const;
  // Throws when a list holds the same string twice: "training.batch_axes lists 'dp' twice".
  void checkUniqueStrings() const;

private:
  struct Document {
    FieldStyle style;
    std::string source, rootName;
  };
  JsonField(const Json* value, std::shared_ptr<const Document> document, std::string path);
  [[noreturn]] void missing() const;
  [[noreturn]] void wrong(std::string_view expected) const;

  const Json* value_;
  std::shared_ptr<const Document> document_;
  std::string path_;
};

// Shorthands for a document's root.
inline JsonField fileFields(const Json& root, std::string source, std::string rootName) {
  return JsonField(root, FieldStyle::Path, std::move(source), std::move(rootName));
}
inline JsonField requestFields(const Json& request) {
  return JsonField(request, FieldStyle::Quoted, "", "the request");
}

// "a positive integer", "an integer between 0 and 2", ...: what a range asks for, in messages.
std::string describeIntRange(IntRange range);
std::string describeNumberRange(NumberRange range);
// A number as messages print it: shortest round-trip text (1e+15, 0.5, 3600).
std::string numberText(double value);

} // namespace shardscope
