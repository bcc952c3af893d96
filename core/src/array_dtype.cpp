#include "shardscope/array_dtype.hpp"

#include "shardscope/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace shardscope {

namespace {

struct DTypeInfo {
  const char* name;
  int bits;
  int itemsize;
};

// Canonical entries; numpy/ml_dtypes itemsizes (sub-byte types occupy one byte in numpy).
constexpr std::array<DTypeInfo, 27> kDTypes{{
    {"float64", 64, 8},          {"float32", 32, 4},           {"float16", 16, 2},
    {"bfloat16", 16, 2},         {"complex128", 128, 16},      {"complex64", 64, 8},
    {"int64", 64, 8},            {"int32", 32, 4},             {"int16", 16, 2},
    {"int8", 8, 1},              {"uint64", 64, 8},            {"uint32", 32, 4},
    {"uint16", 16, 2},           {"uint8", 8, 1},              {"bool", 8, 1},
    {"float8_e4m3fn", 8, 1},     {"float8_e5m2", 8, 1},        {"float8_e4m3fnuz", 8, 1},
    {"float8_e5m2fnuz", 8, 1},   {"float8_e4m3b11fnuz", 8, 1}, {"float8_e8m0fnu", 8, 1},
    {"float8_e4m3", 8, 1},       {"float4_e2m1fn", 4, 1},      {"int4", 4, 1},
    {"uint4", 4, 1},             {"int2", 2, 1},               {"uint2", 2, 1},
}};

// Other spellings -> canonical name. Keys are lower case.
struct Alias {
  const char* alias;
  const char* name;
};
constexpr std::array<Alias, 40> kAliases{{
    {"f64", "float64"},         {"fp64", "float64"},        {"double", "float64"},
    {"f32", "float32"},         {"fp32", "float32"},        {"float", "float32"},
    {"f16", "float16"},         {"fp16", "float16"},        {"half", "float16"},
    {"bf16", "bfloat16"},       {"c64", "complex64"},       {"c128", "complex128"},
    {"i64", "int64"},           {"i32", "int32"},           {"i16", "int16"},
    {"i8", "int8"},             {"u64", "uint64"},          {"u32", "uint32"},
    {"u16", "uint16"},          {"u8", "uint8"},            {"int", "int64"},
    {"long", "int64"},          {"short", "int16"},         {"bool_", "bool"},
    {"fp8", "float8_e4m3fn"},   {"f8", "float8_e4m3fn"},    {"fp8_e4m3", "float8_e4m3fn"},
    {"f8_e4m3", "float8_e4m3fn"}, {"e4m3", "float8_e4m3fn"}, {"fp8_e4m3fn", "float8_e4m3fn"},
    {"fp8_e5m2", "float8_e5m2"}, {"f8_e5m2", "float8_e5m2"}, {"e5m2", "float8_e5m2"},
    {"fp4", "float4_e2m1fn"},   {"f4", "float4_e2m1fn"},    {"nvfp4", "float4_e2m1fn"},
    {"i4", "int4"},             {"u4", "uint4"},            {"s4", "int4"},
    {"f8_e8m0", "float8_e8m0fnu"},
}};

std::string lower(std::string_view s) {
  std::string out(s);
  for (auto& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

} // namespace

std::int64_t DType::bytesFor(std::int64_t elements) const {
  if (elements <= 0) return 0;
  // Split to avoid overflow of elements * bits for very large counts.
  std::int64_t whole = 0;
  if (__builtin_mul_overflow(elements / 8, std::int64_t{bits}, &whole))
    throwValueError("an array of " + std::to_string(elements) + " " + name + " elements has more bytes than 64-bit integers hold");
  const std::int64_t rest = ((elements % 8) * bits + 7) / 8;
  return whole + rest;
}

DType parseDType(std::string_view text) {
  std::string key = lower(text);
  // "torch.float16", "jnp.bfloat16", "np.float32", "dtype('float32')".
  for (std::string_view prefix : {"torch.", "jnp.", "np.", "numpy.", "jax.numpy."})
    if (key.starts_with(prefix)) key.erase(0, prefix.size());
  if (key.starts_with("dtype('") && key.ends_with("')")) key = key.substr(7, key.size() - 9);
  for (const auto& a : kAliases)
    if (key == a.alias) key = a.name;
  for (const auto& d : kDTypes)
    if (key == d.name) return DType{d.name, d.bits, d.itemsize};
  std::string known;
  for (const auto& d : kDTypes) known += (known.empty() ? "" : ", ") + std::string(d.name);
  throwValueError("unknown dtype '" + std::string(text) + "'; known dtypes: " + known);
}

DType float32DType() { return DType{"float32", 32, 4}; }

std::vector<std::string> knownDTypeNames() {
  std::vector<std::string> out;
  for (const auto& d : kDTypes) out.emplace_back(d.name);
  return out;
}

} // namespace shardscope
