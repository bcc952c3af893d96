// SPDX-License-Identifier: Apache-2.0
// How many layers of a model attend through a sliding window, counted from the periodic pattern
// (ModelConfig::isSlidingLayer) rather than layer by layer: the estimates' cost must not grow with
// the layer count (a model may declare 2^31 layers).
#pragma once

#include "shardscope/models/model.hpp"

#include <cstdint>

namespace shardscope {

// Layers i in [0, num_layers) with isSlidingLayer(i): all of them without a pattern, all but the
// floor(num_layers / pattern) global ones (index + 1 a multiple of the pattern) with one.
inline std::int64_t slidingLayerCount(const ModelConfig& c) {
  if (c.sliding_window <= 0 || c.num_layers <= 0) return 0;
  if (c.sliding_window_pattern <= 0) return c.num_layers;
  return c.num_layers - c.num_layers / c.sliding_window_pattern;
}

} // namespace shardscope
