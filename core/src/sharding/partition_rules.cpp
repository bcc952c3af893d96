// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/partition_rules.hpp"

#include "shardscope/base/errors.hpp"
#include "sharding/literal_scanner.hpp"

#include <boost/regex.hpp>

#include <algorithm>
#include <cctype>
#include <limits>
#include <numeric>
#include <unordered_map>

namespace shardscope {

// --- RuleSet -----------------------------------------------------------------------------------

struct RuleSet::Impl {
  std::vector<PartitionRule> rules;
  std::vector<boost::regex> compiled;
  std::vector<bool> digitInsensitive; // per rule: answer is a function of memoKey(path)
  // Some rule names a digit right after a letter ("w1", "fc2"): the memo key then keeps the digit
  // runs that follow a letter (see memoKey).
  bool keepLetterDigits = false;
  std::vector<std::vector<std::string>> literals; // per rule: substrings every match contains
  // Batch matching: each rule's longest literal is its anchor; the scanner finds the anchors a
  // path contains, so only rules whose anchor is there (and rules without one) are tried.
  LiteralScanner scanner;
  std::vector<std::vector<int>> anchorRules; // per distinct anchor: its rules, ascending
  std::vector<int> freeRules;                // rules without a literal, ascending
  int firstSensitive = 0;                    // index of the first digit-sensitive rule, or size()

  bool search(std::size_t i, std::string_view path) const;
  void memoKey(std::string_view path, std::string& key) const;
};

namespace {
// A pattern as messages quote it: Python's repr, cut to its first 200 bytes with the full length.
std::string patternInMessage(const std::string& pattern) {
  constexpr std::size_t kQuoted = 200;
  if (pattern.size() <= kQuoted) return pythonStrRepr(pattern);
  return pythonStrRepr(pattern.substr(0, kQuoted)) + "... (" + std::to_string(pattern.size()) + " bytes)";
}

// Python `re` defaults: '.' stops at newlines (no_mod_s) and ^/$ anchor the whole text (no_mod_m).
constexpr auto kSyntax = boost::regex::perl | boost::regex::no_mod_m | boost::regex::no_mod_s;
// Rewrites the Python-only spellings Boost does not know: (?P<name>...) -> (?<name>...),
// (?P=name) -> \k<name>, and \Z (end of text in Python) -> \z. Escapes and character classes
// are skipped over so their contents are never rewritten.
std::string translatePythonRegex(std::string_view p) {
  std::string out;
  out.reserve(p.size());
  bool inClass = false;
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    if (c == '\\' && i + 1 < p.size()) {
      if (!inClass && p[i + 1] == 'Z')
        out += "\\z";
      else
        out.append(p.substr(i, 2));
      ++i;
      continue;
    }
    if (inClass) {
      if (c == ']') inClass = false;
      out += c;
      continue;
    }
    if (c == '[') {
      inClass = true;
      out += c;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < p.size() && p[i + 1] == '^') out += p[++i];
      if (i + 1 < p.size() && p[i + 1] == ']') out += p[++i];
      continue;
    }
    if (p.substr(i).starts_with("(?P<")) {
      out += "(?<";
      i += 3;
      continue;
    }
    if (p.substr(i).starts_with("(?P=")) {
      const std::size_t close = p.find(')', i);
      if (close != std::string_view::npos) {
        out += "\\k<" + std::string(p.substr(i + 4, close - i - 4)) + ">";
        i = close;
        continue;
      }
    }
    out += c;
  }
  return out;
}

// How a pattern depends on which ASCII digits a path holds.
enum class DigitUse {
  None,        // names no digit: every construct (., \\d, \\w, classes, anchors) treats all ten alike
  AfterLetter, // every digit it names is a literal right after a literal letter or such a digit ("w1", "fc12")
  Any          // anything else: a digit in a class or an escape, a back-reference, "_1", "(a)1", "x?1"
};

