// SPDX-License-Identifier: Apache-2.0
// Device lists in the order jax.devices() gives them, for every built-in hardware kind
// (../shared/spec/jax-mesh-utils.md §7.1: process-tiled hosts, x-fastest ids).
#pragma once

#include "shardscope/hardware/device.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope {

struct TopologySpec {
  std::string chip = "v4";           // a ChipSpec key (hardware.hpp): v2, v3, v4, v4i, v5e, v5p, v6e, 7x, 8i, h100, ...
  std::array<int, 3> shape{4, 4, 8}; // chips along x, y, z (GPUs: {hosts, gpus per host, 1})
  int slices = 1;
  int cores_per_chip = 0;                 // 0 = the chip's default
  std::array<int, 3> host_block{0, 0, 0}; // 0 = the chip's default host block
  bool interleaved_gpu_ids = false;       // GPU ids k*num_processes+p instead of list order
  std::string device_kind_override;       // e.g. "TPU v5e" instead of "TPU v5 lite"

  bool operator==(const TopologySpec&) const = default;
};

// Text form: CHIP ":" DIMS { ":" OPTION }
//   CHIP     a ChipSpec key or device kind ("v5p", "TPU v5p", "h100", "cpu").
//   DIMS     TPU: "X", "XxY" or "XxYxZ" chips (missing dims are 1);
//            GPU/CPU: "HxG" hosts x devices per host, or "N" devices in total (GPU: hosts of the
//            chip's host_block[0] GPUs when N is larger than that, else one host; CPU: one process).
//   OPTION   "slices=N", "cores=C", "host=AxBxC" (chips per TPU host), "interleaved" (GPU ids
//            k*num_processes+p), "kind=NAME" (device_kind override, e.g. kind=TPU v5e).
// Examples: "v5p:16x20x28", "v4:4x4x4:slices=2", "v5p:2x2x2:cores=2", "v5e:16x16",
// "h100:32x8", "h100:8192:interleaved", "cpu:8". Throws ValueError naming what is wrong.
TopologySpec parseTopology(std::string_view text);
// The canonical text of a spec (defaults left out); parseTopology(formatTopology(s)) == s for
// every spec makeDevices accepts.
std::string formatTopology(const TopologySpec& spec);

// Largest device list makeDevices builds; a bigger request is a ValueError (never an allocation
// driven by an unchecked number).
inline constexpr std::int64_t kMaxTopologyDevices = 1 << 20;

// Devices in jax.devices() order (jax-mesh-utils spec §7.1). TPU: for slice, zp, yp, xp, zd, yd, xd, core
// (process-tiled hosts of host_block chips, clamped to the slice), coords
// (xd+nxd*xp, yd+nyd*yp, zd+nzd*zp), process_index xp+nxp*(yp+nyp*(zp+nzp*slice)), id the global
// x-fastest number core+C*(x+X*(y+Y*(z+Z*slice))), slice_index always set. GPU: process-major,
// id = list position (or k*num_processes+p when interleaved), slice_index set only when slices>1.
// CPU: one process, ids 0..n-1, no coords. Throws ValueError for an unknown chip, a non-positive
// or non-dividing size, or more than kMaxTopologyDevices devices.
DeviceList makeDevices(const TopologySpec& spec);

} // namespace shardscope
