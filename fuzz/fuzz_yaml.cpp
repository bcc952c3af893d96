// SPDX-License-Identifier: Apache-2.0
// Fuzzes the bounded YAML reader (MaxText configurations): any text answers a value or one
// ValueError with its position, never a crash, a hang or unbounded memory. A parsed document is
// also printed as JSON, and the inline form (a command-line override) is read from the same bytes.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    (void)dumpJson(parseYamlText(text, "fuzz.yml"));
  } catch (const Error&) {}
  try {
    (void)dumpJson(parseYamlValue(text, "key"));
  } catch (const Error&) {}
  return 0;
}
