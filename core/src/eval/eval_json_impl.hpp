// SPDX-License-Identifier: Apache-2.0
// Internal: template part of eval_json.hpp.
#pragma once

#include "shardscope/base/errors.hpp"

#include <string>

namespace shardscope::eval {

namespace detail {
template <class T>
Json nestedFrom(const NdArray<T>& a, std::size_t dim, std::size_t& flat) {
  if (dim == a.ndim()) return Json(a.data()[flat++]);
  Json out = Json::array();
  for (std::int64_t i = 0; i < a.shape()[dim]; ++i) out.push_back(nestedFrom(a, dim + 1, flat));
  return out;
}
} // namespace detail

template <class T>
Json nestedJson(const NdArray<T>& array) {
  // One recursion level per dimension, and a reader bounds JSON depth (json_text.hpp): refuse the
  // rank NumPy (2.x) refuses too, so a mesh_shape of a million 1s answers an error, not a stack overflow.
  constexpr std::size_t kMaxNdim = 64;
  if (array.ndim() > kMaxNdim)
    throwValueError("maximum supported dimension for an ndarray is currently " + std::to_string(kMaxNdim) + ", found " +
                    std::to_string(array.ndim()));
  std::size_t flat = 0;
  return detail::nestedFrom(array, 0, flat);
}

} // namespace shardscope::eval
