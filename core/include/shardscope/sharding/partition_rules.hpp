// SPDX-License-Identifier: Apache-2.0
// Regex partition rules and the correction step (eformer partition/constraints.py):
//   * matchPartitionRules: `re.search` of each rule on the '/'-joined parameter path, first match
//     wins; with strict, leaves without a shape or of rank 0 get P(), a match smaller than
//     min_size gets P(), and a spec longer than the rank is cut to the rank;
//   * correctSpec (get_corrected_named_sharding) and withShardingConstraintSpec: a dimension
//     whose axes are not all in the mesh, or whose size their product does not divide, falls
//     back to None; a spec left with no axis becomes P().
// eformer does all of this silently; here every such change is also recorded as a diagnostic
// on the parameter, next to the result.
#pragma once

#include "shardscope/base/dtype.hpp"
#include "shardscope/mesh/mesh_axes.hpp"
#include "shardscope/base/nd_array.hpp"
#include "shardscope/sharding/partition_spec.hpp"
#include "shardscope/sharding/sharding_diagnostic.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// eformer's MIN_SHARDING_SIZE (environment default), used when min_size is None.
inline constexpr std::int64_t kMinShardingSize = 16384;

struct PartitionRule {
  std::string pattern; // Python `re` syntax; matched with re.search semantics (unanchored)
  PartitionSpec spec;
};

// Compiled rules. Patterns use Boost.Regex's Perl syntax, which agrees with Python `re` on what
// rule files use (groups, alternation, classes, \d \w \s, anchors, lazy quantifiers, (?:...),
// (?P<name>...)); '.' does not match a newline and ^/$ anchor the whole path, as in Python.
// The longest pattern a rule may have: real rules are a few dozen characters; a multi-megabyte
// pattern took seconds and gigabytes to compile.
inline constexpr std::size_t kMaxRulePatternBytes = 10'000;

class RuleSet {
public:
  // Throws ValueError naming the rule index and pattern when a pattern does not compile or is
  // longer than kMaxRulePatternBytes (messages quote at most the first 200 characters).
  explicit RuleSet(std::vector<PartitionRule> rules);
  RuleSet(RuleSet&&) noexcept;
  RuleSet& operator=(RuleSet&&) noexcept;
  ~RuleSet();

  std::size_t size() const;
  const PartitionRule& rule(std::size_t index) const;
  const std::vector<PartitionRule>& rules() const;

  // Index of the first rule whose pattern is found anywhere in `path`, or -1. A pattern whose
  // matching blows up (catastrophic backtracking) throws ValueError naming the rule and path
  // instead of hanging.
  int firstMatch(std::string_view path) const;

  // firstMatch for many paths, in order (errors surface in that order). Same answers, faster:
  // every pattern's longest required literal substring is its anchor, and one pass over a path
  // (Aho-Corasick over all anchors) finds the rules whose anchor it contains; only those, and
  // the rules without a literal, are tried, in rule order. A pattern that cannot tell one ASCII
  // digit from another (no digit outside {m,n}, no back-reference), or names digits only right
  // after a letter ("w1"), is evaluated once per path-with-index-digits-zeroed, so the layers and
  // experts of a deep model share one evaluation. 10,000 rules against 200,000 paths: well under
  // a second (shardscope-bench rules/10k-x-200k).
  std::vector<int> firstMatches(std::span<const std::string> paths) const;
  std::vector<int> firstMatches(std::span<const std::string_view> paths) const;

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A leaf of a parameter tree as the rules see it. No shape = a leaf without `.shape` (an int).
struct ParamLeaf {
  std::string path;
  std::optional<Shape> shape;
  DType dtype = float32DType();
};

struct MatchOptions {
  std::optional<std::int64_t> min_size = 0; // nullopt: kMinShardingSize (the reference default)
  bool strict = true;
};

struct RuleMatch {
  PartitionSpec spec;
  int rule = -1; // index of the rule that decided, -1 when none was tried (no shape, scalar)
  ShardingDiagnostics diagnostics;
};

// One result per leaf, aligned with `leaves`. Leaves are visited in sorted path order (JAX
// flattens dict keys sorted), so when several leaves match no rule the ValueError
// "Partition rule not found for param: <path>" names the smallest path.
std::vector<RuleMatch> matchPartitionRules(const RuleSet& rules, std::span<const ParamLeaf> leaves,
                                           const MatchOptions& options = {});

// What rule `rule` gives one shaped leaf in strict mode (matchPartitionRules' per-leaf step):
// P() with a Scalar note for rank 0 (the rule is not tried, rule = -1), P() with a note below
// min_size, the spec cut to the rank with a note, else the rule's spec. Throws ValueError naming
// `path` when the element count overflows.
RuleMatch applyRule(const RuleSet& rules, int rule, const Shape& shape, std::int64_t minSize, std::string_view path);

// get_corrected_named_sharding(shape, spec).spec on `mesh`. Appends a diagnostic per change.
PartitionSpec correctSpec(const MeshAxes& mesh, const Shape& shape, const PartitionSpec& spec,
                          ShardingDiagnostics* diagnostics = nullptr);

// The same with eformer's handling of "no mesh in context" (`mesh` null or without axes):
// AssertionError("No mesh found under this context manager.") when raiseMeshError, else P().
PartitionSpec getCorrectedNamedSharding(const MeshAxes* mesh, const Shape& shape, const PartitionSpec& spec,
                                        bool raiseMeshError = true, ShardingDiagnostics* diagnostics = nullptr);

// eformer with_sharding_constraint: the spec it hands to jax.lax.with_sharding_constraint, or
// nullopt when it returns the array untouched (no mesh, or the spec is P(): "no constraint",
// which is not the same as "replicated").
std::optional<PartitionSpec> withShardingConstraintSpec(const MeshAxes* mesh, const Shape& shape,
                                                        const PartitionSpec& spec,
                                                        ShardingDiagnostics* diagnostics = nullptr);

} // namespace shardscope
