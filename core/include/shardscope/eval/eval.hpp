// SPDX-License-Identifier: Apache-2.0
// The machine-readable interface behind `shardscope-cli eval` (../shared/DESIGN.md): one JSON
// request in, one JSON answer out, never an exception. Kept in core so tests call it directly.
#pragma once

#include "shardscope/base/json.hpp"

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Answers {"ok": true, "result": ..., "warnings"?: [...]} or
// {"ok": false, "error": {"type": "<Python class>", "message": "..."}}.
Json evalRequest(const Json& request);

// The longest request line answered: a request that needs more is not a request the reference
// functions take (the largest real ones, a shard of a 200,000-tensor model, are about 20 MB). With
// the JSON memory bound (json_text.hpp) it keeps one request under about 1 GB.
inline constexpr std::size_t kMaxEvalLineBytes = 64'000'000;

// Parses one JSON Lines line and answers it; a line that is not JSON, or longer than
// kMaxEvalLineBytes, answers a ValueError.
std::string evalLine(std::string_view line);
// The answer to a line of `length` bytes, over kMaxEvalLineBytes, that the reader did not keep.
std::string evalLineTooLong(std::size_t length);
// The answer a streaming reader gives as soon as a line passes kMaxEvalLineBytes, before its end.
std::string evalLineOverLimit();

// The op names the interface knows, sorted.
std::vector<std::string> evalOpNames();

} // namespace shardscope
