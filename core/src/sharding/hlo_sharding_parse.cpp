// SPDX-License-Identifier: Apache-2.0
// The HLO sharding text reader. Grammar (whitespace allowed between tokens, attributes in any
// order, as XLA's HLO parser takes them):
//   sharding   := '{' ( sharding (',' sharding)* | attribute* ) '}'
//   attribute  := 'replicated' | 'manual' | 'maximal' | 'device=' INT
//               | 'devices=' '[' INT (',' INT)* ']' ( '<=' '[' INT (',' INT)* ']' ('T' '(' INT (',' INT)* ')')?
//                                                   | INT (',' INT)* )
//               | 'last_tile_dim_replicate' | 'last_tile_dims=' '{' subgroup (',' subgroup)* '}'
//               | 'metadata=' '{' ... '}'   (skipped)
//   subgroup   := 'replicated' | 'manual'
#include "shardscope/sharding/hlo_sharding.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <cctype>

namespace shardscope {

namespace {

class Reader {
public:
  explicit Reader(std::string_view text) : text_(text) {}

  [[noreturn]] void fail(const std::string& expected) const { failAt(pos_, expected); }
  [[noreturn]] void failAt(std::size_t pos, const std::string& what) const {
    std::string got = "the end of the text";
    if (pos < text_.size()) {
      std::size_t n = 0;
      while (pos + n < text_.size() && n < 12 && !std::isspace(static_cast<unsigned char>(text_[pos + n]))) ++n;
      got = "'" + std::string(text_.substr(pos, std::max<std::size_t>(n, 1))) + "'";
    }
    throwValueError("HLO sharding, column " + std::to_string(pos + 1) + ": expected " + what + ", got " + got);
  }
  [[noreturn]] void refuseAt(std::size_t pos, const std::string& why) const {
    throwValueError("HLO sharding, column " + std::to_string(pos + 1) + ": " + why);
  }

