// SPDX-License-Identifier: Apache-2.0
#include "shardscope/hardware/chips.hpp"

#include <iterator>

namespace shardscope {

namespace {
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;
constexpr double GB = 1e9;

// The built-in chips, one per row, TPUs first. Columns: key, JAX device kind, platform, torus dims,
// cores per chip, host block (chips per host along x, y, z), wrap rule, HBM, HBM bandwidth, bf16
// FLOP/s, ICI link bandwidth (one way, one link), hop latency, DCN bandwidth per chip, DCN latency.
// v5e/v6e: multi-host slices are built from 2x2 hosts; a slice of at most 8 chips is one host
// (topology.cpp). GPUs: NVLink bandwidth is per GPU one direction (900 GB/s bidirectional -> 450
// GB/s), network per GPU (a 400 Gb/s NIC). Sources: the vendors' product pages, as gathered in the
// hardware-memory-comm spec (docs/references.md). DCN per chip: v5p's 50 Gb/s (the spec); v5e's
// 25 Gb/s, Google Cloud's v5e page (6.4 Tb/s of data-center network per 256-chip pod, two 100 Gb/s
// NICs per 8-chip host); the others as v5p, for want of a published figure.
// clang-format off
const ChipSpec kCatalog[] = {
    {"v2",    "TPU v2",                Platform::Tpu, 2, 2, {2, 2, 1},  WrapRule::Never,        16 * GiB, 700 * GB,  45e12,   4.5e10,   1e-6, 6.25e9,   10e-6},
    {"v3",    "TPU v3",                Platform::Tpu, 2, 2, {2, 2, 1},  WrapRule::Never,        32 * GiB, 900 * GB,  123e12,  4.5e10,   1e-6, 6.25e9,   10e-6},
    {"v4",    "TPU v4",                Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::FromFullCube, 32 * GiB, 1200 * GB, 275e12,  4.5e10,   1e-6, 6.25e9,   10e-6},
    {"v4i",   "TPU v4 lite",           Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::Never,        8 * GiB,  614 * GB,  138e12,  4.5e10,   1e-6, 6.25e9,   10e-6},
    {"v5e",   "TPU v5 lite",           Platform::Tpu, 2, 1, {2, 2, 1},  WrapRule::OnLength16,   16 * GB,  819 * GB,  197e12,  4.5e10,   1e-6, 3.125e9,  10e-6},
    {"v5p",   "TPU v5p",               Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::FromFullCube, 95 * GiB, 2765 * GB, 459e12,  9e10,     1e-6, 6.25e9,   10e-6},
    {"v6e",   "TPU v6 lite",           Platform::Tpu, 2, 1, {2, 2, 1},  WrapRule::OnLength16,   32 * GB,  1638 * GB, 918e12,  9e10,     1e-6, 6.25e9,   10e-6},
    {"7x",    "TPU7x",                 Platform::Tpu, 3, 2, {2, 2, 1},  WrapRule::FromFullCube, 192 * GB, 7370 * GB, 2307e12, 9e10,     1e-6, 6.25e9,   10e-6},
    {"8i",    "TPU8i",                 Platform::Tpu, 3, 1, {2, 2, 1},  WrapRule::Never,        96 * GB,  3000 * GB, 1000e12, 9e10,     1e-6, 6.25e9,   10e-6},
    {"h100",  "NVIDIA H100 80GB HBM3", Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       80 * GB,  3350 * GB, 989e12,  450 * GB, 2e-6, 50 * GB,  10e-6},
    {"a100",  "NVIDIA A100-SXM4-80GB", Platform::Gpu, 0, 1, {8, 1, 1},  WrapRule::Switch,       80 * GB,  2039 * GB, 312e12,  300 * GB, 2e-6, 25 * GB,  10e-6},
    {"gb200", "NVIDIA GB200",          Platform::Gpu, 0, 1, {72, 1, 1}, WrapRule::Switch,       186 * GB, 8000 * GB, 2500e12, 900 * GB, 2e-6, 100 * GB, 10e-6},
    {"cpu",   "cpu",                   Platform::Cpu, 0, 1, {1, 1, 1},  WrapRule::Never,        64 * GiB, 100 * GB,  1e12,    10 * GB,  5e-6, 10 * GB,  10e-6},
};
// clang-format on
} // namespace

int devicesPerChip(const ChipSpec& chip, int requestedCores) {
  return requestedCores > 0 ? requestedCores : chip.default_cores_per_chip;
}

const std::vector<ChipSpec>& chipCatalog() {
  static const std::vector<ChipSpec> catalog(std::begin(kCatalog), std::end(kCatalog));
  return catalog;
}

const ChipSpec* findChip(std::string_view keyOrDeviceKind) {
  for (const auto& chip : chipCatalog())
    if (chip.key == keyOrDeviceKind || chip.device_kind == keyOrDeviceKind) return &chip;
  // Aliases JAX uses for the same silicon.
  if (keyOrDeviceKind == "TPU v5e" || keyOrDeviceKind == "v5litepod") return findChip("v5e");
  if (keyOrDeviceKind == "TPU v5") return findChip("v5p");
  if (keyOrDeviceKind == "TPU7" || keyOrDeviceKind == "v7x") return findChip("7x");
  if (keyOrDeviceKind == "v6" || keyOrDeviceKind == "TPU v6e") return findChip("v6e");
  return nullptr;
}

} // namespace shardscope
