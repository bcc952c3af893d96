// SPDX-License-Identifier: Apache-2.0
#include "eval_json.hpp"

#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"

namespace shardscope::eval {

JsonField fieldAt(const Json& value, std::string path) { return requestFields(value).renamed(std::move(path)); }

namespace {
// "<op>: unknown field 'x' (known: a, b)" for each top-level key not in `known`.
std::vector<std::string> unknownFields(const Json& request, std::initializer_list<const char*> known, const char* op) {
  if (!request.is_object()) throwValueError("request must be a JSON object");
  std::vector<std::string> out;
  for (const auto& [key, value] : request.items()) {
    bool ok = false;
    for (const char* k : known) ok = ok || key == k;
    if (ok) continue;
    std::string list;
    for (const char* k : known) list += (list.empty() ? "" : ", ") + std::string(k);
    out.push_back(std::string(op) + ": unknown field " + shardscope::quoted(key) + " (known: " + list + ")");
  }
  return out;
}
} // namespace

void refuseUnknownFields(const Json& request, std::initializer_list<const char*> known, const char* op) {
  const auto found = unknownFields(request, known, op);
  if (!found.empty()) throwValueError(found.front());
}

void warnUnknownFields(const Json& request, std::initializer_list<const char*> known, const char* op,
                       std::vector<std::string>& warnings) {
  for (auto& text : unknownFields(request, known, op)) warnings.push_back(std::move(text) + ": ignored");
}

const Json& requireField(const Json& request, const char* name) {
  if (!request.is_object()) throwValueError("request must be a JSON object");
  return fields(request)[name].json();
}

bool present(const Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && !it->is_null();
}

std::optional<std::int64_t> optionalInt(const Json& request, const char* name) {
  return fields(request)[name].optionalInt();
}

bool boolField(const Json& request, const char* name, bool fallback) { return fields(request)[name].boolOr(fallback); }

std::int64_t intField(const Json& request, const char* name) { return fields(request)[name].toInt(); }

std::string stringField(const Json& request, const char* name) { return fields(request)[name].toString(); }

Shape intList(const Json& value, const std::string& what) { return fieldAt(value, what).toInts(); }

std::vector<std::string> stringList(const Json& value, const std::string& what) {
  return fieldAt(value, what).toStrings();
}

DeviceList parseDevices(const Json& request) {
  const JsonField root = fields(request);
  const JsonField list = root["devices"];
  const Json& entries = list.toArray("a list of device objects");
  // "device_kind" and "platform" may be given once for all devices.
  const std::optional<std::string> topKind = root["device_kind"].optionalString();
  const std::optional<std::string> topPlatform = root["platform"].optionalString();
  constexpr IntRange kSmall{-(1 << 30), 1 << 30};

  DeviceList devices;
  devices.reserve(entries.size());
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const JsonField d = list[i];
    d.toObject("a device object");
    Device dev;
    dev.id = d["id"].toInt();
    const JsonField platformField = d["platform"];
    const std::optional<std::string> platform = platformField.present() ? platformField.optionalString() : topPlatform;
    if (!platform) platformField.fail("is missing (give it per device or once at top level)");
    auto parsed = parsePlatform(*platform);
    if (!parsed) platformField.fail("must be tpu, gpu or cpu, got '" + *platform + "'");
    dev.platform = *parsed;
    const JsonField kindField = d["device_kind"];
    const std::optional<std::string> kind = kindField.present() ? kindField.optionalString() : topKind;
    if (!kind) kindField.fail("is missing (give it per device or once at top level)");
    dev.device_kind = *kind;
    if (const JsonField c = d["coords"]; c.present()) {
      const auto xyz = c.toInts(kSmall);
      if (xyz.size() != 3) c.fail("must be [x, y, z] or null, got " + std::to_string(xyz.size()) + " numbers");
      dev.coords = std::array<int, 3>{static_cast<int>(xyz[0]), static_cast<int>(xyz[1]), static_cast<int>(xyz[2])};
    }
    if (auto core = d["core_on_chip"].optionalInt(kSmall)) dev.core_on_chip = static_cast<int>(*core);
    dev.process_index = static_cast<int>(d["process_index"].intOr(0, kSmall));
    if (auto slice = d["slice_index"].optionalInt(kSmall)) dev.slice_index = static_cast<int>(*slice);
    devices.push_back(std::move(dev));
  }
  return devices;
}

} // namespace shardscope::eval
