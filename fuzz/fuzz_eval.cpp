// SPDX-License-Identifier: Apache-2.0
// Fuzzes the eval request line: JSON parsing and every op's request reading.
#include "shardscope/eval/eval.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  shardscope::evalLine(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
