// Array element types for sharding: the names users and checkpoints write (numpy, JAX/ml_dtypes,
// safetensors) as a value type with their storage size. (The models branch's dtype.hpp maps
// names to fractional bytes; this one keeps exact bits for packed per-shard byte counts.)
// Memory figures need bits, not bytes, because int4/fp4 pack two elements per byte on TPU and
// GPU; the reference's numpy `itemsize` (1 byte for int4) is kept beside it for the eformer
// rules that compute with it.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct DType {
  std::string name;  // canonical numpy / ml_dtypes name, e.g. "bfloat16", "float8_e4m3fn", "int4"
  int bits = 32;     // storage bits per element when packed
  int itemsize = 4;  // numpy's dtype.itemsize in bytes (sub-byte types report 1)

  bool operator==(const DType&) const = default;

  // Packed bytes of `elements` values: ceil(elements * bits / 8). Throws ValueError when the
  // byte count does not fit in 64 bits.
  std::int64_t bytesFor(std::int64_t elements) const;
};

// Parses a dtype name; case-insensitive, accepting numpy names ("float32", "bfloat16"), short
// forms ("f32", "bf16", "fp8"), safetensors names ("F32", "BF16", "F8_E4M3", "I8") and
// "torch.float16"-style names. Throws ValueError naming the text and listing the known names.
DType parseDType(std::string_view text);

// The default element type of the reference's shape stand-ins.
DType float32DType();

// Canonical names of every known dtype, for messages and completion lists.
std::vector<std::string> knownDTypeNames();

} // namespace shardscope
