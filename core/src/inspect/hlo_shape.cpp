// SPDX-License-Identifier: Apache-2.0
// HLO shapes and MLIR tensor types, and their element types (grammar: docs/inspect.md, XLA's
// shape_util / layout.cc printers, MLIR's builtin types).
#include "shardscope/inspect/hlo_shape.hpp"

#include "inspect/inspect_parsers.hpp"
#include "shardscope/base/dtype.hpp"

#include <array>

namespace shardscope {

namespace {

struct TypeName {
  std::string_view spelling;
  std::string_view dtype;
  int bits;
};

// XLA's primitive type names (primitive_util) with ml_dtypes' names for them.
constexpr std::array<TypeName, 32> kHloTypes{{
    {"pred", "bool", 8},
    {"s1", "int1", 1},
    {"s2", "int2", 2},
    {"s4", "int4", 4},
    {"s8", "int8", 8},
    {"s16", "int16", 16},
    {"s32", "int32", 32},
    {"s64", "int64", 64},
    {"u1", "uint1", 1},
    {"u2", "uint2", 2},
    {"u4", "uint4", 4},
    {"u8", "uint8", 8},
    {"u16", "uint16", 16},
    {"u32", "uint32", 32},
    {"u64", "uint64", 64},
    {"f16", "float16", 16},
    {"bf16", "bfloat16", 16},
    {"f32", "float32", 32},
    {"f64", "float64", 64},
    {"c64", "complex64", 64},
    {"c128", "complex128", 128},
    {"f8e5m2", "float8_e5m2", 8},
    {"f8e4m3", "float8_e4m3", 8},
    {"f8e4m3fn", "float8_e4m3fn", 8},
    {"f8e4m3b11fnuz", "float8_e4m3b11fnuz", 8},
    {"f8e5m2fnuz", "float8_e5m2fnuz", 8},
    {"f8e4m3fnuz", "float8_e4m3fnuz", 8},
    {"f8e3m4", "float8_e3m4", 8},
    {"f8e8m0fnu", "float8_e8m0fnu", 8},
    {"f4e2m1fn", "float4_e2m1fn", 4},
    {"token", "token", 0},
    {"opaque", "opaque", 0},
}};

// MLIR's builtin element types as StableHLO uses them (signless iN are integers; i1 is a bool).
constexpr std::array<TypeName, 32> kMlirTypes{{
    {"i1", "bool", 8},
    {"i2", "int2", 2},
    {"i4", "int4", 4},
    {"i8", "int8", 8},
    {"i16", "int16", 16},
    {"i32", "int32", 32},
    {"i64", "int64", 64},
    {"si8", "int8", 8},
    {"si16", "int16", 16},
    {"si32", "int32", 32},
    {"si64", "int64", 64},
    {"ui2", "uint2", 2},
    {"ui4", "uint4", 4},
    {"ui8", "uint8", 8},
    {"ui16", "uint16", 16},
    {"ui32", "uint32", 32},
    {"ui64", "uint64", 64},
    {"index", "int64", 64},
    {"f16", "float16", 16},
    {"bf16", "bfloat16", 16},
    {"f32", "float32", 32},
    {"f64", "float64", 64},
    {"f8E5M2", "float8_e5m2", 8},
    {"f8E4M3", "float8_e4m3", 8},
    {"f8E4M3FN", "float8_e4m3fn", 8},
    {"f8E4M3B11FNUZ", "float8_e4m3b11fnuz", 8},
    {"f8E5M2FNUZ", "float8_e5m2fnuz", 8},
    {"f8E4M3FNUZ", "float8_e4m3fnuz", 8},
    {"f8E3M4", "float8_e3m4", 8},
    {"f8E8M0FNU", "float8_e8m0fnu", 8},
    {"f4E2M1FN", "float4_e2m1fn", 4},
    {"tf32", "float32", 32},
}};

template <std::size_t N>
std::optional<InspectElementType> lookUp(const std::array<TypeName, N>& table, std::string_view name) {
  for (const auto& t : table)
    if (t.spelling == name) return InspectElementType{std::string(t.dtype), t.bits};
  return std::nullopt;
}

constexpr std::int64_t kMaxDim = std::int64_t{1} << 62;

} // namespace

std::optional<InspectElementType> hloElementType(std::string_view name) { return lookUp(kHloTypes, name); }

std::optional<InspectElementType> mlirElementType(std::string_view name) {
  if (name == "complex<f32>") return InspectElementType{"complex64", 64};
  if (name == "complex<f64>") return InspectElementType{"complex128", 128};
  return lookUp(kMlirTypes, name);
}

std::int64_t inspectBytes(const InspectElementType& type, std::int64_t elements) {
  if (type.bits == 0) return 0;
  return DType{type.dtype, type.bits, (type.bits + 7) / 8}.bytesFor(elements);
}

std::optional<std::int64_t> HloArrayShape::elements() const {
  std::int64_t n = 1;
  for (const auto d : dims) {
    if (d < 0) return std::nullopt;
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxDim)
      throwValueError("the shape " + text() + " has more elements than 2^62");
  }
  return n;
}

