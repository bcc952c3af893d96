// SPDX-License-Identifier: Apache-2.0
// Trip counts of StableHLO while loops. StableHLO has no known_trip_count attribute (XLA adds it to
// the compiled module), so the count is read from the loop itself when it has the form JAX's
// `lax.scan` and `lax.fori_loop` lower to:
//
//   %c = stablehlo.constant dense<0> : tensor<i32>
//   %0:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %x) : tensor<i32>, ...
//    cond {
//     %c_1 = stablehlo.constant dense<8> : tensor<i32>
//     %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : ...
//     stablehlo.return %1 : tensor<i1>
//   } do {
//     ...
//     %5 = stablehlo.add %iterArg, %c_2 : tensor<i32>     (%c_2 a constant 1)
//     stablehlo.return %5, ... : ...
//   }
//
// A carried counter starting at a constant, the cond returning one comparison of it with a
// constant (or with a carried value the body passes through unchanged), and the body returning the
// counter plus or minus a constant. Any other loop (a data-dependent exit, a generic-form op, an
// `and` of conditions) has no count: its collectives are counted once and say so. The recogniser
// only looks: it never fails on text it does not understand.
#include "inspect/stablehlo_reader.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope::inspect_detail {

namespace {

constexpr std::int64_t kMaxTrips = std::int64_t{1} << 40; // as the HLO reader's known_trip_count
constexpr std::int64_t kMaxCount = std::int64_t{1} << 62; // executions, nested loops multiplied

// "stablehlo.add" or "mhlo.add" is `name`.
bool isOp(std::string_view op, std::string_view name) {
  const auto dot = op.find('.');
  if (dot == std::string_view::npos) return false;
  const std::string_view dialect = op.substr(0, dot);
  return (dialect == "stablehlo" || dialect == "mhlo") && op.substr(dot + 1) == name;
}

// An SSA value at the cursor ("%iterArg_1", "%3#1"), or "" when there is none.
std::string ssaValue(TextCursor& t) {
  if (t.next() != '%') return "";
  t.advance();
  std::string name(1, '%');
  name.append(t.name());
  if (t.peek() == '#') {
    t.advance();
    name.push_back('#');
    name.append(t.name());
  }
  return name.size() > 1 ? name : "";
}

// An optionally negative decimal integer at the cursor of at most 2^61 in magnitude (differences and
// sums of two stay in range).
std::optional<std::int64_t> smallInteger(TextCursor& t) {
  const bool negative = t.accept("-");
  if (!isDigit(t.next())) return std::nullopt;
  std::int64_t v = 0;
  while (isDigit(t.peek())) {
    v = v * 10 + (t.peek() - '0');
    if (v > (std::int64_t{1} << 61)) return std::nullopt;
    t.advance();
  }
  return negative ? -v : v;
}

std::string directionFlipped(std::string_view d) {
  if (d == "LT") return "GT";
  if (d == "LE") return "GE";
  if (d == "GT") return "LT";
  if (d == "GE") return "LE";
  return std::string(d);
}

// Iterations of `for (i = init; i <dir> limit; i += step)`; nullopt when it does not end or is not
// one of these forms.
std::optional<std::int64_t> iterations(std::string_view dir, std::int64_t init, std::int64_t limit, std::int64_t step) {
  const auto ceilDiv = [](std::int64_t a, std::int64_t b) { return a <= 0 ? 0 : (a + b - 1) / b; };
  std::optional<std::int64_t> n;
  if (dir == "LT" && step > 0) n = ceilDiv(limit - init, step);
  if (dir == "LE" && step > 0) n = ceilDiv(limit - init + 1, step);
  if (dir == "GT" && step < 0) n = ceilDiv(init - limit, -step);
  if (dir == "GE" && step < 0) n = ceilDiv(init - limit + 1, -step);
  if (dir == "NE" && step != 0 && (limit - init) % step == 0 && (limit - init) / step >= 0) n = (limit - init) / step;
  if (n && *n > kMaxTrips) return std::nullopt;
  return n;
}

} // namespace

