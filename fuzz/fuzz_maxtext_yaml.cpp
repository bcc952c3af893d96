// SPDX-License-Identifier: Apache-2.0
// Fuzzes the MaxText import: the bytes are one MaxText config (base.yml with its model keys and
// compile_topology in it), merged as MaxText merges a base with no model file and no overrides,
// then turned into a workspace and written as JSON. Any input answers a scenario or one ValueError
// naming the key; large layer, expert or slice counts must be refused, not allocated.
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  try {
    const Json config = parseYamlText(std::string_view(reinterpret_cast<const char*>(data), size), "fuzz.yml");
    MaxTextImportNotes notes;
    const Scenario s = scenarioFromMaxTextConfig(mergeMaxTextConfig(config, Json::object(), Json::object()), notes);
    (void)scenarioToJson(s);
  } catch (const Error&) {}
  return 0;
}
