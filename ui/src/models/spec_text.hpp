// SPDX-License-Identifier: Apache-2.0
// Reads the mesh axes out of a partition spec's printed form, P(None, 'tp', ('fsdp', 'sp')), so
// the views can colour shards. The sharding engine owns specs; this only reads its output.
#pragma once

#include "shardscope/base/json.hpp"

#include <optional>
#include <string>
#include <vector>

namespace shardscope::ui {

// One list of mesh-axis names per array dimension (empty = not sharded). Unknown syntax gives an
// empty result (treated as replicated) rather than an error: the view must never fail on it.
std::vector<std::vector<std::string>> specAxes(const std::string& spec);

// What the user types for a spec, "P('fsdp', None)", "fsdp, tp", "None, (fsdp, sp)", to the
// scenario's JSON form ["fsdp", null] ... ; nullopt and `error` set when it does not parse.
std::optional<Json> specJsonFromText(const std::string& text, std::string* error);
// The JSON form back to the P(...) text.
std::string specTextFromJson(const Json& spec);

} // namespace shardscope::ui
