// SPDX-License-Identifier: Apache-2.0
// Fuzzes the XLA HLO sharding text reader ("{devices=[2,4]<=[4,2]T(1,0) last_tile_dim_replicate}"),
// its printer and the decoder of each device's block.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  HloSharding sharding;
  try {
    sharding = parseHloSharding(text);
  } catch (const Error&) {
    return 0;
  }
  // What is printed reads back as the same sharding.
  const std::string printed = hloShardingToString(sharding);
  if (!(parseHloSharding(printed) == sharding)) std::abort();
  if (sharding.kind == HloSharding::Kind::Tuple || sharding.tileCount() > 4096) return 0;
  // Decode on an array of 7 along every data dimension (7 is not divisible by most tile counts,
  // so ragged and empty blocks are exercised); every range lies inside the array.
  const std::size_t rank = sharding.kind == HloSharding::Kind::Tiled ? sharding.dataRank() : 2;
  const Shape shape(rank, 7);
  try {
    const HloDecoded decoded = decodeHloSharding(sharding, shape, 0);
    for (const auto& d : decoded.devices)
      for (const auto& r : d.index)
        if (r.start < 0 || r.start > r.stop || r.stop > 7) std::abort();
  } catch (const Error&) {}
  return 0;
}
