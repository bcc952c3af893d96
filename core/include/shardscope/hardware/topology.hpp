// SPDX-License-Identifier: Apache-2.0
// Device lists in the order jax.devices() gives them, for every built-in hardware kind
// (../shared/spec/jax-mesh-utils.md §7.1: process-tiled hosts, x-fastest ids).
#pragma once

#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/device.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace shardscope {

struct TopologySpec {
  std::string chip = "v4"; // a ChipSpec key (chips.hpp): v2, v3, v4, v4i, v5e, v5p, v6e, 7x, 8t, 8i, h100, ...
  // Chips along x, y, z (GPUs: {hosts, gpus per host, 1}; Boardfly: {chips per board, boards per
  // group, groups}, which are also the chips' coords).
  std::array<int, 3> shape{4, 4, 8};
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
//            Boardfly (8i): "N" chips (boardflyShape) or "CxBxG" chips per board x boards per group x
//            groups;
//            GPU/CPU: "HxG" hosts x devices per host, or "N" devices in total (GPU: hosts of the
//            chip's host_block[0] GPUs when N is larger than that, else one host; CPU: one process;
//            NVL72 chips: racks x 72, each rack one NVLink domain).
//   OPTION   "slices=N", "cores=C", "host=AxBxC" (chips per TPU host), "interleaved" (GPU ids
//            k*num_processes+p), "kind=NAME" (device_kind override, e.g. kind=TPU v5e).
// Examples: "v5p:16x20x28", "v4:4x4x4:slices=2", "v5p:2x2x2:cores=2", "v5e:16x16", "8t:16x16x16",
// "8i:1024", "h100:32x8", "h100:8192:interleaved", "gb300:2x72", "mi300x:4x8", "cpu:8". Throws
// ValueError naming what is wrong.
TopologySpec parseTopology(std::string_view text);
// The canonical text of a spec (defaults left out); parseTopology(formatTopology(s)) == s for
// every spec makeDevices accepts.
std::string formatTopology(const TopologySpec& spec);

// Boardfly systems (TPU 8i, docs/hardware.md): whole boards of chips_per_board chips, up to one
// group; then whole groups of boards_per_group boards, up to the chip's groups. The shape of N
// chips: {N, 1, 1} up to one board, {C, N / C, 1} up to one group, {C, B, N / (C B)} beyond
// (8i:1024 is {4, 8, 32}). Throws ValueError when N is not such a count.
std::array<int, 3> boardflyShape(const ChipSpec& chip, std::int64_t chips);
// Throws ValueError unless `shape` is a Boardfly system of the chip: at most chips_per_board chips
// per board, boards_per_group boards per group and `groups` groups; whole boards once there are
// several boards; as many global ports in a group (one per chip) as other groups.
void checkBoardflyShape(const ChipSpec& chip, const std::array<int, 3>& shape);

// Largest device list makeDevices builds; a bigger request is a ValueError (never an allocation
// driven by an unchecked number).
inline constexpr std::int64_t kMaxTopologyDevices = 1 << 20;

// Devices in jax.devices() order (jax-mesh-utils spec §7.1). TPU: for slice, zp, yp, xp, zd, yd, xd, core
// (process-tiled hosts of host_block chips, clamped to the slice), coords
// (xd+nxd*xp, yd+nyd*yp, zd+nzd*zp), process_index xp+nxp*(yp+nyp*(zp+nzp*slice)), id the global
// x-fastest number core+C*(x+X*(y+Y*(z+Z*slice))), slice_index always set. GPU: process-major,
// id = list position (or k*num_processes+p when interleaved), slice_index set only when slices>1.
// CPU: one process, ids 0..n-1, no coords. Boardfly chips are TPUs whose coords are (chip on its
// board, board in its group, group), one board per host. Throws ValueError for an unknown chip, a non-positive
// or non-dividing size, or more than kMaxTopologyDevices devices.
DeviceList makeDevices(const TopologySpec& spec);

} // namespace shardscope
