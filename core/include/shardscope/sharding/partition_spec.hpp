// SPDX-License-Identifier: Apache-2.0
// JAX's PartitionSpec: for each array dimension, nothing (replicated), one mesh axis, or a tuple
// of mesh axes (first listed = major). Construction applies JAX's canonical rules
// (jaxlib CanonicalizePartition) so that equality matches JAX exactly:
//   * a falsy entry (None, "", (), []) becomes None;
//   * a 1-element tuple or list becomes its element (so [["fsdp"]] == "fsdp", [[""]] stays "");
//   * a longer list becomes a tuple whose members are kept as given (None or "" included);
//   * a tuple containing a tuple or list raises ValueError("A tuple inside PartitionSpec cannot
//     contain a nested tuple. Got partition: ... and the nested tuple: ...").
// P() (no entries) and P(None) are different values, as in JAX, although both mean replicated.
#pragma once

#include "shardscope/base/json.hpp"
#include "shardscope/base/py_value.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// One dimension's entry.
struct SpecEntry {
  enum class Kind : unsigned char {
    None,         // replicated along this dimension
    Axis,         // one mesh axis name (may be "" when written as [""])
    Tuple,        // two or more members, major first; a member may be None (kept, as JAX does)
    Unconstrained // P.UNCONSTRAINED: let the compiler choose
  };
  Kind kind = Kind::None;
  std::vector<std::optional<std::string>> members; // Axis: one; Tuple: >= 2; else empty

  static SpecEntry none() { return {}; }
  static SpecEntry axis(std::string name) { return {Kind::Axis, {std::move(name)}}; }
  static SpecEntry tuple(std::vector<std::optional<std::string>> names); // canonicalises
  static SpecEntry unconstrained() { return {Kind::Unconstrained, {}}; }

  bool isNone() const { return kind == Kind::None; }
  // Axis names of an Axis or Tuple entry, in order; a None member makes this return false.
  bool axisNames(std::vector<std::string>& out) const;

  bool operator==(const SpecEntry&) const = default;
};

class PartitionSpec {
public:
  PartitionSpec() = default;
  explicit PartitionSpec(std::vector<SpecEntry> entries) : entries_(std::move(entries)) {}
  // Convenience for code and tests: each entry is an axis name, "" for None.
  static PartitionSpec ofAxes(std::initializer_list<std::string_view> axes);

  const std::vector<SpecEntry>& entries() const { return entries_; }
  std::vector<SpecEntry>& entries() { return entries_; }
  std::size_t size() const { return entries_.size(); }
  bool empty() const { return entries_.empty(); }
  const SpecEntry& operator[](std::size_t i) const { return entries_[i]; }

  // True when no entry shards anything (P(), P(None), P(None, None), ...).
  bool isReplicated() const;

  bool operator==(const PartitionSpec&) const = default;

  // --- JSON form: [null, "tp", ["fsdp", "sp"]]; [] is P(), [null] is P(None);
  // P.UNCONSTRAINED is written {"unconstrained": true} (our extension).
  // Canonicalises as PartitionSpec(*entries) does; `what` names the field in error messages.
  static PartitionSpec fromJson(const Json& value, std::string_view what = "spec");
  Json toJson() const;

  // --- Text forms.
  // "P('fsdp', ('tp', 'sp'), None)": the short form users type and the GUI shows.
  std::string toString() const;
  // JAX's repr: "PartitionSpec('dp',)", "PartitionSpec()", "PartitionSpec(('dp', 'tp'), None)".
  std::string repr() const;
  // Parses P(...), PartitionSpec(...) or a bare comma list; entries are None, quoted names
  // ('x' or "x"), tuples/lists of those, or UNCONSTRAINED / P.UNCONSTRAINED. Also accepts the
  // JSON form when the text starts with '['. Throws ValueError naming the position and reason.
  static PartitionSpec parse(std::string_view text);

private:
  std::vector<SpecEntry> entries_;
};

// Python's str of one entry as it appears inside a tuple repr: 'tp', None, ('a', 'b').
std::string entryRepr(const SpecEntry& entry);

} // namespace shardscope
