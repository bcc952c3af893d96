// SPDX-License-Identifier: Apache-2.0
// Devices as the reference's error messages print them. The golden cases were produced with fake
// device objects whose repr lists every attribute; using the same form keeps message prefixes equal.
#include "mesh/device_mesh/device_mesh_internals.hpp"

namespace shardscope::mesh_detail {

std::string referenceDeviceRepr(const Device& d) {
  std::string out;
  out.reserve(128);
  out += d.platform == Platform::Tpu   ? "MockTpuDevice(id="
         : d.platform == Platform::Gpu ? "MockGpuDevice(id="
                                       : "MockCpuDevice(id=";
  out += std::to_string(d.id);
  out += ", platform='";
  out += platformName(d.platform);
  out += "', device_kind='";
  out += d.device_kind;
  out += "', process_index=";
  out += std::to_string(d.process_index);
  out += ", coords=";
  if (d.coords) {
    out += '(';
    out += std::to_string((*d.coords)[0]);
    out += ", ";
    out += std::to_string((*d.coords)[1]);
    out += ", ";
    out += std::to_string((*d.coords)[2]);
    out += ')';
  } else {
    out += "None";
  }
  out += ", core_on_chip=";
  out += d.core_on_chip ? std::to_string(*d.core_on_chip) : std::string("None");
  // A device without the attribute (e.g. a GPU outside multi-slice) shows none.
  if (d.slice_index) {
    out += ", slice_index=";
    out += std::to_string(*d.slice_index);
  }
  out += ')';
  return out;
}

std::string referenceDevicesRepr(const DeviceList& devices) {
  std::string out = "[";
  for (std::size_t k = 0; k < devices.size(); ++k) {
    if (k) out += ", ";
    out += referenceDeviceRepr(devices[k]);
  }
  out += ']';
  return out;
}

} // namespace shardscope::mesh_detail
