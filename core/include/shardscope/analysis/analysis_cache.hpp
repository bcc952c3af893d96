// SPDX-License-Identifier: Apache-2.0
// What analyze() may keep between calls, held by the caller and passed in, so analyze() itself is a
// function of its arguments. Two things are worth keeping while a user drags an axis (one analysis
// per frame, same model and rules):
//   * the loaded model: a 46k-tensor checkpoint index must not be parsed again on every frame;
//   * which parameters plan alike: matching every path against the rules is the slow part of
//     sharding, and it depends only on the model, the rule patterns and the dtype.
// Each holds one entry (the last one used), so the cache is bounded by one model and one grouping.
// Entries are keyed by what they depend on, so a stale entry is never used. Thread-safe: the GUI's
// background runner and a test may share one.
#pragma once

#include <memory>

namespace shardscope {

class AnalysisCache {
public:
  AnalysisCache();
  ~AnalysisCache();
  AnalysisCache(const AnalysisCache&) = delete;
  AnalysisCache& operator=(const AnalysisCache&) = delete;

  struct Memo; // defined in core/src/analysis (the stages' business)
  Memo& memo() { return *memo_; }

private:
  std::unique_ptr<Memo> memo_;
};

} // namespace shardscope
