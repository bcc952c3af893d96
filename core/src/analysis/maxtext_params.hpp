// SPDX-License-Identifier: Apache-2.0
// Private to the MaxText import: reading the merged configuration key by key, and the decoder's
// parameter tree (paths, shapes and logical axis names as MaxText's layers annotate them).
#pragma once

#include "shardscope/analysis/maxtext_import.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/json_text.hpp"

#include <cmath>
#include <cstdint>
#include <set>
#include <string>
#include <vector>

namespace shardscope {

// The merged configuration, read key by key; every key read is remembered for the notes.
class MaxTextConfigReader {
public:
  explicit MaxTextConfigReader(const Json& config) : config_(config) {}

  bool has(const std::string& key) const { return config_.contains(key) && !config_.at(key).is_null(); }
  const Json* get(const std::string& key) {
    used_.insert(key);
    const auto it = config_.find(key);
    return it == config_.end() ? nullptr : &*it;
  }
  std::int64_t integer(const std::string& key, std::int64_t fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_number_integer()) return v->get<std::int64_t>();
    if (v->is_number_float()) {
      const double d = v->get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return static_cast<std::int64_t>(d);
    }
    throwValueError("MaxText key '" + key + "' must be an integer, not " + dumpJson(*v));
  }
  double number(const std::string& key, double fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_number() && !v->is_boolean()) return v->get<double>();
    throwValueError("MaxText key '" + key + "' must be a number, not " + dumpJson(*v));
  }
  bool boolean(const std::string& key, bool fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_boolean()) return v->get<bool>();
    throwValueError("MaxText key '" + key + "' must be true or false, not " + dumpJson(*v));
  }
  std::string text(const std::string& key, const std::string& fallback) {
    const Json* v = get(key);
    if (!v || v->is_null()) return fallback;
    if (v->is_string()) return v->get<std::string>();
    throwValueError("MaxText key '" + key + "' must be a string, not " + dumpJson(*v));
  }

  void fillNotes(MaxTextImportNotes& notes) const {
    for (auto it = config_.begin(); it != config_.end(); ++it) {
      if (used_.count(it.key()))
        notes.used_keys.push_back(it.key());
      else
        notes.unused_keys.push_back(it.key());
    }
  }

private:
  const Json& config_;
  std::set<std::string> used_;
};

[[noreturn]] inline void notModelled(const std::string& key, const Json& value, const std::string& why) {
  throwValueError("MaxText key '" + key + "' = " + dumpJson(value) + " is not modelled: " + why);
}

// One parameter: its path in MaxText's parameter tree ("params/decoder/layers/mlp/wi_0/kernel"),
// its shape, and the logical axis name of each dimension ("" where MaxText gives None).
struct MaxTextParam {
  std::string path;
  std::vector<std::int64_t> shape;
  std::vector<std::string> logical_axes;
};

struct MaxTextModel {
  std::string name;
  std::string weight_dtype;
  std::vector<MaxTextParam> params;
  Json architecture; // our model JSON's `config` form
};

// The decoder of `decoder_block` (llama2, mistral, mixtral, gemma) with the dimensions the config gives.
MaxTextModel maxTextModel(MaxTextConfigReader& c, MaxTextImportNotes& notes);

} // namespace shardscope
