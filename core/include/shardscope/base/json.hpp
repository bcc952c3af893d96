// SPDX-License-Identifier: Apache-2.0
// The JSON value type every layer shares (workspaces, model files, rule files, eval requests).
#pragma once

#include "shardscope/base/indexed_ordered_map.hpp"

#include <nlohmann/json.hpp>

namespace shardscope {

// Ordered, because objects shown to users (a mesh's {axis: size}, a workspace written back) keep
// the order they were given in; indexed, because checkpoint indexes, safetensors headers and eval
// answers hold objects of hundreds of thousands of keys (indexed_ordered_map.hpp).
using Json = nlohmann::basic_json<IndexedOrderedMap>;

} // namespace shardscope
