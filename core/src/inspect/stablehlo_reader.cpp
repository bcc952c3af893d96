// SPDX-License-Identifier: Apache-2.0
// The StableHLO reader's scan. The text is read as tokens without building an MLIR tree: strings
// and `loc(...)` are skipped whole, `#alias = loc(...)` lines recorded, braces counted (regions),
// and a dotted word not followed by '=' (so not an attribute key) is an op name. Function
// signatures, `sdy.mesh` ops and the module's attributes are read in full.
#include "inspect/stablehlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/sharding/hlo_sharding.hpp"

#include <algorithm>

namespace shardscope::inspect_detail {

StableHloReader::StableHloReader(std::string_view text, const InspectOptions& options)
    : c_(text, options.source_name), options_(options) {}

InspectResult StableHloReader::read() {
  out_.kind = InspectKind::StableHlo;
  scan();
  finish();
  return std::move(out_);
}

void StableHloReader::scan() {
  for (;;) {
    c_.skipSpace();
    if (c_.atEnd()) return;
    const std::size_t at = c_.pos();
    const char ch = c_.peek();
    if (ch == '"') {
      const std::string_view s = c_.quoted("a string");
      // "stablehlo.collective_permute"(...): an op in MLIR's generic form.
      if (c_.peek() == '(' && s.find('.') != std::string_view::npos) onOp(s, at);
    } else if (ch == '{') {
      c_.advance();
      onRegionOpen();
      if (++depth_ > int(kMaxNesting)) c_.failAt(at, "regions nested deeper than " + std::to_string(kMaxNesting));
    } else if (ch == '}') {
      c_.advance();
      if (--depth_ < 0) c_.failAt(at, "a '}' that closes nothing");
      while (!regions_.empty() && regions_.back().depth > depth_) {
        const Region closed = std::move(regions_.back());
        regions_.pop_back();
        onRegionClose(closed);
      }
    } else if (ch == '#') {
      onHash();
    } else if (ch == '!' || ch == '%' || ch == '@' || ch == '^') {
      c_.advance();
      if (c_.peek() == '"')
        c_.quoted("a quoted name");
      else
        c_.name();
    } else if (isAlpha(ch) || ch == '_') {
      onWord(c_.name(), at);
    } else {
      c_.advance();
    }
  }
}

void StableHloReader::onHash() {
  // `#loc3 = loc("x")` (an alias line) or an attribute `#sdy.sharding<...>` / `#stablehlo<...>`.
  const std::size_t at = c_.pos();
  c_.advance();
  const std::string_view name = c_.name();
  if (c_.peek() == '<') {
    c_.skipBalanced(true);
    return;
  }
  if (c_.next() != '=' || c_.startsWith("==")) return;
  c_.advance();
  if (!c_.acceptWord("loc")) return;
  std::string locName;
  readLoc(locName);
  if (!locName.empty() && locNames_.size() < (std::size_t{1} << 20))
    locNames_.emplace(c_.text().substr(at, name.size() + 1), std::move(locName));
}

void StableHloReader::onWord(std::string_view word, std::size_t at) {
  if (word == "loc" && c_.peek() == '(') {
    c_.skipBalanced(false);
  } else if (word == "module" || word == "builtin.module") {
    readModule();
  } else if (word == "sdy.mesh") {
    readMesh();
  } else if (word == "func.func") {
    readFunction();
  } else if (word == "mhlo.sharding" && c_.accept("=") && c_.next() == '"') {
    // GSPMD shardings on ops (custom_call @Sharding): the largest tile count tells the device count
    // of a module without mhlo.num_partitions.
    const std::string text = unescapeString(c_.quoted("a sharding string"));
    try {
      const HloSharding s = parseHloSharding(text);
      if (s.kind == HloSharding::Kind::Tiled) gspmdDevices_ = std::max(gspmdDevices_, s.tileCount());
    } catch (const Error&) {}
  } else if (word.find('.') != std::string_view::npos && c_.next() != '=') {
    onOp(word, at);
  }
}

void StableHloReader::readAttributeDict(const std::function<void(std::string_view, std::string_view)>& onAttr) {
  c_.expect("{", "'{' opening an attribute dictionary");
  if (c_.accept("}")) return;
  do {
    std::string_view key;
    if (c_.next() == '"')
      key = c_.quoted("an attribute name");
    else
      key = c_.name();
    if (key.empty()) c_.fail("an attribute name");
    std::string_view value;
    if (c_.accept("=")) value = c_.mlirValue();
    onAttr(key, value); // a unit attribute has no value
  } while (c_.accept(","));
  c_.expect("}", "',' or '}' in an attribute dictionary");
}

void StableHloReader::readModule() {
  // module [@name] [attributes {...}] { ... }
  if (c_.accept("@")) out_.module = std::string(c_.peek() == '"' ? c_.quoted("a module name") : c_.name());
  if (c_.acceptWord("attributes"))
    readAttributeDict([this](std::string_view key, std::string_view value) { readModuleAttr(key, value); });
}

void StableHloReader::readModuleAttr(std::string_view key, std::string_view value) {
  const auto leadingInt = [&](std::string_view v) -> std::int64_t {
    std::int64_t n = 0;
    for (std::size_t i = 0; i < v.size() && isDigit(v[i]) && n < kMaxInspectDevices; ++i) n = n * 10 + (v[i] - '0');
    return n;
  };
  if (key == "mhlo.num_partitions")
    partitions_ = leadingInt(value);
  else if (key == "mhlo.num_replicas")
    replicas_ = leadingInt(value);
  else if (key == "mhlo.frontend_attributes") {
    // {xla.sdy.meshes = "{mesh = #sdy.mesh<[\22a\22=1]>}"}: the round-trip form's meshes.
    const auto at = value.find("xla.sdy.meshes");
    if (at == std::string_view::npos) return;
    const auto quote = value.find('"', at);
    if (quote == std::string_view::npos) return;
    TextCursor v(c_.text(), c_.source());
    v.seek(std::size_t(value.data() - c_.text().data()) + quote);
    const std::size_t start = v.pos();
    const std::string meshes = unescapeString(v.quoted("the xla.sdy.meshes string"));
    TextCursor mc(meshes, c_.source(), c_.text(), start);
    readSdyMeshDict(mc, meshes_);
  }
}

void StableHloReader::readMesh() {
  // sdy.mesh @name = <...>
  c_.expect("@", "'@' and the mesh name");
  const std::string name(c_.peek() == '"' ? c_.quoted("a mesh name") : c_.name());
  if (name.empty()) c_.fail("a mesh name");
  c_.expect("=", "'=' after the mesh name");
  InspectMesh mesh = readSdyMeshBody(c_);
  mesh.name = name;
  for (const auto& m : meshes_)
    if (m.name == name) c_.fail("a mesh name not defined before ('" + name + "' is)");
  if (meshes_.size() < 256) meshes_.push_back(std::move(mesh));
}

void StableHloReader::readFunction() {
  // func.func [public|private|nested] @name(args) [-> results] [attributes {...}] [{ body }]
  bool isPrivate = false;
  for (;;) {
    if (c_.acceptWord("private"))
      isPrivate = true;
    else if (!c_.acceptWord("public") && !c_.acceptWord("nested"))
      break;
  }
  c_.expect("@", "'@' and the function name");
  function_ = std::string(c_.peek() == '"' ? c_.quoted("a function name") : c_.name());
  if (function_.empty()) c_.fail("a function name");
  if (functions_.size() < 65536) {
    functions_.push_back(function_);
    if (!isPrivate) publicFunctions_.push_back(function_);
  }
  readValueList(false);
  if (c_.accept("->")) readValueList(true);
  if (c_.acceptWord("attributes")) readAttributeDict([](std::string_view, std::string_view) {});
}

void StableHloReader::readValueList(bool results) {
  if (c_.next() != '(') { // one result type without parentheses
    if (!results) c_.fail("'(' opening the arguments");
    RawValue v;
    v.function = function_;
    v.result = true;
    v.type_pos = c_.pos();
    v.type = readType();
    values_.push_back(std::move(v));
    return;
  }
  c_.advance();
  if (c_.accept(")")) return;
  std::int64_t index = 0;
  do {
    if (values_.size() >= (std::size_t{1} << 20)) c_.fail("fewer function arguments");
    values_.push_back(readValue(results, index++));
  } while (c_.accept(","));
  c_.expect(")", results ? "',' or ')' in the results" : "',' or ')' in the arguments");
}

StableHloReader::RawValue StableHloReader::readValue(bool results, std::int64_t index) {
  RawValue v;
  v.function = function_;
  v.result = results;
  v.index = index;
  if (!results && c_.next() == '%') { // a declaration lists bare types
    const std::size_t at = c_.pos();
    c_.advance();
    v.ssa = c_.text().substr(at, c_.name().size() + 1);
    c_.expect(":", "':' after the argument name");
  }
  c_.skipSpace();
  v.type_pos = c_.pos();
  v.type = readType();
  if (c_.next() == '{')
    readAttributeDict([&](std::string_view key, std::string_view value) { readValueAttr(v, key, value); });
  if (c_.acceptWord("loc")) {
    std::string name;
    v.loc_alias = readLoc(name);
    if (v.name.empty()) v.name = std::move(name);
  }
  return v;
}

void StableHloReader::readValueAttr(RawValue& v, std::string_view key, std::string_view value) {
  const auto stringValue = [&]() -> std::string {
    if (value.size() < 2 || value.front() != '"') return "";
    return unescapeString(value.substr(1, value.size() - 2));
  };
  if (key == "sdy.sharding")
    v.sdy = value;
  else if (key == "mhlo.sharding")
    v.gspmd = value;
  else if (key == "jax.arg_info" || key == "jax.result_info")
    v.name = stringValue();
  else if (key == "mhlo.memory_kind")
    v.memory_kind = stringValue();
  else if (key == "mhlo.frontend_attributes") {
    const auto at = value.find("xla.sdy.sharding");
    const auto quote = at == std::string_view::npos ? at : value.find('"', at);
    if (quote == std::string_view::npos) return;
    TextCursor s(c_.text(), c_.source());
    s.seek(std::size_t(value.data() - c_.text().data()) + quote);
    v.sdy_unescaped_pos = s.pos();
    v.sdy_unescaped = unescapeString(s.quoted("the xla.sdy.sharding string"));
  }
}

std::string_view StableHloReader::readType() {
  // tensor<...>, tuple<...>, !stablehlo.token, !dialect.type<...>, f32, index ...
  c_.skipSpace();
  const std::size_t at = c_.pos();
  c_.accept("!");
  if (c_.name().empty()) c_.fail("a type");
  if (c_.peek() == '<') c_.skipBalanced(true);
  return c_.text().substr(at, c_.pos() - at);
}

std::string_view StableHloReader::readLoc(std::string& name) {
  // loc("x"), loc("x"(#loc3)), loc(#loc7), loc("file.py":12:4), loc(callsite(...)), loc(unknown).
  if (c_.next() != '(') c_.fail("'(' after loc");
  const std::string_view inner = c_.skipBalanced(false);
  TextCursor l(c_.text(), c_.source());
  l.seek(std::size_t(inner.data() - c_.text().data()) + 1);
  if (l.next() == '#') {
    const std::size_t at = l.pos();
    l.advance();
    return c_.text().substr(at, l.name().size() + 1);
  }
  if (l.next() == '"') {
    const std::string s = unescapeString(l.quoted("a location name"));
    if (l.next() != ':') name = s; // "file.py":12:4 is a file location, not a name
  }
  return {};
}

bool knownMlirDialect(std::string_view op) {
  const auto dot = op.find('.');
  const std::string_view dialect = op.substr(0, dot);
  for (const std::string_view d : {"stablehlo", "sdy", "func", "chlo", "mhlo", "builtin", "vhlo", "tensor", "arith"})
    if (dialect == d) return true;
  return false;
}

} // namespace shardscope::inspect_detail

namespace shardscope {

InspectResult readStableHlo(std::string_view text, const InspectOptions& options) {
  return inspect_detail::StableHloReader(text, options).read();
}

} // namespace shardscope
