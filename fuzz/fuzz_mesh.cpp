// SPDX-License-Identifier: Apache-2.0
// Fuzzes the mesh strings: the command-line "name:size,..." form (parseMeshAxes) and eformer's
// parse_mesh_from_string (named "dp:2,tp:4" and positional "2,4"), down to building the mesh.
#include "shardscope/mesh/eformer_mesh.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/hardware/topology.hpp"

#include <cstddef>
#include <cstdint>
#include <string_view>

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace shardscope;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  for (const std::int64_t devices : {std::int64_t{1}, std::int64_t{8}, std::int64_t{4096}}) {
    try {
      (void)parseMeshAxes(text, devices);
    } catch (const Error&) {}
  }
  static const std::vector<std::string> names{"dp", "fsdp", "tp", "sp"};
  try {
    (void)parseMeshString(text, names);
  } catch (const Error&) {}
  // Building the mesh is bounded by the device list; 8 devices keep each run fast.
  static const DeviceList devices = makeDevices(parseTopology("v4:2x2x2"));
  try {
    (void)parseMeshFromString(text, names, devices);
  } catch (const Error&) {}
  return 0;
}
