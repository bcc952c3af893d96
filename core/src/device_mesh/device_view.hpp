// Internal: a sub-list of devices without copying them. Hybrid meshes run create_device_mesh once
// per slice; viewing the slice's positions instead of copying its Device objects keeps the
// 8192-device case allocation-light.
#pragma once

#include "shardscope/device.hpp"

#include <vector>

namespace shardscope::mesh_detail {

struct DeviceView {
  const DeviceList* all = nullptr;
  const std::vector<int>* positions = nullptr;  // nullptr: the whole list in order

  std::size_t size() const { return positions ? positions->size() : all->size(); }
  int position(std::size_t k) const { return positions ? (*positions)[k] : static_cast<int>(k); }
  const Device& operator[](std::size_t k) const { return (*all)[static_cast<std::size_t>(position(k))]; }
  const Device& back() const { return (*this)[size() - 1]; }
  // A real list, for code that wants one (user handlers, error texts).
  DeviceList materialize() const {
    if (!positions) return *all;
    DeviceList out;
    out.reserve(positions->size());
    for (int p : *positions) out.push_back((*all)[static_cast<std::size_t>(p)]);
    return out;
  }
};


} // namespace shardscope::mesh_detail