// Conservative: a digit inside a class ([1-3]), in an escape (\\x31, \\1) or after anything but
// a plain letter or an after-letter digit counts as Any, and so does any named back-reference.
// Digits of a {m,n} quantifier are not characters and are skipped.
DigitUse patternDigitUse(std::string_view p) {
  for (std::string_view ref : {"\\k", "\\g", "(?P="})
    if (p.find(ref) != std::string_view::npos) return DigitUse::Any;
  DigitUse use = DigitUse::None;
  bool inClass = false;
  bool prevAnchors = false; // the previous token is a plain letter or an after-letter digit
  for (std::size_t i = 0; i < p.size(); ++i) {
    const char c = p[i];
    const bool digit = c >= '0' && c <= '9';
    if (c == '\\') {
      if (i + 1 < p.size() && p[i + 1] >= '0' && p[i + 1] <= '9') return DigitUse::Any;
      ++i; // an escaped character is never a plain letter (\\d, \\w, \\x..)
      prevAnchors = false;
      continue;
    }
    if (inClass) {
      if (digit) return DigitUse::Any;
      if (c == ']') inClass = false;
      continue;
    }
    if (c == '[') {
      inClass = true;
      // A ']' right after '[' or '[^' is a literal member.
      if (i + 1 < p.size() && p[i + 1] == '^') ++i;
      if (i + 1 < p.size() && p[i + 1] == ']') ++i;
      prevAnchors = false;
      continue;
    }
    if (c == '{') {
      const std::size_t close = p.find('}', i);
      if (close != std::string_view::npos &&
          p.substr(i + 1, close - i - 1).find_first_not_of("0123456789,") == std::string_view::npos) {
        i = close;
        prevAnchors = false;
        continue;
      }
    }
    if (digit) {
      if (!prevAnchors) return DigitUse::Any;
      use = DigitUse::AfterLetter;
      continue; // prevAnchors stays true: "w12"
    }
    prevAnchors = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
  }
  return use;
}

// Index just past the group or class starting at `i` (p[i] is '(' or '['), or npos.
std::size_t skipBracket(std::string_view p, std::size_t i) {
  if (p[i] == '[') {
    std::size_t j = i + 1;
    if (j < p.size() && p[j] == '^') ++j;
    if (j < p.size() && p[j] == ']') ++j;
    for (; j < p.size(); ++j) {
      if (p[j] == '\\')
        ++j;
      else if (p[j] == ']')
        return j + 1;
    }
    return std::string_view::npos;
  }
  int depth = 0;
  for (std::size_t j = i; j < p.size(); ++j) {
    if (p[j] == '\\') {
      ++j;
    } else if (p[j] == '[') {
      j = skipBracket(p, j);
      if (j == std::string_view::npos) return j;
      --j;
    } else if (p[j] == '(') {
      ++depth;
    } else if (p[j] == ')' && --depth == 0) {
      return j + 1;
    }
  }
  return std::string_view::npos;
}

// Literal substrings that every match of `p` must contain, read conservatively from the
// top-level sequence: groups, classes and escapes other than escaped punctuation end a run; a
// character made optional by ?, * or {m,n} is dropped; a top-level '|' or any inline flag
// ((?i), (?x), ...) gives no literals at all. An empty list means "always run the regex".
std::vector<std::string> requiredLiterals(std::string_view p) {
  for (std::size_t k = 0; k + 2 < p.size(); ++k)
    if (p[k] == '(' && p[k + 1] == '?' && std::string_view("aiLmsux-").find(p[k + 2]) != std::string_view::npos)
      return {};
  std::vector<std::string> runs;
  std::string cur;
  auto flush = [&] {
    if (!cur.empty()) runs.push_back(cur);
    cur.clear();
  };
  for (std::size_t i = 0; i < p.size();) {
    const char c = p[i];
    if (c == '\\') {
      if (i + 1 >= p.size()) return {};
      const char e = p[i + 1];
      if (std::isalnum(static_cast<unsigned char>(e))) {
        if (std::string_view("dDwWsSbBAZz").find(e) == std::string_view::npos) return {};
        flush();
      } else {
        cur += e;
      }
      i += 2;
      continue;
    }
    if (c == '(' || c == '[') {
      flush();
      i = skipBracket(p, i);
      if (i == std::string_view::npos) return {};
      continue;
    }
    if (c == '|') return {};
    if (c == '?' || c == '*' || c == '{') {
      if (!cur.empty() && i > 0 && p[i - 1] != ')' && p[i - 1] != ']') cur.pop_back(); // optional char
      flush();
      if (c == '{') {
        const std::size_t close = p.find('}', i);
        if (close == std::string_view::npos) return {};
        i = close + 1;
      } else {
        ++i;
      }
      continue;
    }
    if (c == '+' || c == '.' || c == '^' || c == '$' || c == ')') {
      flush();
      ++i;
      continue;
    }
    cur += c;
    ++i;
  }
  flush();
  return runs;
}

} // namespace

