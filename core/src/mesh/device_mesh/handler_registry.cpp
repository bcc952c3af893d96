// SPDX-License-Identifier: Apache-2.0
// The mutable device-kind registry (JAX's device_kind_handler_dict). Readers take a shared lock
// and a shared_ptr, so a handler replaced while a mesh is being built stays alive for that call.
#include "shardscope/mesh/device_mesh.hpp"

#include "tpu_handlers.hpp"

#include <map>
#include <mutex>
#include <shared_mutex>

namespace shardscope {

namespace {

using HandlerMap = std::map<std::string, std::shared_ptr<const DeviceMeshHandler>, std::less<>>;

HandlerMap builtinHandlers() {
  using namespace mesh_detail;
  HandlerMap map;
  auto add = [&](const char* kind, const char* name, DeviceMeshHandlerFn fn) {
    map[kind] = std::make_shared<const DeviceMeshHandler>(DeviceMeshHandler{name, std::move(fn)});
  };
  add("TPU v2", "_tpu_v2_v3_create_device_mesh", &tpuV2V3Handler);
  add("TPU v3", "_tpu_v2_v3_create_device_mesh", &tpuV2V3Handler);
  add("TPU v4 lite", "_v4i_v8i_create_device_mesh", &v4iV8iHandler);
  add("TPU v5 lite", "_v5e_create_device_mesh", &v5eHandler);
  add("TPU v5e", "_v5e_create_device_mesh", &v5eHandler);
  add("TPU v5p", "_v5p_create_device_mesh", &v5pHandler);
  add("TPU v5", "_v5p_create_device_mesh", &v5pHandler);
  add("TPU v6 lite", "_v5e_create_device_mesh", &v5eHandler);
  add("TPU7x", "_7x_create_device_mesh", &tpu7xHandler);
  add("TPU7", "_7x_create_device_mesh", &tpu7xHandler);
  add("TPU8i", "_v4i_v8i_create_device_mesh", &v4iV8iHandler);
  return map;
}

struct Registry {
  std::shared_mutex mutex;
  HandlerMap handlers = builtinHandlers();
};

Registry& registry() {
  static Registry r;
  return r;
}

} // namespace

void registerDeviceMeshHandler(const std::string& deviceKind, DeviceMeshHandler handler) {
  auto entry = std::make_shared<const DeviceMeshHandler>(std::move(handler));
  std::unique_lock lock(registry().mutex);
  registry().handlers[deviceKind] = std::move(entry);
}

bool unregisterDeviceMeshHandler(std::string_view deviceKind) {
  std::unique_lock lock(registry().mutex);
  auto it = registry().handlers.find(deviceKind);
  if (it == registry().handlers.end()) return false;
  registry().handlers.erase(it);
  return true;
}

std::shared_ptr<const DeviceMeshHandler> findDeviceMeshHandler(std::string_view deviceKind) {
  std::shared_lock lock(registry().mutex);
  auto it = registry().handlers.find(deviceKind);
  return it == registry().handlers.end() ? nullptr : it->second;
}

std::vector<std::string> deviceMeshHandlerKinds() {
  std::shared_lock lock(registry().mutex);
  std::vector<std::string> kinds;
  for (const auto& [kind, handler] : registry().handlers) kinds.push_back(kind);
  return kinds;
}

void resetDeviceMeshHandlers() {
  HandlerMap fresh = builtinHandlers();
  std::unique_lock lock(registry().mutex);
  registry().handlers.swap(fresh);
}

} // namespace shardscope