  void skipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }
  bool atEnd() {
    skipSpace();
    return pos_ >= text_.size();
  }
  char peek() {
    skipSpace();
    return pos_ < text_.size() ? text_[pos_] : '\0';
  }
  std::size_t pos() {
    skipSpace();
    return pos_;
  }
  bool accept(std::string_view token) {
    skipSpace();
    if (text_.substr(pos_, token.size()) != token) return false;
    pos_ += token.size();
    return true;
  }
  void expect(std::string_view token, const std::string& what) {
    if (!accept(token)) fail(what);
  }
  // A lowercase word with underscores: an attribute name.
  std::string_view word() {
    skipSpace();
    const std::size_t start = pos_;
    while (pos_ < text_.size() && (std::islower(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '_')) ++pos_;
    return text_.substr(start, pos_ - start);
  }
  // A non-negative decimal integer below `limit`; `what` names it in messages.
  std::int64_t integer(std::int64_t limit, const std::string& what) {
    skipSpace();
    const std::size_t start = pos_;
    if (pos_ >= text_.size() || !std::isdigit(static_cast<unsigned char>(text_[pos_]))) fail(what);
    std::int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      value = value * 10 + (text_[pos_] - '0');
      if (value >= limit) refuseAt(start, what + " must be below " + std::to_string(limit));
      ++pos_;
    }
    return value;
  }
  // Skips a balanced {...} (metadata), quoted strings included; the '{' is already read.
  void skipBraced(std::size_t open) {
    int depth = 1;
    while (pos_ < text_.size()) {
      const char c = text_[pos_++];
      if (c == '"') {
        while (pos_ < text_.size() && text_[pos_] != '"') pos_ += text_[pos_] == '\\' ? 2 : 1;
        if (pos_ >= text_.size()) refuseAt(open, "metadata has an unterminated string");
        ++pos_;
      } else if (c == '{') {
        if (++depth > 64) refuseAt(open, "metadata nests too deeply");
      } else if (c == '}' && --depth == 0) {
        return;
      }
    }
    refuseAt(open, "metadata={ is never closed");
  }

private:
  std::string_view text_;
  std::size_t pos_ = 0;
};

// '[' INT (',' INT)* ']' with every value in [1, limit) and at most kMaxHloTileRank of them.
Shape dimList(Reader& r, const std::string& what) {
  r.expect("[", "'[' opening the " + what);
  Shape dims;
  do {
    if (dims.size() == kMaxHloTileRank)
      r.refuseAt(r.pos(), "more than " + std::to_string(kMaxHloTileRank) + " " + what);
    const std::size_t at = r.pos();
    const std::int64_t d = r.integer(kMaxHloDevices + 1, "a size in the " + what);
    if (d < 1) r.refuseAt(at, "a size in the " + what + " must be at least 1");
    dims.push_back(d);
  } while (r.accept(","));
  r.expect("]", "',' or ']' in the " + what);
  return dims;
}

// Product of dims, refused above kMaxHloDevices.
std::int64_t boundedProduct(Reader& r, std::size_t at, const Shape& dims, const std::string& what) {
  std::int64_t n = 1;
  for (const auto d : dims) {
    n *= d; // both factors <= 2^20 and the running product is checked each step
    if (n > kMaxHloDevices) r.refuseAt(at, what + " name more than " + std::to_string(kMaxHloDevices) + " devices");
  }
  return n;
}

void parseTiles(Reader& r, HloSharding& s) {
  const std::size_t at = r.pos();
  s.tile_dims = dimList(r, "tile dimensions");
  const std::int64_t tiles = boundedProduct(r, at, s.tile_dims, "the tile dimensions");
  if (r.accept("<=")) {
    const std::size_t reshapeAt = r.pos();
    const Shape reshape = dimList(r, "iota reshape dimensions");
    if (boundedProduct(r, reshapeAt, reshape, "the iota reshape dimensions") != tiles)
      r.refuseAt(reshapeAt, "the iota reshape dimensions hold " +
                                std::to_string(boundedProduct(r, reshapeAt, reshape, "")) +
                                " devices but the tile dimensions " + std::to_string(tiles));
    std::vector<int> perm(reshape.size());
    for (std::size_t i = 0; i < perm.size(); ++i) perm[i] = static_cast<int>(i);
    if (r.accept("T")) {
      const std::size_t permAt = r.pos();
      r.expect("(", "'(' opening the transpose");
      perm.clear();
      std::vector<bool> seen(reshape.size(), false);
      do {
        const std::size_t at2 = r.pos();
        if (perm.size() == reshape.size())
          r.refuseAt(at2,
                     "the transpose lists more than the " + std::to_string(reshape.size()) + " reshape dimensions");
        const auto p = static_cast<int>(
            r.integer(static_cast<std::int64_t>(reshape.size()), "a reshape dimension number in the transpose"));
        if (seen[static_cast<std::size_t>(p)])
          r.refuseAt(at2, "the transpose names dimension " + std::to_string(p) + " twice");
        seen[static_cast<std::size_t>(p)] = true;
        perm.push_back(p);
      } while (r.accept(","));
      r.expect(")", "',' or ')' in the transpose");
      if (perm.size() != reshape.size())
        r.refuseAt(permAt, "the transpose has " + std::to_string(perm.size()) + " entries for " +
                               std::to_string(reshape.size()) + " reshape dimensions");
    }
    s.iota = true;
    s.iota_tiles = canonicalIota(reshape, perm);
    return;
  }
  // V1: exactly `tiles` ids, each once.
  std::vector<bool> seen;
  do {
    const std::size_t at2 = r.pos();
    if (static_cast<std::int64_t>(s.devices.size()) == tiles)
      r.refuseAt(at2, "more device ids than the " + std::to_string(tiles) + " tiles");
    const std::int64_t id = r.integer(kMaxHloDevices, "a device id");
    if (static_cast<std::size_t>(id) >= seen.size()) seen.resize(static_cast<std::size_t>(id) + 1, false);
    if (seen[static_cast<std::size_t>(id)]) r.refuseAt(at2, "device " + std::to_string(id) + " is listed twice");
    seen[static_cast<std::size_t>(id)] = true;
    s.devices.push_back(id);
  } while (r.accept(","));
  if (static_cast<std::int64_t>(s.devices.size()) != tiles)
    r.refuseAt(at, "the tile dimensions hold " + std::to_string(tiles) + " devices but " +
                       std::to_string(s.devices.size()) + " are listed");
}

HloSharding parseSharding(Reader& r, int depth, std::size_t& tupleElements);

HloSharding parseTuple(Reader& r, int depth, std::size_t& tupleElements) {
  HloSharding s;
  s.kind = HloSharding::Kind::Tuple;
  do {
    if (++tupleElements > kMaxHloTupleElements)
      r.refuseAt(r.pos(), "more than " + std::to_string(kMaxHloTupleElements) + " tuple elements");
    s.elements.push_back(parseSharding(r, depth + 1, tupleElements));
  } while (r.accept(","));
  r.expect("}", "',' or '}' after a tuple element");
  return s;
}

HloSharding parseSharding(Reader& r, int depth, std::size_t& tupleElements) {
  const std::size_t open = r.pos();
  if (depth > kMaxHloTupleDepth)
    r.refuseAt(open, "tuples nest more than " + std::to_string(kMaxHloTupleDepth) + " deep");
  r.expect("{", "'{' opening a sharding");
  if (r.peek() == '{') return parseTuple(r, depth, tupleElements);

  HloSharding s;
  bool haveKind = false, haveDevice = false, haveSubgroups = false;
  std::size_t deviceAt = 0, subgroupsAt = 0;
  const auto setKind = [&](HloSharding::Kind kind, std::size_t at) {
    if (haveKind) r.refuseAt(at, "a sharding has one kind (replicated, manual, maximal or devices=), this one two");
    haveKind = true;
    s.kind = kind;
  };
  while (!r.accept("}")) {
    const std::size_t at = r.pos();
    if (r.atEnd()) r.fail("'}' closing the sharding");
    const std::string_view name = r.word();
    // An attribute written name=value: the '=' must follow.
    const auto valued = [&](std::string_view n) {
      if (name != n) return false;
      r.expect("=", "'=' after " + std::string(n));
      return true;
    };
    if (name == "replicated") {
      setKind(HloSharding::Kind::Replicated, at);
    } else if (name == "manual") {
      setKind(HloSharding::Kind::Manual, at);
    } else if (name == "maximal") {
      setKind(HloSharding::Kind::Maximal, at);
    } else if (valued("device")) {
      if (haveDevice) r.refuseAt(at, "device= is given twice");
      haveDevice = true;
      deviceAt = at;
      s.device = r.integer(kMaxHloDevices, "a device id after device=");
    } else if (valued("devices")) {
      setKind(HloSharding::Kind::Tiled, at);
      parseTiles(r, s);
    } else if (name == "last_tile_dim_replicate") {
      if (haveSubgroups) r.refuseAt(at, "last_tile_dim_replicate and last_tile_dims are given together");
      haveSubgroups = true;
      subgroupsAt = at;
      s.last_tile_dim_replicate = true;
      s.subgroups = {HloSubgroup::Replicated};
    } else if (valued("last_tile_dims")) {
      if (haveSubgroups) r.refuseAt(at, "last_tile_dim_replicate and last_tile_dims are given together");
      haveSubgroups = true;
      subgroupsAt = at;
      r.expect("{", "'{' opening last_tile_dims");
      do {
        const std::size_t typeAt = r.pos();
        if (s.subgroups.size() == kMaxHloTileRank)
          r.refuseAt(typeAt, "more than " + std::to_string(kMaxHloTileRank) + " subgroup types");
        const std::string_view type = r.word();
        if (type == "replicated")
          s.subgroups.push_back(HloSubgroup::Replicated);
        else if (type == "manual")
          s.subgroups.push_back(HloSubgroup::Manual);
        else if (type.empty())
          r.failAt(typeAt, "a subgroup type (replicated or manual)");
        else
          r.refuseAt(typeAt, "subgroup type '" + std::string(type) + "' is not supported (replicated or manual)");
      } while (r.accept(","));
      r.expect("}", "',' or '}' in last_tile_dims");
    } else if (valued("metadata")) {
      const std::size_t braceAt = r.pos();
      r.expect("{", "'{' opening metadata");
      r.skipBraced(braceAt);
    } else if (name.empty()) {
      r.failAt(at, "a sharding attribute (replicated, manual, maximal, device=, devices=, last_tile_dim_replicate, "
                   "last_tile_dims=, metadata=) or '}'");
    } else {
      r.refuseAt(at, "attribute '" + std::string(name) + "' is not supported");
    }
  }
  if (!haveKind) {
    if (haveDevice) r.refuseAt(deviceAt, "device= needs maximal");
    r.failAt(open + 1, "a sharding kind (replicated, manual, maximal or devices=)");
  }
  if (s.kind == HloSharding::Kind::Maximal && !haveDevice) r.refuseAt(open, "maximal needs device=N");
  if (s.kind != HloSharding::Kind::Maximal && haveDevice) r.refuseAt(deviceAt, "device= belongs only to maximal");
  if (haveSubgroups) {
    if (s.kind != HloSharding::Kind::Tiled) r.refuseAt(subgroupsAt, "subgroups (last_tile_dim*) need devices=");
    if (s.subgroups.size() > s.tile_dims.size())
      r.refuseAt(subgroupsAt, std::to_string(s.subgroups.size()) + " subgroup dimensions but only " +
                                  std::to_string(s.tile_dims.size()) + " tile dimensions");
  }
  return s;
}

} // namespace

std::int64_t HloSharding::tileCount() const {
  std::int64_t n = 1;
  for (const auto d : tile_dims) n *= d;
  return n;
}

HloSharding parseHloSharding(std::string_view text) {
  Reader r(text);
  std::size_t tupleElements = 0;
  HloSharding s = parseSharding(r, 0, tupleElements);
  if (!r.atEnd()) r.fail("the end of the text after the sharding");
  return s;
}

} // namespace shardscope