bool RuleSet::Impl::search(std::size_t i, std::string_view path) const {
  for (const auto& lit : literals[i])
    if (path.find(lit) == std::string_view::npos) return false;
  try {
    return boost::regex_search(path.begin(), path.end(), compiled[i]);
  } catch (const std::runtime_error& e) {
    // Boost.Regex bounds the work per match and throws instead of backtracking forever.
    throwValueError("partition rule " + std::to_string(i) + " " + patternInMessage(rules[i].pattern) +
                    " is too complex to match against " + pythonStrRepr(path) +
                    " (catastrophic backtracking; simplify nested quantifiers): " + e.what());
  }
}

RuleSet::RuleSet(std::vector<PartitionRule> rules) : impl_(std::make_unique<Impl>()) {
  impl_->compiled.reserve(rules.size());
  for (std::size_t i = 0; i < rules.size(); ++i) {
    if (rules[i].pattern.size() > kMaxRulePatternBytes)
      throwValueError("partition rule " + std::to_string(i) + ": regular expression " +
                      patternInMessage(rules[i].pattern) + " is longer than the limit of " +
                      std::to_string(kMaxRulePatternBytes) + " bytes");
    try {
      impl_->compiled.emplace_back(translatePythonRegex(rules[i].pattern), kSyntax);
    } catch (const boost::regex_error& e) {
      throwValueError("partition rule " + std::to_string(i) + ": invalid regular expression " +
                      patternInMessage(rules[i].pattern) + ": " + e.what());
    }
  }
  for (const auto& r : rules) {
    const DigitUse use = patternDigitUse(r.pattern);
    impl_->digitInsensitive.push_back(use != DigitUse::Any);
    if (use == DigitUse::AfterLetter) impl_->keepLetterDigits = true;
    impl_->literals.push_back(requiredLiterals(r.pattern));
  }
  impl_->rules = std::move(rules);
  const int n = static_cast<int>(impl_->rules.size());
  impl_->firstSensitive = n;
  for (int i = n; i-- > 0;)
    if (!impl_->digitInsensitive[static_cast<std::size_t>(i)]) impl_->firstSensitive = i;
  std::vector<std::string> anchors;
  std::unordered_map<std::string, int> anchorIndex;
  for (int i = 0; i < n; ++i) {
    const auto& lits = impl_->literals[static_cast<std::size_t>(i)];
    if (lits.empty()) {
      impl_->freeRules.push_back(i);
      continue;
    }
    const auto longest = std::max_element(
        lits.begin(), lits.end(), [](const std::string& a, const std::string& b) { return a.size() < b.size(); });
    const auto [it, inserted] = anchorIndex.try_emplace(*longest, static_cast<int>(anchors.size()));
    if (inserted) {
      anchors.push_back(*longest);
      impl_->anchorRules.emplace_back();
    }
    impl_->anchorRules[static_cast<std::size_t>(it->second)].push_back(i);
  }
  impl_->scanner = LiteralScanner(anchors);
}

RuleSet::RuleSet(RuleSet&&) noexcept = default;
RuleSet& RuleSet::operator=(RuleSet&&) noexcept = default;
RuleSet::~RuleSet() = default;

std::size_t RuleSet::size() const { return impl_->rules.size(); }
const PartitionRule& RuleSet::rule(std::size_t index) const { return impl_->rules.at(index); }
const std::vector<PartitionRule>& RuleSet::rules() const { return impl_->rules; }

int RuleSet::firstMatch(std::string_view path) const {
  for (std::size_t i = 0; i < impl_->compiled.size(); ++i)
    if (impl_->search(i, path)) return static_cast<int>(i);
  return -1;
}

std::vector<int> RuleSet::firstMatches(std::span<const std::string> paths) const {
  std::vector<std::string_view> views(paths.begin(), paths.end());
  return firstMatches(std::span<const std::string_view>(views));
}

