// SPDX-License-Identifier: Apache-2.0
// Eval op `hlo_sharding`: an XLA HLO sharding string and an array shape -> each device's block.
//   {"op": "hlo_sharding", "sharding": "{devices=[4,2]<=[8]}", "shape": [8192, 28672],
//    "num_devices": 8 (optional: the device assignment's size; needed by {replicated}/{manual})}
//   -> {"tile_dims": [4, 2], "replicated_tiles": 1, "sharding": "<as XLA prints it>",
//       "devices": [{"device": 0, "index": [[0, 2048], [0, 14336]]}, ...]}
#include "eval_json.hpp"
#include "eval_ops.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

namespace shardscope::eval {

Json opHloSharding(const Json& request, EvalContext&) {
  const JsonField req = fields(request);
  req.checkKeys({"op", "sharding", "shape", "num_devices"});
  const HloSharding sharding = parseHloSharding(req["sharding"].toString());
  const Shape shape = req["shape"].toInts(kNonNegativeInt);
  const std::int64_t devices = req["num_devices"].intOr(0, {1, kMaxHloDevices});
  const HloDecoded decoded = decodeHloSharding(sharding, shape, devices);
  Json list = Json::array();
  for (const auto& d : decoded.devices) {
    Json index = Json::array();
    for (const auto& r : d.index) index.push_back(Json::array({r.start, r.stop}));
    list.push_back({{"device", d.device}, {"index", std::move(index)}});
  }
  Json out;
  out["tile_dims"] = decoded.tile_dims;
  out["replicated_tiles"] = decoded.replicated_tiles;
  out["sharding"] = hloShardingToString(sharding);
  out["devices"] = std::move(list);
  return out;
}

} // namespace shardscope::eval
