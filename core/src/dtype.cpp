#include "shardscope/dtype.hpp"

#include <algorithm>
#include <cctype>

namespace shardscope {

namespace {

struct DtypeInfo {
  const char* name;
  double bytes;
};

// Canonical names, as jnp.dtype(...).name prints them.
constexpr DtypeInfo kDtypes[] = {
    {"float64", 8},       {"float32", 4},         {"bfloat16", 2},         {"float16", 2},
    {"float8_e4m3fn", 1}, {"float8_e5m2", 1},     {"float8_e4m3fnuz", 1},  {"float8_e5m2fnuz", 1},
    {"float8_e4m3b11fnuz", 1}, {"float8_e8m0fnu", 1}, {"float4_e2m1fn", 0.5}, {"int64", 8},
    {"int32", 4},         {"int16", 2},           {"int8", 1},             {"int4", 0.5},
    {"uint64", 8},        {"uint32", 4},          {"uint16", 2},           {"uint8", 1},
    {"uint4", 0.5},       {"bool", 1},            {"complex64", 8},        {"complex128", 16},
};

struct Alias {
  const char* alias;
  const char* name;
};

// Spellings people type (lower-cased before lookup).
constexpr Alias kAliases[] = {
    {"bf16", "bfloat16"}, {"fp32", "float32"}, {"f32", "float32"},   {"float", "float32"},
    {"fp16", "float16"},  {"f16", "float16"},  {"half", "float16"},  {"fp64", "float64"},
    {"f64", "float64"},   {"double", "float64"}, {"fp8", "float8_e4m3fn"}, {"fp8_e4m3", "float8_e4m3fn"},
    {"float8_e4m3", "float8_e4m3fn"}, {"fp8_e5m2", "float8_e5m2"}, {"i8", "int8"}, {"u8", "uint8"},
    {"i32", "int32"},     {"i64", "int64"},  {"i16", "int16"},    {"fp4", "float4_e2m1fn"},
};

// safetensors' dtype codes (safetensors/src/tensor.rs `Dtype`).
constexpr Alias kSafetensors[] = {
    {"BOOL", "bool"},       {"U8", "uint8"},     {"I8", "int8"},       {"I16", "int16"},
    {"U16", "uint16"},      {"F16", "float16"},  {"BF16", "bfloat16"}, {"I32", "int32"},
    {"U32", "uint32"},      {"F32", "float32"},  {"F64", "float64"},   {"I64", "int64"},
    {"U64", "uint64"},      {"F8_E4M3", "float8_e4m3fn"}, {"F8_E5M2", "float8_e5m2"},
    {"F8_E8M0", "float8_e8m0fnu"}, {"F4", "float4_e2m1fn"}, {"C64", "complex64"},
};

const DtypeInfo* findCanonical(std::string_view name) {
  for (const auto& d : kDtypes)
    if (name == d.name) return &d;
  return nullptr;
}

const DtypeInfo* lookup(std::string_view name) {
  if (const auto* d = findCanonical(name)) return d;
  std::string lower(name);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // "torch.bfloat16" and "jnp.float32" name the same dtypes.
  for (std::string_view prefix : {"torch.", "jnp.", "np.", "numpy."})
    if (lower.starts_with(prefix)) lower.erase(0, prefix.size());
  if (const auto* d = findCanonical(lower)) return d;
  for (const auto& a : kAliases)
    if (lower == a.alias) return findCanonical(a.name);
  return nullptr;
}

} // namespace

std::optional<double> dtypeBytes(std::string_view name) {
  if (const auto* d = lookup(name)) return d->bytes;
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
    for (const auto& d : kDtypes) out.emplace_back(d.name);
    return out;
  }();
  return names;
}

} // namespace shardscope
