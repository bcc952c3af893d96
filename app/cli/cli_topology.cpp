// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli topology KIND DIMS [--slices N] [--cores C] [--host AxBxC] [--interleaved]
// [--kind NAME]`: the device list of a topology preset, as JSON in the eval device format, so it
// can be pasted into an eval request's "devices".
#include "cli.hpp"
#include "cli_options.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/hardware/topology.hpp"

#include <ostream>

namespace shardscope::cli {

namespace {

void printUsage(std::ostream& out) {
  out << "Usage: shardscope-cli topology KIND DIMS [--slices N] [--cores C] [--host AxBxC] [--interleaved] [--kind "
         "NAME]\n\n"
         "Prints the devices of a topology in jax.devices() order as a JSON list of\n"
         "{id, platform, device_kind, coords, core_on_chip, process_index, slice_index}.\n"
         "KIND is a chip (v2, v3, v4, v4i, v5e, v5p, v6e, 7x, 8i, h100, a100, gb200, cpu) or a device kind.\n"
         "DIMS is XxYxZ chips for TPUs, HOSTSxGPUS or a GPU count for GPUs, a count for CPUs.\n"
         "Example: shardscope-cli topology v5p 4x4x4 --slices 2\n";
}

Json deviceJson(const Device& d) {
  Json j;
  j["id"] = d.id;
  j["platform"] = std::string(platformName(d.platform));
  j["device_kind"] = d.device_kind;
  j["coords"] = d.coords ? Json(*d.coords) : Json(nullptr);
  j["core_on_chip"] = d.core_on_chip ? Json(*d.core_on_chip) : Json(nullptr);
  j["process_index"] = d.process_index;
  j["slice_index"] = d.slice_index ? Json(*d.slice_index) : Json(nullptr);
  return j;
}

} // namespace

int runTopology(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    printUsage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--slices"}, {"--cores"}, {"--host"}, {"--kind"}, {"--interleaved", false}};
  const ParsedArgs opts = parseArgs(args, kFlags, 2, "argument");
  if (opts.positionals().size() != 2) throw UsageError("expected KIND and DIMS, e.g. v5p 4x4x4");
  // The flags are the topology string's options (help topology).
  std::string text = opts.positionals()[0] + ":" + opts.positionals()[1];
  for (const char* option : {"slices", "cores", "host", "kind"})
    if (const auto v = opts.value(std::string("--") + option)) text += std::string(":") + option + "=" + *v;
  if (opts.has("--interleaved")) text += ":interleaved";
  const DeviceList devices = makeDevices(parseTopology(text));
  Json out = Json::array();
  for (const Device& d : devices) out.push_back(deviceJson(d));
  io.out << dumpJson(out) << '\n';
  return 0;
}

} // namespace shardscope::cli