std::optional<std::int64_t> HloArrayShape::bytes() const {
  const auto n = elements();
  if (!n) return std::nullopt;
  return inspectBytes(type, *n);
}

std::optional<std::int64_t> HloArrayShape::paddedBytes() const {
  if (!elements()) return std::nullopt;
  if (tiles.empty() || type.bits == 0) return bytes();
  // Physical order is minor_to_major reversed; without one, row-major.
  std::vector<std::int64_t> physical;
  if (minor_to_major.size() == dims.size()) {
    for (std::size_t i = minor_to_major.size(); i-- > 0;) physical.push_back(dims[std::size_t(minor_to_major[i])]);
  } else {
    physical = dims;
  }
  const Shape& tile = tiles.front();
  while (physical.size() < tile.size()) physical.insert(physical.begin(), 1);
  std::int64_t n = 1;
  for (std::size_t i = 0; i < physical.size(); ++i) {
    std::int64_t d = physical[i];
    const std::size_t fromEnd = physical.size() - i;
    if (fromEnd <= tile.size()) {
      const std::int64_t t = tile[tile.size() - fromEnd];
      if (t > 0 && d % t != 0) d += t - d % t;
    }
    if (__builtin_mul_overflow(n, d, &n) || n > kMaxDim)
      throwValueError("the padded shape " + text() + " has more elements than 2^62");
  }
  return inspectBytes(type, n);
}

std::string HloArrayShape::text() const {
  std::string out = element_type + "[";
  for (std::size_t i = 0; i < dims.size(); ++i) {
    if (i) out += ",";
    if (dims[i] >= 0)
      out += std::to_string(dims[i]);
    else
      out += bounds.size() > i && bounds[i] > 0 ? "<=" + std::to_string(bounds[i]) : "?";
  }
  return out + "]";
}

std::vector<const HloArrayShape*> HloShape::leaves() const {
  std::vector<const HloArrayShape*> out;
  std::vector<const HloShape*> stack{this};
  while (!stack.empty()) {
    const HloShape* s = stack.back();
    stack.pop_back();
    if (!s->is_tuple) {
      out.push_back(&s->array);
      continue;
    }
    for (std::size_t i = s->elements.size(); i-- > 0;) stack.push_back(&s->elements[i]);
  }
  return out;
}

std::string HloShape::text() const {
  if (!is_tuple) return array.text();
  std::string out = "(";
  for (std::size_t i = 0; i < elements.size(); ++i) {
    if (i) out += ", ";
    out += elements[i].text();
  }
  return out + ")";
}

