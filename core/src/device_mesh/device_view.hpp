// Internal: a sub-list of devices without copying them. Hybrid meshes run create_device_mesh once
// per slice; viewing the slice (a contiguous range when the list is slice-major, else a list of
// positions) instead of copying its Device objects keeps the 8192-device case allocation-light.
#pragma once

#include "shardscope/device.hpp"

#include <vector>

namespace shardscope::mesh_detail {

struct DeviceView {
  const DeviceList* all = nullptr;
  const std::vector<int>* positions = nullptr;  // when set: these positions of `all`, in order
  std::size_t offset = 0;                       // otherwise: `length` devices from `offset`
  std::size_t length = 0;

  static DeviceView whole(const DeviceList& list) { return {&list, nullptr, 0, list.size()}; }
  static DeviceView range(const DeviceList& list, std::size_t offset, std::size_t length) { return {&list, nullptr, offset, length}; }
  static DeviceView subset(const DeviceList& list, const std::vector<int>& positions) { return {&list, &positions, 0, 0}; }

  std::size_t size() const { return positions ? positions->size() : length; }
  int position(std::size_t k) const { return positions ? (*positions)[k] : static_cast<int>(offset + k); }
  const Device& operator[](std::size_t k) const { return (*all)[static_cast<std::size_t>(position(k))]; }
  const Device& back() const { return (*this)[size() - 1]; }
  // The first device of a contiguous view (positions == nullptr): devices are base()[0..size).
  const Device* base() const { return all->data() + offset; }
  bool isWholeList() const { return !positions && offset == 0 && length == all->size(); }
  // A real list, for code that wants one (user handlers, error texts).
  DeviceList materialize() const {
    if (isWholeList()) return *all;
    DeviceList out;
    out.reserve(size());
    for (std::size_t k = 0; k < size(); ++k) out.push_back((*this)[k]);
    return out;
  }
};

} // namespace shardscope::mesh_detail
