// SPDX-License-Identifier: Apache-2.0
// Published facts about each accelerator generation (../shared/spec/anchors-hardware-memory-comm.md
// §1.2). Every number is a default the user may edit; nothing here is measured.
#pragma once

#include "shardscope/hardware/device.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// When a torus axis gets its wraparound link.
enum class WrapRule {
  FromFullCube, // v4 / v5p / 7x: every axis wraps once the slice is at least one 4x4x4 cube
  OnLength16,   // v5e / v6e: an axis wraps only when it has length 16
  Never,        // v2/v3 trays and small parts: a plain mesh
  Switch,       // GPUs: all-to-all through an NVLink switch, no torus at all
};

struct ChipSpec {
  std::string key;         // short name used on the command line: "v4", "v5p", "h100"
  std::string device_kind; // JAX's device_kind string: "TPU v4", "TPU v5p", ...
  Platform platform = Platform::Tpu;
  int torus_dims = 3; // 3 for v4/v5p/7x, 2 for v2/v3/v5e/v6e, 0 for GPUs/CPUs
  int default_cores_per_chip = 1;
  std::array<int, 3> host_block{2, 2, 1}; // chips per host along x, y, z
  WrapRule wrap = WrapRule::FromFullCube;
  double hbm_bytes = 0;              // per chip (per device for GPUs)
  double hbm_bandwidth = 0;          // bytes/s
  double peak_bf16_flops = 0;        // per chip
  double ici_link_bandwidth = 0;     // bytes/s, one direction, one link
  double ici_link_latency = 1e-6;    // seconds per hop
  double dcn_bandwidth_per_chip = 0; // bytes/s, one direction
  double dcn_latency = 10e-6;
};

// How many JAX devices one chip is: `requestedCores` (a topology's cores_per_chip) or, when 0, the
// chip's default. Each is one TensorCore, with that share of the chip's FLOP/s, HBM and HBM
// bandwidth (TPU v2, v3 and 7x expose each of their two TensorCores as a device).
int devicesPerChip(const ChipSpec& chip, int requestedCores);

// All built-in chips, TPUs first.
const std::vector<ChipSpec>& chipCatalog();
// By key ("v5p") or by device kind ("TPU v5p"); nullptr when unknown.
const ChipSpec* findChip(std::string_view keyOrDeviceKind);

} // namespace shardscope
