// Device lists in the order jax.devices() gives them, for every built-in hardware kind
// (../shared/spec/jax-mesh-utils.md §7.1: process-tiled hosts, x-fastest ids).
#pragma once

#include "shardscope/device.hpp"

#include <array>
#include <string>
#include <string_view>

namespace shardscope {

struct TopologySpec {
  std::string chip = "v4";              // a ChipSpec key (hardware.hpp): v2, v3, v4, v4i, v5e, v5p, v6e, 7x, 8i, h100, ...
  std::array<int, 3> shape{4, 4, 8};    // chips along x, y, z (GPUs: {hosts, gpus per host, 1})
  int slices = 1;
  int cores_per_chip = 0;               // 0 = the chip's default
  std::array<int, 3> host_block{0, 0, 0}; // 0 = the chip's default host block
  bool interleaved_gpu_ids = false;     // GPU ids k*num_processes+p instead of list order
  std::string device_kind_override;     // e.g. "TPU v5e" instead of "TPU v5 lite"

  bool operator==(const TopologySpec&) const = default;
};

// "v5p:16x20x28", "v4:4x4x8", "v5e:16x16", "h100:32x8" (hosts x GPUs), "cpu:8";
// throws ValueError naming what is wrong.
TopologySpec parseTopology(std::string_view text);
std::string formatTopology(const TopologySpec& spec);

DeviceList makeDevices(const TopologySpec& spec);

} // namespace shardscope
