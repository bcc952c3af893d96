// SPDX-License-Identifier: Apache-2.0
// Element types and shapes as XLA's HLO text and MLIR's tensor types write them:
//   HLO:  bf16[2,8192]{1,0:T(8,128)(2,1)S(1)}   (f32[8], s32[])   f32[<=8,?]   token[]
//   MLIR: tensor<8x1024xbf16>  tensor<f32>  tensor<?x4xf32>  complex<f32>  f8E4M3FN
// A layout's integers are minor_to_major; `T(a,b)` tiles pad the trailing physical dimensions to
// multiples of the tile (TPU), `S(n)` is the memory space (1: fast memory, 5: host).
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Tuples nest at most this deep; one shape holds at most kMaxHloShapeLeaves arrays.
inline constexpr int kMaxHloShapeDepth = 64;
inline constexpr std::size_t kMaxHloShapeLeaves = std::size_t{1} << 20;

struct InspectElementType {
  std::string dtype; // canonical numpy / ml_dtypes name: "bfloat16", "float8_e4m3fn", "bool", "token"
  int bits = 0;      // storage bits per element (pred: 8; s4: 4; token and opaque: 0)
};

// "bf16", "pred", "s4", "f8e4m3fn", "c64", "token", ...; nullopt when unknown.
std::optional<InspectElementType> hloElementType(std::string_view name);
// "bf16", "i1", "ui8", "f8E4M3FN", "complex<f32>", "index", ...; nullopt when unknown.
std::optional<InspectElementType> mlirElementType(std::string_view name);

struct HloArrayShape {
  std::string element_type; // as written: "bf16"
  InspectElementType type;
  Shape dims;   // -1: dynamic ('?' or '<=N', N in bounds)
  Shape bounds; // '<=N' bounds (0 where a dimension is static or unbounded)
  bool has_layout = false;
  std::vector<std::int64_t> minor_to_major;
  std::vector<Shape> tiles; // T(8,128)(2,1) -> {{8,128},{2,1}}; '*' is written as -1
  std::int64_t memory_space = 0;

  // Elements, nullopt with a dynamic dimension. Throws ValueError past 2^62 elements.
  std::optional<std::int64_t> elements() const;
  // Logical bytes (packed sub-byte types), nullopt with a dynamic dimension.
  std::optional<std::int64_t> bytes() const;
  // Bytes with the first tile's padding applied to the trailing physical dimensions (a tile of more
  // dimensions than the shape pads as if the shape had leading 1s); == bytes() without tiles.
  std::optional<std::int64_t> paddedBytes() const;
  // "bf16[2,8192]" (no layout; dynamic dimensions as '?', bounded ones as '<=N').
  std::string text() const;
};

struct HloShape {
  bool is_tuple = false;
  HloArrayShape array;            // when not a tuple
  std::vector<HloShape> elements; // when a tuple
  // The arrays in order (depth first), tuple structure dropped.
  std::vector<const HloArrayShape*> leaves() const;
  // "(f32[2], (s32[]))" / "bf16[8]" without layouts.
  std::string text() const;
};

// Parses one HLO shape; ValueError "HLO shape:1:C: expected ..." for bad text. Ranks above kMaxRank,
// dimensions above 2^62, nesting above kMaxHloShapeDepth and more than kMaxHloShapeLeaves arrays
// are refused.
HloShape parseHloShape(std::string_view text);

// A tensor type's dimensions and element type: "8x1024xbf16" -> ({8,1024}, bf16); "?x4xf32" has -1.
struct MlirTensorType {
  Shape dims;
  std::string element_type; // as written
  InspectElementType type;
};
// Parses the inside of `tensor<...>` (an encoding after ',' is ignored); ValueError on bad text.
MlirTensorType parseMlirTensorType(std::string_view inside);

// Bytes of `elements` values of `type` (ceil(elements * bits / 8)); throws past 2^63.
std::int64_t inspectBytes(const InspectElementType& type, std::int64_t elements);

} // namespace shardscope
