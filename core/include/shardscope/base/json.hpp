// SPDX-License-Identifier: Apache-2.0
// The JSON value type every layer shares (workspaces, model files, rule files, eval requests).
#pragma once

#include <nlohmann/json.hpp>

namespace shardscope {

// Ordered, because objects shown to users (a mesh's {axis: size}, a workspace written back) keep
// the order they were given in.
using Json = nlohmann::ordered_json;

} // namespace shardscope