void StableHloReader::readConstant(std::size_t at) {
  // %c = stablehlo.constant [{attrs}] dense<8> : tensor<i32>: scalar integers only.
  TextCursor t(c_.text(), c_.source());
  t.seek(c_.pos());
  try {
    if (t.next() == '{') t.skipBalanced(true);
  } catch (const Error&) {
    return;
  }
  if (!t.acceptWord("dense") || !t.accept("<")) return;
  const auto value = smallInteger(t);
  if (!value || !t.accept(">") || !t.accept(":") || !t.accept("tensor<")) return;
  const std::string_view type = t.name();
  if (!(type.starts_with("i") || type.starts_with("ui") || type.starts_with("si")) || !t.accept(">")) return;
  const std::string name = resultName(c_.text(), at, 0);
  if (name.starts_with("%") && constants_.size() < (std::size_t{1} << 20)) constants_[name] = *value;
}

void StableHloReader::readWhile() {
  // stablehlo.while(%iterArg = %c, %iterArg_0 = %x) : types ... cond { } do { }
  while (!loops_.empty() && loops_.back().depth >= depth_) loops_.pop_back(); // regions never came
  WhileLoop loop;
  loop.depth = depth_;
  loop.first_collective = out_.collectives.size();
  TextCursor t(c_.text(), c_.source());
  t.seek(c_.pos());
  if (t.accept("(") && !t.accept(")")) {
    do {
      WhileLoop::Carried v;
      v.name = ssaValue(t);
      if (v.name.empty() || !t.accept("=")) break;
      const std::string init = ssaValue(t);
      if (const auto it = constants_.find(init); it != constants_.end()) v.init = it->second;
      if (loop.carried.size() < 4096) loop.carried.push_back(std::move(v));
    } while (t.accept(","));
  }
  loops_.push_back(std::move(loop));
}

void StableHloReader::onRegionOpen() {
  // A '{' at the depth of the innermost open while op opens its cond, then its body.
  if (loops_.empty()) return;
  WhileLoop& loop = loops_.back();
  if (loop.depth != depth_ || loop.regions >= 2) return;
  Region r;
  r.depth = depth_ + 1;
  r.body = loop.regions++ == 1;
  r.loop = loops_.size() - 1;
  if (r.body) loop.first_body_collective = out_.collectives.size();
  regions_.push_back(std::move(r));
}

void StableHloReader::readLoopOp(std::string_view op, std::size_t at) {
  const Region& region = regions_.back();
  if (region.loop >= loops_.size()) return;
  WhileLoop& loop = loops_[region.loop];
  TextCursor t(c_.text(), c_.source());
  t.seek(c_.pos());
  const auto constant = [&](const std::string& name) -> std::optional<std::int64_t> {
    const auto it = constants_.find(name);
    return it == constants_.end() ? std::nullopt : std::optional(it->second);
  };
  if (!region.body && isOp(op, "compare")) {
    // %1 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : ...
    ++loop.compares;
    loop.direction = std::string(t.name());
    if (!t.accept(",")) return;
    loop.compared_lhs = ssaValue(t);
    if (!t.accept(",")) return;
    loop.compared_rhs = ssaValue(t);
    loop.lhs_constant = constant(loop.compared_lhs);
    loop.rhs_constant = constant(loop.compared_rhs);
    loop.compare_result = resultName(c_.text(), at, 0);
  } else if (region.body && (isOp(op, "add") || isOp(op, "subtract"))) {
    // %5 = stablehlo.add %iterArg, %c_2 : tensor<i32>  (or %c_2, %iterArg for add)
    const std::string a = ssaValue(t);
    if (!t.accept(",")) return;
    const std::string b = ssaValue(t);
    const bool add = isOp(op, "add");
    WhileLoop::Step s;
    s.result = resultName(c_.text(), at, 0);
    if (const auto k = constant(b)) {
      s.carried = a;
      s.by = add ? *k : -*k;
    } else if (const auto k2 = constant(a); k2 && add) {
      s.carried = b;
      s.by = *k2;
    } else {
      return;
    }
    if (loop.steps.size() < 4096) loop.steps.push_back(std::move(s));
  } else if (isOp(op, "return")) {
    // stablehlo.return %5, %6 : ...
    std::vector<std::string> values;
    do {
      std::string v = ssaValue(t);
      if (v.empty()) break;
      if (values.size() < 4096) values.push_back(std::move(v));
    } while (t.accept(","));
    if (region.body)
      loop.body_returned = std::move(values);
    else
      loop.cond_returned = values.size() == 1 ? values.front() : "";
  }
}

