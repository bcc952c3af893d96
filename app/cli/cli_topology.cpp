// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli topology KIND DIMS [--slices N] [--cores C] [--host AxBxC] [--interleaved]
// [--kind NAME]`: the device list of a topology preset, as JSON in the eval device format, so it
// can be pasted into an eval request's "devices".
#include "cli.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/json.hpp"
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
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    printUsage(io.out);
    return 0;
  }
  if (args.size() < 2) {
    io.err << "shardscope-cli topology: expected KIND and DIMS\n\n";
    printUsage(io.err);
    return 2;
  }
  try {
    std::string text = args[0] + ":" + args[1];
    for (std::size_t k = 2; k < args.size(); ++k) {
      const std::string& flag = args[k];
      auto value = [&]() -> const std::string& {
        if (k + 1 >= args.size()) throwValueError("option " + flag + " needs a value");
        return args[++k];
      };
      if (flag == "--slices")
        text += ":slices=" + value();
      else if (flag == "--cores")
        text += ":cores=" + value();
      else if (flag == "--host")
        text += ":host=" + value();
      else if (flag == "--kind")
        text += ":kind=" + value();
      else if (flag == "--interleaved")
        text += ":interleaved";
      else {
        io.err << "shardscope-cli topology: unknown option '" << flag << "'\n";
        return 2;
      }
    }
    const DeviceList devices = makeDevices(parseTopology(text));
    Json out = Json::array();
    for (const Device& d : devices) out.push_back(deviceJson(d));
    io.out << out.dump() << '\n';
    return 0;
  } catch (const Error& e) {
    io.err << "shardscope-cli topology: " << e.what() << '\n';
    return 1;
  }
}

} // namespace shardscope::cli
