// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/nd_array.hpp"

namespace shardscope {

void throwRankError(std::size_t rank, const std::string& what) {
  throwValueError(what + " has " + std::to_string(rank) + " dimensions; at most " + std::to_string(kMaxRank) +
                  " are supported (NumPy's limit)");
}

std::string shapeRepr(std::span<const std::int64_t> shape) {
  std::string out = "(";
  for (std::size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  if (shape.size() == 1) out += ",";
  return out + ")";
}

std::string listRepr(std::span<const std::int64_t> values) {
  std::string out = "[";
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(values[i]);
  }
  return out + "]";
}

} // namespace shardscope
