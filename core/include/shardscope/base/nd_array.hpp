// SPDX-License-Identifier: Apache-2.0
// A small dense N-d array in row-major order: the C++ stand-in for the numpy object arrays the
// reference algorithms build. A device mesh is an NdArray<int> of positions into a DeviceList.
#pragma once

#include "shardscope/base/errors.hpp"

#include <cstdint>
#include <functional>
#include <numeric>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace shardscope {

using Shape = std::vector<std::int64_t>;

// The most dimensions an array may have: NumPy's NPY_MAXDIMS (64 since NumPy 2.0). Every place a
// shape enters (safetensors headers, model files, eval requests) refuses more, before it reads them.
inline constexpr std::size_t kMaxRank = 64;
// Throws ValueError("<what> has <rank> dimensions; at most 64 are supported (NumPy's limit)").
[[noreturn]] void throwRankError(std::size_t rank, const std::string& what);

// Number of elements of a shape; the product of no dimensions is 1 (a 0-d array holds one value).
inline std::int64_t shapeSize(std::span<const std::int64_t> shape) {
  std::int64_t n = 1;
  for (auto d : shape) n *= d;
  return n;
}

// Python's tuple repr of a shape: "(8,)", "(2, 4)", "()".
std::string shapeRepr(std::span<const std::int64_t> shape);
// Python's list repr: "[4, 4, 0]".
std::string listRepr(std::span<const std::int64_t> values);

template <class T>
class NdArray {
public:
  NdArray() : data_(1) {} // 0-d, one default value
  NdArray(Shape shape, std::vector<T> data) : shape_(std::move(shape)), data_(std::move(data)) {
    if (static_cast<std::int64_t>(data_.size()) != shapeSize(shape_))
      throwValueError("NdArray: " + std::to_string(data_.size()) + " values do not fill shape " + shapeRepr(shape_));
  }

  // 0, 1, 2, ... laid out in `shape`.
  static NdArray iota(Shape shape) {
    std::vector<T> data(static_cast<std::size_t>(shapeSize(shape)));
    std::iota(data.begin(), data.end(), T{0});
    return NdArray(std::move(shape), std::move(data));
  }

  const Shape& shape() const { return shape_; }
  std::size_t ndim() const { return shape_.size(); }
  std::size_t size() const { return data_.size(); }
  const std::vector<T>& data() const { return data_; }
  std::vector<T>& data() { return data_; }

  // Row-major strides in elements.
  Shape strides() const {
    Shape s(shape_.size(), 1);
    for (std::size_t i = shape_.size(); i-- > 1;) s[i - 1] = s[i] * shape_[i];
    return s;
  }

  std::int64_t flatIndex(std::span<const std::int64_t> index) const {
    std::int64_t flat = 0;
    for (std::size_t i = 0; i < shape_.size(); ++i) flat = flat * shape_[i] + index[i];
    return flat;
  }
  const T& at(std::span<const std::int64_t> index) const { return data_[static_cast<std::size_t>(flatIndex(index))]; }
  T& at(std::span<const std::int64_t> index) { return data_[static_cast<std::size_t>(flatIndex(index))]; }

  // Same data, new shape; the element count must match (numpy's reshape without -1).
  NdArray reshape(Shape shape) const {
    if (shapeSize(shape) != static_cast<std::int64_t>(data_.size()))
      throwValueError("cannot reshape array of size " + std::to_string(data_.size()) + " into shape " +
                      shapeRepr(shape));
    return NdArray(std::move(shape), data_);
  }

  // numpy's transpose(perm): result axis k is source axis perm[k].
  NdArray transpose(std::span<const int> perm) const {
    const std::size_t n = shape_.size();
    if (perm.size() != n) throwValueError("axes don't match array");
    std::vector<bool> seen(n, false);
    for (int p : perm) {
      if (p < 0 || static_cast<std::size_t>(p) >= n || seen[static_cast<std::size_t>(p)])
        throwValueError("axes don't match array");
      seen[static_cast<std::size_t>(p)] = true;
    }
    const Shape srcStrides = strides();
    Shape outShape(n), stepOf(n);
    for (std::size_t k = 0; k < n; ++k) {
      outShape[k] = shape_[static_cast<std::size_t>(perm[k])];
      stepOf[k] = srcStrides[static_cast<std::size_t>(perm[k])];
    }
    std::vector<T> out;
    out.reserve(data_.size());
    if (data_.empty()) return NdArray(outShape, std::move(out));
    // Odometer over the output index, tracking the source offset incrementally.
    Shape idx(n, 0);
    std::int64_t src = 0;
    for (std::size_t count = 0; count < data_.size(); ++count) {
      out.push_back(data_[static_cast<std::size_t>(src)]);
      for (std::size_t k = n; k-- > 0;) {
        if (++idx[k] < outShape[k]) {
          src += stepOf[k];
          break;
        }
        src -= stepOf[k] * (outShape[k] - 1);
        idx[k] = 0;
      }
    }
    return NdArray(std::move(outShape), std::move(out));
  }

  // Element-wise conversion.
  template <class F>
  auto map(F&& f) const -> NdArray<decltype(f(std::declval<const T&>()))> {
    using U = decltype(f(std::declval<const T&>()));
    std::vector<U> out;
    out.reserve(data_.size());
    for (const auto& v : data_) out.push_back(f(v));
    return NdArray<U>(shape_, std::move(out));
  }

  bool operator==(const NdArray&) const = default;

private:
  Shape shape_;
  std::vector<T> data_;
};

// Positions into a DeviceList, laid out as a logical mesh.
using DeviceGrid = NdArray<int>;

} // namespace shardscope
