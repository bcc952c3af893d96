// SPDX-License-Identifier: Apache-2.0
// Fuzzes the topology text ("v5p:16x20x28:slices=2"): parse, print back, and build the device list
// (makeDevices caps the count, so a huge shape must answer an error, not an allocation).
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  try {
    const TopologySpec spec = parseTopology(std::string_view(reinterpret_cast<const char*>(data), size));
    const std::string canonical = formatTopology(spec);
    // Round trip: the canonical text must parse back to the same spec.
    if (!(parseTopology(canonical) == spec)) std::abort();
    // Building a million devices per run would only measure the allocator; small lists are enough.
    const std::int64_t count = std::int64_t{spec.shape[0]} * spec.shape[1] * spec.shape[2] * spec.slices;
    if (count > 0 && count <= 4096) (void)makeDevices(spec);
  } catch (const Error&) {}
  return 0;
}
