// SPDX-License-Identifier: Apache-2.0
// HLO sharding text as XLA's HloSharding::ToString writes it.
#include "shardscope/sharding/hlo_sharding.hpp"

namespace shardscope {

namespace {

std::string joined(const Shape& values) {
  std::string out;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(values[i]);
  }
  return out;
}

} // namespace

std::string hloShardingToString(const HloSharding& s) {
  switch (s.kind) {
  case HloSharding::Kind::Replicated:
    return "{replicated}";
  case HloSharding::Kind::Manual:
    return "{manual}";
  case HloSharding::Kind::Maximal:
    return "{maximal device=" + std::to_string(s.device) + "}";
  case HloSharding::Kind::Tuple: {
    std::string out = "{";
    for (std::size_t i = 0; i < s.elements.size(); ++i) {
      if (i) out += ", ";
      out += hloShardingToString(s.elements[i]);
    }
    return out + "}";
  }
  case HloSharding::Kind::Tiled:
    break;
  }
  std::string out = "{devices=[" + joined(s.tile_dims) + "]";
  out += s.iota ? iotaToString(s.iota_tiles) : joined(s.devices);
  if (s.last_tile_dim_replicate) {
    out += " last_tile_dim_replicate";
  } else if (!s.subgroups.empty()) {
    out += " last_tile_dims={";
    for (std::size_t i = 0; i < s.subgroups.size(); ++i) {
      if (i) out += ", ";
      out += s.subgroups[i] == HloSubgroup::Manual ? "manual" : "replicated";
    }
    out += "}";
  }
  return out + "}";
}

} // namespace shardscope
