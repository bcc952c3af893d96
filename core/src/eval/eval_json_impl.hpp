// Internal: template part of eval_json.hpp.
#pragma once

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
  std::size_t flat = 0;
  return detail::nestedFrom(array, 0, flat);
}

} // namespace shardscope::eval