void StableHloReader::onRegionClose(const Region& region) {
  if (region.manual || !region.body || region.loop >= loops_.size()) return;
  finishLoop(loops_[region.loop]);
  loops_.resize(region.loop);
}

void StableHloReader::finishLoop(WhileLoop& loop) {
  // The counter: the compared carried value whose init is a constant and which the body advances by
  // a constant step; the limit: a constant, or a carried constant the body passes through.
  std::optional<std::int64_t> trips;
  const auto carriedAt = [&](const std::string& name) -> std::ptrdiff_t {
    for (std::size_t i = 0; i < loop.carried.size(); ++i)
      if (loop.carried[i].name == name) return std::ptrdiff_t(i);
    return -1;
  };
  const auto limitOf = [&](const std::string& name, std::optional<std::int64_t> constant) {
    if (constant) return constant;
    const std::ptrdiff_t k = carriedAt(name);
    if (k < 0 || std::size_t(k) >= loop.body_returned.size() || loop.body_returned[std::size_t(k)] != name)
      return std::optional<std::int64_t>();
    return loop.carried[std::size_t(k)].init; // passed through unchanged
  };
  const auto counterStep = [&](const std::string& name) -> std::optional<std::int64_t> {
    const std::ptrdiff_t k = carriedAt(name);
    if (k < 0 || !loop.carried[std::size_t(k)].init || std::size_t(k) >= loop.body_returned.size()) return std::nullopt;
    for (const auto& s : loop.steps)
      if (s.result == loop.body_returned[std::size_t(k)] && s.carried == name) return s.by;
    return std::nullopt;
  };
  if (loop.compares == 1 && !loop.compare_result.empty() && loop.cond_returned == loop.compare_result) {
    for (const bool counterLeft : {true, false}) {
      const std::string& counter = counterLeft ? loop.compared_lhs : loop.compared_rhs;
      const std::string& other = counterLeft ? loop.compared_rhs : loop.compared_lhs;
      const auto step = counterStep(counter);
      const auto limit = limitOf(other, counterLeft ? loop.rhs_constant : loop.lhs_constant);
      if (!step || !limit) continue;
      const std::string dir = counterLeft ? loop.direction : directionFlipped(loop.direction);
      trips = iterations(dir, *loop.carried[std::size_t(carriedAt(counter))].init, *limit, *step);
      if (trips) break;
    }
  }
  const std::size_t end = std::min(out_.collectives.size(), std::size_t(kMaxInspectInstructions));
  for (std::size_t i = std::min(loop.first_collective, end); i < end; ++i) {
    InspectCollective& c = out_.collectives[i];
    if (trips) {
      // The cond runs once more than the body.
      const std::int64_t n = i < loop.first_body_collective ? *trips + 1 : *trips;
      std::int64_t r = 0;
      c.trip_count = __builtin_mul_overflow(c.trip_count, n, &r) || r > kMaxCount ? kMaxCount : r;
      if (n == 0)
        c.note += std::string(c.note.empty() ? "" : "; ") + "inside a stablehlo.while loop that never runs its body";
    } else {
      c.note += std::string(c.note.empty() ? "" : "; ") +
                "inside a stablehlo.while loop that does not count a constant range: that loop counted once";
    }
  }
}

} // namespace shardscope::inspect_detail
