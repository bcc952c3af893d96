// SPDX-License-Identifier: Apache-2.0
// Internal: a sub-list of devices without copying them. Hybrid meshes run create_device_mesh once
// per slice; viewing the slice (a contiguous range when the list is slice-major, else a list of
// positions) instead of copying its Device objects keeps the 8192-device case allocation-light.
#pragma once

#include "shardscope/hardware/device.hpp"

#include <vector>

namespace shardscope::mesh_detail {

// A hybrid mesh's guess that a view is one granule: every device's slice_index (or process_index)
// should be `key`. The corner-box placement checks it in the pass it makes anyway and records
// the answer; any other path leaves `checked` false and the caller scans.
struct GranuleCheck {
  bool process_is_granule = false;
  int key = 0;
  bool checked = false;
  bool all_match = false;
};

struct DeviceView {
  const DeviceList* all = nullptr;
  const std::vector<int>* positions = nullptr; // when set: these positions of `all`, in order
  std::size_t offset = 0;                      // otherwise: `length` devices from `offset`
  std::size_t length = 0;
  GranuleCheck* granule = nullptr; // optional, see GranuleCheck

  static DeviceView whole(const DeviceList& list) { return {&list, nullptr, 0, list.size(), nullptr}; }
  static DeviceView range(const DeviceList& list, std::size_t offset, std::size_t length,
                          GranuleCheck* granule = nullptr) {
    return {&list, nullptr, offset, length, granule};
  }
  static DeviceView subset(const DeviceList& list, const std::vector<int>& positions) {
    return {&list, &positions, 0, 0, nullptr};
  }

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
