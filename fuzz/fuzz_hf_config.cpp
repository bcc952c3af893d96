// SPDX-License-Identifier: Apache-2.0
// Fuzzes the Hugging Face config.json reader: architecture numbers and the synthesized tensors.
// Huge layer or expert counts must answer an error, not an allocation.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  try {
    const Json config = parseJsonText(std::string_view(reinterpret_cast<const char*>(data), size), "config.json");
    const Model model = modelFromHfConfig(config, "fuzz");
    (void)modelToJson(model);
  } catch (const Error&) {}
  return 0;
}
