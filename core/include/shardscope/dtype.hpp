// Element sizes of the array dtypes a parameter may have. Names follow numpy/JAX ("bfloat16",
// "float8_e4m3fn"); safetensors' short codes ("BF16", "F8_E4M3") map onto them. Sub-byte types
// (int4, float4) have fractional sizes, which is why bytes are a double.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Bytes per element of a dtype name (numpy/JAX spelling or a common alias such as "bf16", "fp32",
// "half"); nullopt when unknown.
std::optional<double> dtypeBytes(std::string_view name);

// The canonical numpy/JAX name of a dtype or alias ("bf16" -> "bfloat16"); nullopt when unknown.
std::optional<std::string> canonicalDtype(std::string_view name);

// The canonical name of a safetensors dtype code ("BF16" -> "bfloat16", "F8_E4M3" ->
// "float8_e4m3fn"); nullopt when the code is not one safetensors defines.
std::optional<std::string> dtypeFromSafetensors(std::string_view code);

// Every canonical dtype name, for pickers and error messages.
const std::vector<std::string>& knownDtypes();

} // namespace shardscope
