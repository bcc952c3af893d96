// SPDX-License-Identifier: Apache-2.0
// Array element types: the names users and checkpoints write (numpy, JAX/ml_dtypes, torch,
// safetensors) mapped onto one table of canonical dtypes with their storage size.
// Memory figures need bits, not bytes, because int4/fp4 pack two elements per byte on TPU and
// GPU; numpy's `itemsize` (1 byte for int4) is kept beside it for the eformer rules that compute
// with it. `dtypeBytes` is the fractional-bytes view of the same table for memory estimates.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct DType {
  std::string name; // canonical numpy / ml_dtypes name, e.g. "bfloat16", "float8_e4m3fn", "int4"
  int bits = 32;    // storage bits per element when packed
  int itemsize = 4; // numpy's dtype.itemsize in bytes (sub-byte types report 1)

  bool operator==(const DType&) const = default;

  // Packed bytes of `elements` values: ceil(elements * bits / 8). Throws ValueError when the
  // byte count does not fit in 64 bits.
  std::int64_t bytesFor(std::int64_t elements) const;
};

// Looks a dtype name up; case-insensitive, accepting numpy names ("float32", "bfloat16"), short
// forms ("f32", "bf16", "fp8", "half"), safetensors names ("F32", "BF16", "F8_E4M3", "I8") and
// "torch.float16" / "jnp.bfloat16" / "dtype('float32')" spellings. nullopt when unknown.
std::optional<DType> findDType(std::string_view text);

// findDType that throws a ValueError naming the text and listing the known names.
DType parseDType(std::string_view text);

// The default element type of the reference's shape stand-ins.
DType float32DType();

// Bytes per element of a dtype name (fractional for sub-byte types: int4 -> 0.5); nullopt when
// unknown.
std::optional<double> dtypeBytes(std::string_view name);

// The canonical numpy/JAX name of a dtype or alias ("bf16" -> "bfloat16"); nullopt when unknown.
std::optional<std::string> canonicalDtype(std::string_view name);

// The canonical name of a safetensors dtype code ("BF16" -> "bfloat16", "F8_E4M3" ->
// "float8_e4m3fn"); nullopt when the code is not one safetensors defines. Exact case: the
// header format writes codes in upper case.
std::optional<std::string> dtypeFromSafetensors(std::string_view code);

// Every canonical dtype name, for pickers, completion lists and error messages.
const std::vector<std::string>& knownDtypes();

} // namespace shardscope
