// SPDX-License-Identifier: Apache-2.0
// The machine-readable interface behind `shardscope-cli eval` (../shared/DESIGN.md): one JSON
// request in, one JSON answer out, never an exception. Kept in core so tests call it directly.
#pragma once

#include "shardscope/base/json.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Answers {"ok": true, "result": ..., "warnings"?: [...]} or
// {"ok": false, "error": {"type": "<Python class>", "message": "..."}}.
Json evalRequest(const Json& request);

// Parses one JSON Lines line and answers it; a line that is not JSON answers a ValueError.
std::string evalLine(std::string_view line);

// The op names the interface knows, sorted.
std::vector<std::string> evalOpNames();

} // namespace shardscope