// The memo key: the path with every digit set to '0', except (when some rule names a digit after
// a letter) the digit runs that directly follow a letter, which stay as they are. Why this is
// enough for a rule whose DigitUse is not Any: its after-letter digits can only match path digits
// that follow a letter or such a digit, i.e. kept digits; everything else in it treats all
// digits alike. So "layers.12.experts.200.w1" and "layers.3.experts.7.w1" share an evaluation.
void RuleSet::Impl::memoKey(std::string_view path, std::string& key) const {
  key.assign(path.data(), path.size());
  bool afterLetter = false;
  for (auto& c : key) {
    if (c >= '0' && c <= '9') {
      if (!(keepLetterDigits && afterLetter)) c = '0';
    } else {
      afterLetter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
    }
  }
}

std::vector<int> RuleSet::firstMatches(std::span<const std::string_view> paths) const {
  const Impl& im = *impl_;
  const int n = static_cast<int>(im.rules.size());
  // What is known, per memo key, of the digit-insensitive rules (whose answers are a function of
  // the key): none below `below` matches, and when `hit`, rule `below` itself matches.
  struct Known {
    int below = 0;
    bool hit = false;
  };
  std::unordered_map<std::string, Known> memo;
  // Candidates of one path, ascending: the rules whose anchor literal the path contains, merged
  // from the per-anchor lists (each ascending) and the rules without an anchor.
  std::vector<int> anchorSeen(im.anchorRules.size(), -1);
  std::vector<std::pair<const int*, const int*>> lists;
  std::vector<std::pair<int, std::size_t>> heap; // (rule, list), smallest rule on top
  const auto later = [](const auto& a, const auto& b) { return a.first > b.first; };

  std::vector<int> out;
  out.reserve(paths.size());
  std::string key;
  for (std::size_t pi = 0; pi < paths.size(); ++pi) {
    const std::string_view path = paths[pi];
    im.memoKey(path, key);
    Known& known = memo.try_emplace(key).first->second;
    // The insensitive rules are settled for this key: done unless a sensitive rule comes first.
    const int settled = known.hit ? known.below : (known.below >= n ? n : -1);
    if (settled >= 0 && settled <= im.firstSensitive) {
      out.push_back(settled < n ? settled : -1);
      continue;
    }
    const int stop = known.hit ? known.below : n; // rules from here on cannot be the first match
    lists.clear();
    if (!im.freeRules.empty()) lists.emplace_back(im.freeRules.data(), im.freeRules.data() + im.freeRules.size());
    im.scanner.scan(path, [&](int anchor) {
      if (anchorSeen[static_cast<std::size_t>(anchor)] == static_cast<int>(pi)) return;
      anchorSeen[static_cast<std::size_t>(anchor)] = static_cast<int>(pi);
      const auto& rs = im.anchorRules[static_cast<std::size_t>(anchor)];
      lists.emplace_back(rs.data(), rs.data() + rs.size());
    });
    heap.clear();
    for (std::size_t l = 0; l < lists.size(); ++l) heap.emplace_back(*lists[l].first, l);
    std::make_heap(heap.begin(), heap.end(), later);
    int found = -1;
    while (!heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), later);
      const auto [i, l] = heap.back();
      heap.pop_back();
      if (i >= stop) break;
      if (++lists[l].first != lists[l].second) {
        heap.emplace_back(*lists[l].first, l);
        std::push_heap(heap.begin(), heap.end(), later);
      }
      const bool insensitive = im.digitInsensitive[static_cast<std::size_t>(i)];
      if (insensitive && i < known.below) continue; // known not to match this key
      if (im.search(static_cast<std::size_t>(i), path)) {
        found = i;
        break;
      }
    }
    // Every rule below the answer failed (or was never a candidate: its anchor is missing, which
    // for an insensitive rule holds for the whole key).
    if (found >= 0) {
      if (im.digitInsensitive[static_cast<std::size_t>(found)]) {
        known = {found, true};
      } else {
        known.below = std::max(known.below, found);
      }
    } else if (stop < n) {
      found = stop; // the insensitive rule known to match
    } else {
      known.below = n;
    }
    out.push_back(found);
  }
  return out;
}

// --- matchPartitionRules -------------------------------------------------------------------------

