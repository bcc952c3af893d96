// SPDX-License-Identifier: Apache-2.0
// Internal: reading eval requests. Every accessor throws a ValueError that names the field, so a
// malformed request answers a clear error instead of a nlohmann exception text.
#pragma once

#include "shardscope/hardware/device.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace shardscope::eval {

const Json& requireField(const Json& request, const char* name);
// True when `object` holds `name` with a non-null value: absent and null both mean "the default".
bool present(const Json& object, const char* name);
// An integer field that may be absent or null (nullopt).
std::optional<std::int64_t> optionalInt(const Json& request, const char* name);
bool boolField(const Json& request, const char* name, bool fallback);
std::int64_t intField(const Json& request, const char* name);
std::string stringField(const Json& request, const char* name);
// A list of integers; `what` names the field in messages.
Shape intList(const Json& value, const char* what);
std::vector<std::string> stringList(const Json& value, const char* what);

// The "devices" list, with "device_kind"/"platform" allowed once at top level for all devices.
DeviceList parseDevices(const Json& request);

// Nested JSON lists of an N-d array (a bare value for 0-d).
template <class T>
Json nestedJson(const NdArray<T>& array);

} // namespace shardscope::eval

#include "eval_json_impl.hpp"
