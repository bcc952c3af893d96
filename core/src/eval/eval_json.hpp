// SPDX-License-Identifier: Apache-2.0
// Internal: reading eval requests through the core's field reader (json_fields.hpp). Every accessor
// throws a ValueError that names the field ("field 'devices[2].id' must be an integer, got \"a\""),
// so a malformed request answers a clear error instead of a nlohmann exception text.
#pragma once

#include "shardscope/base/json_fields.hpp"
#include "shardscope/hardware/device.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <initializer_list>
#include <vector>

namespace shardscope::eval {

// The request as a field tree, and a value taken out of it named by its path ("pairs[3]").
inline JsonField fields(const Json& request) { return requestFields(request); }
JsonField fieldAt(const Json& value, std::string path);

// Refuses a top-level field the op does not read ("analyze: unknown field 'x' (known: op, scenario,
// per_device)"): a misspelt option must not be silently ignored.
void refuseUnknownFields(const Json& request, std::initializer_list<const char*> known, const char* op);
// The same finding as a warning beside the result, for the ops that answer as a reference function
// does (make_mesh, pipeline_schedule): the reference's keyword arguments are the contract there, and
// a harness may pass more context than the op reads.
void warnUnknownFields(const Json& request, std::initializer_list<const char*> known, const char* op,
                       std::vector<std::string>& warnings);

// Top-level fields of a request (nested ones go through fields(request)["a"]["b"]).
const Json& requireField(const Json& request, const char* name);
// True when `object` holds `name` with a non-null value: absent and null both mean "the default".
bool present(const Json& object, const char* name);
// An integer field that may be absent or null (nullopt).
std::optional<std::int64_t> optionalInt(const Json& request, const char* name);
bool boolField(const Json& request, const char* name, bool fallback);
std::int64_t intField(const Json& request, const char* name);
std::string stringField(const Json& request, const char* name);
// A list of integers or strings; `what` is its path in messages.
Shape intList(const Json& value, const std::string& what);
std::vector<std::string> stringList(const Json& value, const std::string& what);

// The "devices" list, with "device_kind"/"platform" allowed once at top level for all devices.
DeviceList parseDevices(const Json& request);

// Nested JSON lists of an N-d array (a bare value for 0-d).
template <class T>
Json nestedJson(const NdArray<T>& array);

} // namespace shardscope::eval

#include "eval_json_impl.hpp"