std::vector<RuleMatch> matchPartitionRules(const RuleSet& rules, std::span<const ParamLeaf> leaves,
                                           const MatchOptions& options) {
  const std::int64_t minSize = options.min_size.value_or(kMinShardingSize);
  std::vector<RuleMatch> out(leaves.size());
  std::vector<std::size_t> order(leaves.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return leaves[a].path < leaves[b].path; });

  // Rule indices for every leaf the rules will see, computed in one batch in sorted order.
  std::vector<std::string> toMatch;
  std::vector<int> ruleOf(leaves.size(), -1);
  std::vector<std::size_t> matchedLeaf;
  for (std::size_t idx : order) {
    const ParamLeaf& leaf = leaves[idx];
    if (options.strict && (!leaf.shape || leaf.shape->empty())) continue;
    toMatch.push_back(leaf.path);
    matchedLeaf.push_back(idx);
  }
  const std::vector<int> found = rules.firstMatches(toMatch);
  for (std::size_t k = 0; k < found.size(); ++k) ruleOf[matchedLeaf[k]] = found[k];

  using K = ShardingDiagnostic::Kind;
  for (std::size_t idx : order) {
    const ParamLeaf& leaf = leaves[idx];
    RuleMatch& m = out[idx];
    if (options.strict && !leaf.shape) {
      m.diagnostics.push_back({K::NoShape, -1, "", "leaf has no shape: the rules give P() without being tried"});
      continue;
    }
    if (options.strict && leaf.shape->empty()) {
      m = applyRule(rules, -1, *leaf.shape, minSize, leaf.path);
      continue;
    }
    const int r = ruleOf[idx];
    if (r < 0) throwValueError("Partition rule not found for param: " + leaf.path);
    if (!options.strict) {
      m.rule = r;
      m.spec = rules.rule(static_cast<std::size_t>(r)).spec;
      continue;
    }
    m = applyRule(rules, r, *leaf.shape, minSize, leaf.path);
  }
  return out;
}

RuleMatch applyRule(const RuleSet& rules, int r, const Shape& shape, std::int64_t minSize, std::string_view path) {
  using K = ShardingDiagnostic::Kind;
  RuleMatch m;
  if (shape.empty()) {
    m.diagnostics.push_back({K::Scalar, -1, "", "scalar leaf: the rules give P() without being tried"});
    return m;
  }
  m.rule = r;
  const PartitionSpec& ps = rules.rule(static_cast<std::size_t>(r)).spec;
  std::int64_t size = 1;
  for (auto d : shape)
    if (__builtin_mul_overflow(size, d, &size))
      throwValueError("parameter '" + std::string(path) + "': shape is too large");
  if (size < minSize) {
    if (!ps.isReplicated())
      m.diagnostics.push_back({K::BelowMinSize, -1, "",
                               "rule " + std::to_string(r) + " gives " + ps.toString() + " but the array has " +
                                   std::to_string(size) + " elements < min_size " + std::to_string(minSize) +
                                   ": kept whole on every device, P()"});
    return m; // P()
  }
  if (ps.size() > shape.size()) {
    std::vector<SpecEntry> cut(ps.entries().begin(), ps.entries().begin() + static_cast<std::ptrdiff_t>(shape.size()));
    m.spec = PartitionSpec(std::move(cut));
    m.diagnostics.push_back({K::SpecTrimmed, -1, "",
                             "rule " + std::to_string(r) + " gives " + ps.toString() + ", longer than the rank " +
                                 std::to_string(shape.size()) + ": trimmed to " + m.spec.toString()});
    return m;
  }
  m.spec = ps;
  return m;
}

// --- correction ------------------------------------------------------------------------------------

