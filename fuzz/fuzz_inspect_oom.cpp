// SPDX-License-Identifier: Apache-2.0
// Fuzzes the inspect reader of XLA's out-of-memory reports (TPU and GPU forms), read bare and on a mesh of
// two axes (device groups mapped to axes), and its JSON. Any text is an answer or one ValueError.
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/inspect/inspect.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  InspectOptions options;
  options.kind = InspectKind::Oom;
  for (int withMesh = 0; withMesh < 2; ++withMesh) {
    if (withMesh) options.mesh = InspectMesh{"", {{"data", 2}, {"model", 4}}, {}};
    try {
      const InspectResult r = inspectText(text, options);
      (void)dumpJson(inspectResultToJson(r)); // the one writer: bad UTF-8 in names is replaced
    } catch (const Error&) {}
  }
  return 0;
}
