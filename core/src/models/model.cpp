// SPDX-License-Identifier: Apache-2.0
#include "shardscope/models/model.hpp"

#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "models/unique_paths.hpp"

#include <string_view>

namespace shardscope {

bool ModelConfig::isSlidingLayer(std::int64_t layer) const {
  if (sliding_window <= 0) return false;
  if (sliding_window_pattern <= 0) return true;
  // HF Gemma 2/3: a layer is global when (index + 1) is a multiple of the pattern.
  return (layer + 1) % sliding_window_pattern != 0;
}

std::int64_t Model::parameterCount() const {
  std::int64_t n = 0;
  for (const auto& p : params) n += p.elements();
  return n;
}

double Model::parameterBytes() const {
  double bytes = 0;
  for (const auto& p : params) bytes += static_cast<double>(p.elements()) * dtypeBytes(p.dtype).value_or(0.0);
  return bytes;
}

void validateParam(const Param& p, std::string_view modelName) {
  if (p.path.empty()) throwValueError("model '" + std::string(modelName) + "': a parameter has an empty path");
  if (p.shape.size() > kMaxRank) throwRankError(p.shape.size(), "parameter '" + p.path + "': shape");
  for (std::size_t i = 0; i < p.shape.size(); ++i)
    if (p.shape[i] < 0)
      throwValueError("parameter '" + p.path + "': dimension " + std::to_string(i) + " is negative (" +
                      std::to_string(p.shape[i]) + ")");
  // Bound the element count so sums and byte totals stay exact in int64 and double.
  // A zero dimension makes the whole parameter empty however large the others are.
  constexpr std::int64_t kMaxElements = std::int64_t{1} << 53;
  const bool empty = std::find(p.shape.begin(), p.shape.end(), 0) != p.shape.end();
  std::int64_t n = 1;
  for (auto d : empty ? Shape{} : p.shape) {
    if (d != 0 && n > kMaxElements / d)
      throwValueError("parameter '" + p.path + "': shape " + shapeRepr(p.shape) + " has more than 2^53 elements");
    n *= d;
  }
  if (!dtypeBytes(p.dtype)) throwValueError("parameter '" + p.path + "': unknown dtype '" + p.dtype + "'");
  if (!p.logical_axes.empty() && p.logical_axes.size() != p.shape.size())
    throwValueError("parameter '" + p.path + "': " + std::to_string(p.logical_axes.size()) +
                    " logical axis names for a shape of rank " + std::to_string(p.shape.size()));
}

void validateModel(const Model& model) {
  UniquePaths seen(model.params);
  for (std::size_t i = 0; i < model.params.size(); ++i) {
    const Param& p = model.params[i];
    if (!p.path.empty() && !seen.add(i))
      throwValueError("model '" + model.name + "': parameter '" + p.path + "' appears twice");
    validateParam(p, model.name);
  }
}

} // namespace shardscope
