// SPDX-License-Identifier: Apache-2.0
// Internal: finds a parameter path given twice, in one pass and in the order the parameters come.
// An open-addressing table of positions into the parameter list (no string copies, no node per
// entry), hashed with the JSON index's keyed SipHash so that chosen names cannot collide on
// purpose: a safetensors header of 200,000 tensors is checked in a few milliseconds.
#pragma once

#include "shardscope/base/indexed_ordered_map.hpp"
#include "shardscope/models/model.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace shardscope {

class UniquePaths {
public:
  explicit UniquePaths(const std::vector<Param>& params) : params_(params) {
    std::size_t capacity = 16;
    while (capacity < 2 * params.size()) capacity *= 2;
    table_.assign(capacity, kEmpty);
  }

  // Adds params[i].path; false when an earlier added parameter has the same path. Every index
  // must be added at most once, and the list must not grow past the size it had at construction.
  bool add(std::size_t i) {
    const std::string_view path = params_[i].path;
    const std::size_t mask = table_.size() - 1;
    for (std::size_t s = static_cast<std::size_t>(json_detail::hashKey(path)) & mask;; s = (s + 1) & mask) {
      if (table_[s] == kEmpty) {
        table_[s] = static_cast<std::uint32_t>(i);
        return true;
      }
      if (std::string_view(params_[table_[s]].path) == path) return false;
    }
  }

private:
  static constexpr std::uint32_t kEmpty = 0xFFFFFFFFu;
  const std::vector<Param>& params_;
  std::vector<std::uint32_t> table_; // load factor at most 1/2
};

} // namespace shardscope
