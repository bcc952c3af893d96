// SPDX-License-Identifier: Apache-2.0
// Fuzzes our model JSON form ({"name", "params": [{path, shape, dtype}], "config"?} or a bare list),
// including the round trip through modelToJson.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  try {
    const Json json = parseJsonText(std::string_view(reinterpret_cast<const char*>(data), size), "model");
    const Model model = modelFromJson(json);
    (void)modelFromJson(modelToJson(model));
  } catch (const Error&) {}
  return 0;
}
