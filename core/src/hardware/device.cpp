// SPDX-License-Identifier: Apache-2.0
#include "shardscope/hardware/device.hpp"

#include <sstream>

namespace shardscope {

std::string_view platformName(Platform platform) { return nameOf(platform, kPlatformNames); }

std::optional<Platform> parsePlatform(std::string_view text) {
  if (text == "cuda" || text == "rocm") return Platform::Gpu; // JAX's backend names for GPUs
  return parseName(text, kPlatformNames);
}

std::string describeDevice(const Device& d) {
  std::ostringstream out;
  switch (d.platform) {
  case Platform::Tpu:
    out << "TpuDevice";
    break;
  case Platform::Gpu:
    out << "GpuDevice";
    break;
  case Platform::Cpu:
    out << "CpuDevice";
    break;
  }
  out << "(id=" << d.id << ", process_index=" << d.process_index;
  if (d.coords) out << ", coords=(" << (*d.coords)[0] << "," << (*d.coords)[1] << "," << (*d.coords)[2] << ")";
  if (d.core_on_chip) out << ", core_on_chip=" << *d.core_on_chip;
  if (d.slice_index) out << ", slice_index=" << *d.slice_index;
  out << ")";
  return out.str();
}

std::string describeDevices(const DeviceList& devices) {
  std::string out = "[";
  for (std::size_t i = 0; i < devices.size(); ++i) {
    if (i) out += ", ";
    out += describeDevice(devices[i]);
  }
  return out + "]";
}

} // namespace shardscope
