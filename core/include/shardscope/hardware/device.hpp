// SPDX-License-Identifier: Apache-2.0
// One accelerator device as JAX sees it. Lists of devices keep their order: the reference
// algorithms permute list positions, so order is part of the input.
#pragma once

#include "shardscope/base/enum_names.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

enum class Platform { Tpu, Gpu, Cpu };

inline constexpr std::array<std::pair<std::string_view, Platform>, 3> kPlatformNames{{
    {"tpu", Platform::Tpu},
    {"gpu", Platform::Gpu},
    {"cpu", Platform::Cpu},
}};
std::string_view platformName(Platform platform); // the name in kPlatformNames
std::optional<Platform> parsePlatform(std::string_view text);

struct Device {
  std::int64_t id = 0;
  Platform platform = Platform::Cpu;
  std::string device_kind;                  // e.g. "TPU v4", "NVIDIA H100 80GB HBM3", "cpu"
  std::optional<std::array<int, 3>> coords; // physical chip coordinates (TPU only)
  std::optional<int> core_on_chip;          // absent on GPU/CPU
  int process_index = 0;                    // the host that owns the device
  std::optional<int> slice_index;           // absent means the attribute does not exist

  bool operator==(const Device&) const = default;
};

using DeviceList = std::vector<Device>;

// Short human form used inside error messages, e.g. "TpuDevice(id=3, coords=(1,0,0), core=0)".
std::string describeDevice(const Device& device);
// "[dev, dev, ...]" of a whole list.
std::string describeDevices(const DeviceList& devices);

} // namespace shardscope
