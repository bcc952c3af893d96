// SPDX-License-Identifier: Apache-2.0
// Internal: finds which of many literal strings occur in a text, in one pass over the text
// (Aho and Corasick, "Efficient string matching", 1975). The batch rule matcher gives each regex
// rule one literal that every match must contain; scanning a parameter path once tells which rules
// can match at all, so 10,000 rules cost a scan plus the few candidates instead of 10,000 searches.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

class LiteralScanner {
public:
  // Literal i of `literals` is reported as i. Empty literals are never reported.
  explicit LiteralScanner(const std::vector<std::string>& literals);
  LiteralScanner() : LiteralScanner(std::vector<std::string>{}) {}

  std::size_t literalCount() const { return literalCount_; }

  // Calls found(i) for each occurrence of literal i in `text` (so possibly more than once).
  // Const and free of shared scratch state: one scanner may serve several threads.
  template <class Found>
  void scan(std::string_view text, Found&& found) const {
    int node = 0;
    for (const char ch : text) {
      const auto c = static_cast<unsigned char>(ch);
      node = step(node, c);
      for (int n = output_[static_cast<std::size_t>(node)] >= 0 ? node : outputLink_[static_cast<std::size_t>(node)];
           n > 0; n = outputLink_[static_cast<std::size_t>(n)])
        found(output_[static_cast<std::size_t>(n)]);
    }
  }

private:
  int child(int node, unsigned char c) const;
  int step(int node, unsigned char c) const {
    for (;;) {
      const int next = child(node, c);
      if (next >= 0) return next;
      if (node == 0) return 0;
      node = fail_[static_cast<std::size_t>(node)];
    }
  }

  // Trie edges in CSR form: node k's children are edgeLabel_/edgeTarget_[edgeBegin_[k] ..
  // edgeBegin_[k + 1]), sorted by label; the root's children are also in rootNext_ for speed.
  std::vector<int> edgeBegin_;
  std::vector<unsigned char> edgeLabel_;
  std::vector<int> edgeTarget_;
  int rootNext_[256];
  std::vector<int> fail_;       // longest proper suffix of the node's string that is a trie node
  std::vector<int> output_;     // literal ending exactly at the node, or -1
  std::vector<int> outputLink_; // nearest node on the fail chain with an output (0: none)
  std::size_t literalCount_ = 0;
};

} // namespace shardscope