namespace inspect_detail {

namespace {

// '{' minor_to_major [':' attributes] '}' (the cursor at '{').
void readLayout(TextCursor& c, HloArrayShape& a) {
  c.expect("{", "'{' opening a layout");
  a.has_layout = true;
  if (c.next() != ':' && c.next() != '}') {
    do {
      if (a.minor_to_major.size() >= kMaxRank) c.fail("at most 64 layout dimensions");
      a.minor_to_major.push_back(c.integer(std::int64_t(kMaxRank), "a dimension number in the layout"));
    } while (c.accept(","));
  }
  if (c.accept(":")) {
    // Attributes follow one another without separators: T(8,128)(2,1)S(1)L(4)E(4)#(u32)*(s8)M(8)SC(...)P(...).
    while (!c.atEnd() && c.next() != '}') {
      if (c.accept("T")) {
        while (c.next() == '(') {
          c.advance();
          Shape tile;
          do {
            if (tile.size() >= kMaxRank) c.fail("at most 64 tile dimensions");
            tile.push_back(c.accept("*") ? -1 : c.integer(kMaxDim, "a tile dimension"));
          } while (c.accept(","));
          c.expect(")", "')' closing a tile");
          if (a.tiles.size() >= 16) c.fail("at most 16 tiles");
          a.tiles.push_back(std::move(tile));
        }
      } else if (c.accept("S(")) {
        a.memory_space = c.integer(kMaxDim, "a memory space");
        c.expect(")", "')' closing the memory space");
      } else if (c.startsWith("SC") || isAlpha(c.peek()) || c.peek() == '#' || c.peek() == '*') {
        // Other attributes (D(..), L(..), E(..), #(..), *(..), M(..), SC(..), P(..)): taken whole.
        while (isAlpha(c.peek()) || c.peek() == '#' || c.peek() == '*') c.advance();
        if (c.peek() != '(') c.fail("'(' after a layout attribute");
        while (c.peek() == '(') c.skipBalanced(false);
      } else {
        c.fail("a layout attribute (T(..), S(..), ...) or '}'");
      }
    }
  }
  c.expect("}", "'}' closing the layout");
}

HloArrayShape readArray(TextCursor& c) {
  HloArrayShape a;
  const std::size_t at = c.pos();
  const std::string_view type = c.name();
  const auto t = hloElementType(type);
  if (!t) {
    if (type.empty()) c.failExpected(at, "a shape");
    c.failAt(at, "unknown element type '" + std::string(type.substr(0, 40)) + "'");
  }
  a.element_type = std::string(type);
  a.type = *t;
  c.expect("[", "'[' after the element type");
  if (!c.accept("]")) {
    do {
      if (a.dims.size() >= kMaxRank) c.failAt(c.pos(), "a shape of more than 64 dimensions");
      if (c.accept("?")) {
        a.dims.push_back(-1);
        a.bounds.push_back(0);
      } else if (c.accept("<=")) {
        a.dims.push_back(-1);
        a.bounds.push_back(c.integer(kMaxDim, "a dimension bound"));
      } else {
        a.dims.push_back(c.integer(kMaxDim, "a dimension size"));
        a.bounds.push_back(0);
      }
    } while (c.accept(","));
    c.expect("]", "',' or ']' in the dimensions");
  }
  // A layout follows only with no space before it ("f32[8]{0}"); after a space a '{' belongs to the
  // next token (a computation body).
  if (c.peek() == '{') readLayout(c, a);
  return a;
}

HloShape readShapeAt(TextCursor& c, int depth, std::size_t& leaves) {
  HloShape s;
  if (c.next() != '(') {
    if (++leaves > kMaxHloShapeLeaves) c.fail("at most " + std::to_string(kMaxHloShapeLeaves) + " arrays in a shape");
    s.array = readArray(c);
    return s;
  }
  if (depth >= kMaxHloShapeDepth) c.fail("tuples nested at most 64 deep");
  c.advance();
  s.is_tuple = true;
  if (c.accept(")")) return s;
  do s.elements.push_back(readShapeAt(c, depth + 1, leaves));
  while (c.accept(","));
  c.expect(")", "',' or ')' in a tuple shape");
  return s;
}

} // namespace

HloShape readHloShape(TextCursor& c) {
  std::size_t leaves = 0;
  return readShapeAt(c, 0, leaves);
}

void skipHloShape(TextCursor& c) {
  if (c.next() == '(') {
    c.skipBalanced(false);
    return;
  }
  if (c.name().empty()) c.fail("a shape");
  if (c.next() != '[') c.fail("'[' after the element type");
  c.advance();
  for (;;) { // dimensions: 8, <=8, ?
    const char ch = c.peek();
    if (ch == ']') break;
    if (!isDigit(ch) && ch != ',' && ch != '<' && ch != '=' && ch != '?' && !isSpace(ch))
      c.fail("a dimension or ']' closing the dimensions");
    c.advance();
  }
  c.advance();
  if (c.peek() == '{') c.skipBalanced(false);
}

} // namespace inspect_detail

HloShape parseHloShape(std::string_view text) {
  inspect_detail::TextCursor c(text, "HLO shape");
  HloShape s = inspect_detail::readHloShape(c);
  c.skipSpace();
  if (!c.atEnd()) c.fail("the end of the shape");
  return s;
}

MlirTensorType parseMlirTensorType(std::string_view inside) {
  using inspect_detail::isDigit;
  using inspect_detail::isSpace;
  inspect_detail::TextCursor c(inside, "tensor type");
  MlirTensorType t;
  // Dimensions are "<int|?>x" prefixes; the rest (up to a ',' encoding) is the element type.
  for (;;) {
    c.skipSpace();
    const std::size_t at = c.pos();
    std::int64_t d = -2;
    if (c.peek() == '?') {
      c.advance();
      d = -1;
    } else if (isDigit(c.peek())) {
      d = c.integer(kMaxDim, "a dimension size");
    }
    if (d != -2 && c.peek() == 'x') {
      if (t.dims.size() >= kMaxRank) c.failAt(at, "a tensor of more than 64 dimensions");
      t.dims.push_back(d);
      c.advance();
      continue;
    }
    c.seek(at);
    break;
  }
  std::string_view rest = c.text().substr(c.pos());
  if (const auto comma = rest.find(','); comma != std::string_view::npos && !rest.starts_with("complex<"))
    rest = rest.substr(0, comma);
  while (!rest.empty() && isSpace(rest.back())) rest.remove_suffix(1);
  const auto type = mlirElementType(rest);
  if (!type) c.failAt(c.pos(), "unknown element type '" + std::string(rest.substr(0, 40)) + "'");
  t.element_type = std::string(rest);
  t.type = *type;
  return t;
}

} // namespace shardscope
