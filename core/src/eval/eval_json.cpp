// SPDX-License-Identifier: Apache-2.0
#include "eval_json.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope::eval {

namespace {
std::string typeName(const Json& v) { return v.type_name(); }

int smallInt(const Json& v, const std::string& what) {
  if (!v.is_number_integer()) throwValueError("'" + what + "' must be an integer, got " + typeName(v));
  const auto x = v.get<std::int64_t>();
  if (x < -(1LL << 30) || x > (1LL << 30)) throwValueError("'" + what + "' is out of range: " + std::to_string(x));
  return static_cast<int>(x);
}

std::optional<int> optionalSmallInt(const Json& d, const char* name, const std::string& where) {
  auto it = d.find(name);
  if (it == d.end() || it->is_null()) return std::nullopt;
  return smallInt(*it, where + "." + name);
}
} // namespace

const Json& requireField(const Json& request, const char* name) {
  if (!request.is_object()) throwValueError("request must be a JSON object");
  auto it = request.find(name);
  if (it == request.end()) throwValueError(std::string("missing field '") + name + "'");
  return *it;
}

bool present(const Json& object, const char* name) {
  auto it = object.find(name);
  return it != object.end() && !it->is_null();
}

std::optional<std::int64_t> optionalInt(const Json& request, const char* name) {
  if (!present(request, name)) return std::nullopt;
  const Json& v = request[name];
  if (!v.is_number_integer())
    throwValueError(std::string("field '") + name + "' must be an integer or null, got " + typeName(v));
  return v.get<std::int64_t>();
}

bool boolField(const Json& request, const char* name, bool fallback) {
  auto it = request.find(name);
  if (it == request.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) throwValueError(std::string("field '") + name + "' must be a boolean, got " + typeName(*it));
  return it->get<bool>();
}

std::int64_t intField(const Json& request, const char* name) {
  const Json& v = requireField(request, name);
  if (!v.is_number_integer())
    throwValueError(std::string("field '") + name + "' must be an integer, got " + typeName(v));
  return v.get<std::int64_t>();
}

std::string stringField(const Json& request, const char* name) {
  const Json& v = requireField(request, name);
  if (!v.is_string()) throwValueError(std::string("field '") + name + "' must be a string, got " + typeName(v));
  return v.get<std::string>();
}

Shape intList(const Json& value, const char* what) {
  if (!value.is_array())
    throwValueError(std::string("field '") + what + "' must be a list of integers, got " + typeName(value));
  Shape out;
  out.reserve(value.size());
  for (const auto& v : value) {
    if (!v.is_number_integer())
      throwValueError(std::string("field '") + what + "' must be a list of integers, got an element of type " +
                      typeName(v));
    out.push_back(v.get<std::int64_t>());
  }
  return out;
}

std::vector<std::string> stringList(const Json& value, const char* what) {
  if (!value.is_array())
    throwValueError(std::string("field '") + what + "' must be a list of strings, got " + typeName(value));
  std::vector<std::string> out;
  for (const auto& v : value) {
    if (!v.is_string())
      throwValueError(std::string("field '") + what + "' must be a list of strings, got an element of type " +
                      typeName(v));
    out.push_back(v.get<std::string>());
  }
  return out;
}

DeviceList parseDevices(const Json& request) {
  const Json& list = requireField(request, "devices");
  if (!list.is_array()) throwValueError("field 'devices' must be a list of device objects");
  std::optional<std::string> topKind, topPlatform;
  if (auto it = request.find("device_kind"); it != request.end() && it->is_string()) topKind = it->get<std::string>();
  if (auto it = request.find("platform"); it != request.end() && it->is_string()) topPlatform = it->get<std::string>();

  DeviceList devices;
  devices.reserve(list.size());
  for (std::size_t i = 0; i < list.size(); ++i) {
    const Json& d = list[i];
    const std::string where = "devices[" + std::to_string(i) + "]";
    if (!d.is_object()) throwValueError("field '" + where + "' must be a device object");
    Device dev;
    auto id = d.find("id");
    if (id == d.end() || !id->is_number_integer()) throwValueError("field '" + where + ".id' must be an integer");
    dev.id = id->get<std::int64_t>();

    std::string platform;
    if (auto p = d.find("platform"); p != d.end() && p->is_string())
      platform = p->get<std::string>();
    else if (topPlatform)
      platform = *topPlatform;
    else
      throwValueError("field '" + where + ".platform' is missing (give it per device or once at top level)");
    auto parsed = parsePlatform(platform);
    if (!parsed) throwValueError("field '" + where + ".platform' must be tpu, gpu or cpu, got '" + platform + "'");
    dev.platform = *parsed;

    if (auto k = d.find("device_kind"); k != d.end() && k->is_string())
      dev.device_kind = k->get<std::string>();
    else if (topKind)
      dev.device_kind = *topKind;
    else
      throwValueError("field '" + where + ".device_kind' is missing (give it per device or once at top level)");

    if (auto c = d.find("coords"); c != d.end() && !c->is_null()) {
      if (!c->is_array() || c->size() != 3) throwValueError("field '" + where + ".coords' must be [x, y, z] or null");
      dev.coords = std::array<int, 3>{smallInt((*c)[0], where + ".coords"), smallInt((*c)[1], where + ".coords"),
                                      smallInt((*c)[2], where + ".coords")};
    }
    dev.core_on_chip = optionalSmallInt(d, "core_on_chip", where);
    auto proc = optionalSmallInt(d, "process_index", where);
    dev.process_index = proc.value_or(0);
    dev.slice_index = optionalSmallInt(d, "slice_index", where);
    devices.push_back(std::move(dev));
  }
  return devices;
}

} // namespace shardscope::eval