namespace {

// The shared per-entry correction of get_corrected_named_sharding and with_sharding_constraint,
// applied to a non-empty spec on a mesh with axes.
PartitionSpec correctEntries(const MeshAxes& mesh, const Shape& shape, const PartitionSpec& spec,
                             ShardingDiagnostics* diags) {
  using K = ShardingDiagnostic::Kind;
  auto note = [&](K kind, int dim, std::string axis, std::string message) {
    if (diags) diags->push_back({kind, dim, std::move(axis), std::move(message)});
  };
  const std::size_t ndim = shape.size();
  std::vector<SpecEntry> entries = spec.entries();
  if (entries.size() < ndim)
    entries.resize(ndim);
  else if (entries.size() > ndim) {
    entries.resize(ndim);
    note(K::SpecTrimmed, -1, "",
         spec.toString() + " is longer than the rank " + std::to_string(ndim) + ": trimmed to " +
             PartitionSpec(entries).toString());
  }
  bool anyAsked = false;
  std::vector<int> firstDimOfAxis(mesh.rank(), -1);
  for (std::size_t i = 0; i < entries.size(); ++i) {
    SpecEntry& e = entries[i];
    const int dim = static_cast<int>(i);
    if (e.isNone()) continue;
    anyAsked = true;
    if (e.kind == SpecEntry::Kind::Unconstrained) {
      note(K::UnexpectedEntry, dim, "", "dimension " + std::to_string(i) + " is UNCONSTRAINED: treated as None");
      e = SpecEntry::none();
      continue;
    }
    std::int64_t product = 1;
    bool valid = true;
    for (const auto& member : e.members) {
      const int a = member ? mesh.index(*member) : -1;
      if (a < 0) {
        note(K::AxisMissing, dim, member.value_or(""),
             "dimension " + std::to_string(i) + ": axis " + (member ? pythonStrRepr(*member) : std::string("None")) +
                 " of " + entryRepr(e) + " is not in the mesh " + mesh.describe() +
                 ": the whole dimension is replicated");
        valid = false;
        break;
      }
      // A tuple repeating an axis can exceed 64 bits; saturate (Python's big int divides nothing).
      if (__builtin_mul_overflow(product, mesh.sizes[static_cast<std::size_t>(a)], &product))
        product = std::numeric_limits<std::int64_t>::max();
    }
    if (!valid) {
      e = SpecEntry::none();
      continue;
    }
    if (shape[i] % product != 0) {
      std::string axes;
      for (const auto& member : e.members) axes += (axes.empty() ? "" : ",") + *member;
      note(K::NotDivisible, dim, axes,
           "dimension " + std::to_string(i) + " (size " + std::to_string(shape[i]) + ") is not divisible by " +
               entryRepr(e) + " = " + std::to_string(product) + ": replicated instead");
      e = SpecEntry::none();
      continue;
    }
    // Not corrected by eformer (JAX rejects it later); reported so the user sees it first.
    for (const auto& member : e.members) {
      const auto a = static_cast<std::size_t>(mesh.index(*member));
      if (firstDimOfAxis[a] >= 0)
        note(K::DuplicateAxis, dim, *member,
             "mesh axis " + pythonStrRepr(*member) + " already shards dimension " + std::to_string(firstDimOfAxis[a]) +
                 "; JAX rejects a spec that uses an axis twice");
      else
        firstDimOfAxis[a] = dim;
    }
  }
  PartitionSpec corrected(std::move(entries));
  if (corrected.isReplicated()) {
    if (anyAsked) note(K::AllReplicated, -1, "", "no dimension stays sharded: the spec becomes P() (fully replicated)");
    return PartitionSpec();
  }
  return corrected;
}

} // namespace

PartitionSpec correctSpec(const MeshAxes& mesh, const Shape& shape, const PartitionSpec& spec,
                          ShardingDiagnostics* diagnostics) {
  return getCorrectedNamedSharding(&mesh, shape, spec, true, diagnostics);
}

PartitionSpec getCorrectedNamedSharding(const MeshAxes* mesh, const Shape& shape, const PartitionSpec& spec,
                                        bool raiseMeshError, ShardingDiagnostics* diagnostics) {
  if (!mesh || mesh->empty()) {
    if (raiseMeshError) throwAssertion("No mesh found under this context manager.");
    if (diagnostics)
      diagnostics->push_back(
          {ShardingDiagnostic::Kind::NoMesh, -1, "", "no mesh: replicated sharding on an empty mesh"});
    return PartitionSpec();
  }
  if (spec.empty()) return PartitionSpec();
  return correctEntries(*mesh, shape, spec, diagnostics);
}

std::optional<PartitionSpec> withShardingConstraintSpec(const MeshAxes* mesh, const Shape& shape,
                                                        const PartitionSpec& spec, ShardingDiagnostics* diagnostics) {
  if (!mesh || mesh->empty()) {
    if (diagnostics)
      diagnostics->push_back({ShardingDiagnostic::Kind::NoMesh, -1, "",
                              "no mesh in context: with_sharding_constraint returns the array unchanged"});
    return std::nullopt;
  }
  if (spec.empty()) {
    if (diagnostics)
      diagnostics->push_back({ShardingDiagnostic::Kind::NoConstraint, -1, "",
                              "P() means no constraint at all here (not replicated): the array is returned unchanged"});
    return std::nullopt;
  }
  return correctEntries(*mesh, shape, spec, diagnostics);
}

} // namespace shardscope
