// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/dtype.hpp"

#include "shardscope/base/errors.hpp"

#include <array>
#include <cctype>

namespace shardscope {

namespace {

struct DTypeInfo {
  const char* name;
  int bits;
  int itemsize;
};

// Canonical entries, named as jnp.dtype(...).name prints them; numpy/ml_dtypes itemsizes
// (sub-byte types occupy one byte in numpy). float8_e4m3 is ml_dtypes' IEEE-style e4m3, a
// different type from float8_e4m3fn.
constexpr std::array<DTypeInfo, 27> kDTypes{{
    {"float64", 64, 8},
    {"float32", 32, 4},
    {"float16", 16, 2},
    {"bfloat16", 16, 2},
    {"complex128", 128, 16},
    {"complex64", 64, 8},
    {"int64", 64, 8},
    {"int32", 32, 4},
    {"int16", 16, 2},
    {"int8", 8, 1},
    {"uint64", 64, 8},
    {"uint32", 32, 4},
    {"uint16", 16, 2},
    {"uint8", 8, 1},
    {"bool", 8, 1},
    {"float8_e4m3fn", 8, 1},
    {"float8_e5m2", 8, 1},
    {"float8_e4m3fnuz", 8, 1},
    {"float8_e5m2fnuz", 8, 1},
    {"float8_e4m3b11fnuz", 8, 1},
    {"float8_e8m0fnu", 8, 1},
    {"float8_e4m3", 8, 1},
    {"float4_e2m1fn", 4, 1},
    {"int4", 4, 1},
    {"uint4", 4, 1},
    {"int2", 2, 1},
    {"uint2", 2, 1},
}};

// Other spellings -> canonical name. Keys are lower case (lookups lower-case first), which also
// covers safetensors codes typed by hand ("BF16", "F8_E4M3").
struct Alias {
  const char* alias;
  const char* name;
};
constexpr std::array<Alias, 40> kAliases{{
    {"f64", "float64"},
    {"fp64", "float64"},
    {"double", "float64"},
    {"f32", "float32"},
    {"fp32", "float32"},
    {"float", "float32"},
    {"f16", "float16"},
    {"fp16", "float16"},
    {"half", "float16"},
    {"bf16", "bfloat16"},
    {"c64", "complex64"},
    {"c128", "complex128"},
    {"i64", "int64"},
    {"i32", "int32"},
    {"i16", "int16"},
    {"i8", "int8"},
    {"u64", "uint64"},
    {"u32", "uint32"},
    {"u16", "uint16"},
    {"u8", "uint8"},
    {"int", "int64"},
    {"long", "int64"},
    {"short", "int16"},
    {"bool_", "bool"},
    {"fp8", "float8_e4m3fn"},
    {"f8", "float8_e4m3fn"},
    {"fp8_e4m3", "float8_e4m3fn"},
    {"f8_e4m3", "float8_e4m3fn"},
    {"e4m3", "float8_e4m3fn"},
    {"fp8_e4m3fn", "float8_e4m3fn"},
    {"fp8_e5m2", "float8_e5m2"},
    {"f8_e5m2", "float8_e5m2"},
    {"e5m2", "float8_e5m2"},
    {"fp4", "float4_e2m1fn"},
    {"f4", "float4_e2m1fn"},
    {"nvfp4", "float4_e2m1fn"},
    {"i4", "int4"},
    {"u4", "uint4"},
    {"s4", "int4"},
    {"f8_e8m0", "float8_e8m0fnu"},
}};

// safetensors' dtype codes (safetensors/src/tensor.rs `Dtype`), matched exactly.
constexpr Alias kSafetensors[] = {
    {"BOOL", "bool"},
    {"U8", "uint8"},
    {"I8", "int8"},
    {"I16", "int16"},
    {"U16", "uint16"},
    {"F16", "float16"},
    {"BF16", "bfloat16"},
    {"I32", "int32"},
    {"U32", "uint32"},
    {"F32", "float32"},
    {"F64", "float64"},
    {"I64", "int64"},
    {"U64", "uint64"},
    {"F8_E4M3", "float8_e4m3fn"},
    {"F8_E5M2", "float8_e5m2"},
    {"F8_E8M0", "float8_e8m0fnu"},
    {"F4", "float4_e2m1fn"},
    {"C64", "complex64"},
};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

const DTypeInfo* lookup(std::string_view text) {
  // Canonical names (what every loader stores) without building a lowered copy: this runs for
  // every tensor of a checkpoint, several times.
  for (const auto& d : kDTypes)
    if (text == d.name) return &d;
  std::string key = lower(text);
  // "torch.float16", "jnp.bfloat16", "np.float32", "dtype('float32')" name the same dtypes.
  for (std::string_view prefix : {"torch.", "jnp.", "np.", "numpy.", "jax.numpy."})
    if (key.starts_with(prefix)) key.erase(0, prefix.size());
  if (key.starts_with("dtype('") && key.ends_with("')")) key = key.substr(7, key.size() - 9);
  for (const auto& a : kAliases)
    if (key == a.alias) key = a.name;
  for (const auto& d : kDTypes)
    if (key == d.name) return &d;
  return nullptr;
}

} // namespace

std::int64_t DType::bytesFor(std::int64_t elements) const {
  if (elements <= 0) return 0;
  // Split to avoid overflow of elements * bits for very large counts.
  std::int64_t whole = 0;
  if (__builtin_mul_overflow(elements / 8, std::int64_t{bits}, &whole))
    throwValueError("an array of " + std::to_string(elements) + " " + name +
                    " elements has more bytes than 64-bit integers hold");
  const std::int64_t rest = ((elements % 8) * bits + 7) / 8;
  return whole + rest;
}

std::optional<DType> findDType(std::string_view text) {
  if (const auto* d = lookup(text)) return DType{d->name, d->bits, d->itemsize};
  return std::nullopt;
}

DType parseDType(std::string_view text) {
  if (auto dtype = findDType(text)) return *dtype;
  std::string known;
  for (const auto& name : knownDtypes()) known += (known.empty() ? "" : ", ") + name;
  throwValueError("unknown dtype '" + std::string(text) + "'; known dtypes: " + known);
}

DType float32DType() { return DType{"float32", 32, 4}; }

std::optional<double> dtypeBytes(std::string_view name) {
  if (const auto* d = lookup(name)) return d->bits / 8.0;
  return std::nullopt;
}

std::optional<std::string> canonicalDtype(std::string_view name) {
  if (const auto* d = lookup(name)) return std::string(d->name);
  return std::nullopt;
}

std::optional<std::string> dtypeFromSafetensors(std::string_view code) {
  for (const auto& a : kSafetensors)
    if (code == a.alias) return std::string(a.name);
  return std::nullopt;
}

const std::vector<std::string>& knownDtypes() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> out;
    for (const auto& d : kDTypes) out.emplace_back(d.name);
    return out;
  }();
  return names;
}

} // namespace shardscope
