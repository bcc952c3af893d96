// SPDX-License-Identifier: Apache-2.0
#include "sharding/literal_scanner.hpp"

#include <algorithm>
#include <deque>
#include <map>

namespace shardscope {

LiteralScanner::LiteralScanner(const std::vector<std::string>& literals) {
  // Build the trie with ordered child maps, then flatten it.
  std::vector<std::map<unsigned char, int>> children(1);
  output_.assign(1, -1);
  for (std::size_t i = 0; i < literals.size(); ++i) {
    if (literals[i].empty()) continue;
    int node = 0;
    for (const char ch : literals[i]) {
      const auto c = static_cast<unsigned char>(ch);
      auto it = children[static_cast<std::size_t>(node)].find(c);
      if (it == children[static_cast<std::size_t>(node)].end()) {
        children.emplace_back();
        output_.push_back(-1);
        const int created = static_cast<int>(children.size()) - 1;
        children[static_cast<std::size_t>(node)].emplace(c, created);
        node = created;
      } else {
        node = it->second;
      }
    }
    if (output_[static_cast<std::size_t>(node)] < 0) output_[static_cast<std::size_t>(node)] = static_cast<int>(i);
  }
  const std::size_t nodes = children.size();
  edgeBegin_.assign(nodes + 1, 0);
  for (std::size_t k = 0; k < nodes; ++k) {
    edgeBegin_[k + 1] = edgeBegin_[k] + static_cast<int>(children[k].size());
    for (const auto& [c, target] : children[k]) {
      edgeLabel_.push_back(c);
      edgeTarget_.push_back(target);
    }
  }
  std::fill(std::begin(rootNext_), std::end(rootNext_), -1);
  for (const auto& [c, target] : children[0]) rootNext_[c] = target;

  // Fail and output links, breadth first (a node's links depend on shallower nodes only).
  fail_.assign(nodes, 0);
  outputLink_.assign(nodes, 0);
  std::deque<int> queue;
  for (const auto& [c, target] : children[0]) queue.push_back(target);
  while (!queue.empty()) {
    const int node = queue.front();
    queue.pop_front();
    for (const auto& [c, target] : children[static_cast<std::size_t>(node)]) {
      const int f = step(fail_[static_cast<std::size_t>(node)], c);
      fail_[static_cast<std::size_t>(target)] = f;
      outputLink_[static_cast<std::size_t>(target)] =
          output_[static_cast<std::size_t>(f)] >= 0 ? f : outputLink_[static_cast<std::size_t>(f)];
      queue.push_back(target);
    }
  }
  literalCount_ = literals.size();
}

int LiteralScanner::child(int node, unsigned char c) const {
  if (node == 0) return rootNext_[c];
  const auto begin = edgeLabel_.begin() + edgeBegin_[static_cast<std::size_t>(node)];
  const auto end = edgeLabel_.begin() + edgeBegin_[static_cast<std::size_t>(node) + 1];
  const auto it = std::lower_bound(begin, end, c);
  if (it == end || *it != c) return -1;
  return edgeTarget_[static_cast<std::size_t>(it - edgeLabel_.begin())];
}

} // namespace shardscope
