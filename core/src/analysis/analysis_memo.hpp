// SPDX-License-Identifier: Apache-2.0
// Internal: what an AnalysisCache holds (analysis_cache.hpp says why), one entry per kind.
#pragma once

#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/models/model.hpp"

#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

namespace shardscope {

struct AnalysisCache::Memo {
  // The last loaded model, by what identifies it (preset name, file with size and time, inline list).
  struct LoadedModel {
    std::mutex mutex;
    std::string key;
    std::shared_ptr<const Model> model;
  } model;

  // The grouping of alike parameters of the last plan.
  struct Grouping {
    std::mutex mutex;
    std::weak_ptr<const Model> model; // locked and compared: a live object at the same address
    std::vector<std::string> patterns;
    std::string dtype;
    std::vector<std::uint32_t> group_of;
    std::vector<std::size_t> first;
    std::vector<std::int64_t> counts;
  } grouping;

  // Every parameter's role for the step estimate (classifyParams), for the last model asked.
  struct Roles {
    std::mutex mutex;
    std::weak_ptr<const Model> model;
    std::shared_ptr<const ParamRoles> roles;
  } roles;
};

} // namespace shardscope
