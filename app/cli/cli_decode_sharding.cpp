// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli decode-sharding SHARDING --shape D0,D1,.. [--topology TOPO | --devices N]
// [--format table|json]`: an XLA HLO sharding string (as in an HLO dump's `sharding={...}`) and an
// array shape -> every device's block of the array (half-open index ranges).
#include "cli.hpp"
#include "cli_options.hpp"
#include "text_table.hpp"

#include "shardscope/base/json.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"
#include "shardscope/inspect/sharding_text.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <charconv>
#include <ostream>

namespace shardscope::cli {

namespace {

void printUsage(std::ostream& out) {
  out << "Usage: shardscope-cli decode-sharding SHARDING --shape D0,D1,... [--topology TOPO | --devices N]\n"
         "                                      [--mesh AXES] [--format table|json]\n\n"
         "Decodes an XLA HLO sharding (the text of sharding={...} in an HLO dump) for an array of the given\n"
         "shape: which block of the array each device holds, as half-open index ranges [start, stop).\n"
         "The text may be given as it stands in a dump: sharding={...}, the quoted \"{...}\" of mhlo.sharding,\n"
         "a trailing , metadata={...}. A Shardy sharding (#sdy.sharding<@mesh, [{\"data\"}, {}]>, as JAX's\n"
         "lowered text prints it) needs --mesh: it is decoded as the HLO sharding JAX lowers it to.\n"
         "Accepted: {replicated}, {manual}, {maximal device=N}, {devices=[..]ID,ID,..} (V1),\n"
         "{devices=[..]<=[..]T(..)} (V2 iota), last_tile_dim_replicate, last_tile_dims={manual, replicated};\n"
         "metadata={..} is skipped. See docs/hlo-sharding.md.\n\n"
         "  --shape D0,D1,..  the array's dimensions (the sharding must tile exactly that many)\n"
         "  --topology TOPO   a topology (as `help topology`, e.g. v5p:2x2x2): its device count must match the\n"
         "                    sharding's, and each device id is shown with the physical device at that position\n"
         "                    of jax.devices() (an HLO id is a position in the computation's device assignment;\n"
         "                    for a jax.sharding.Mesh that is mesh.devices.flat, which may differ)\n"
         "  --devices N       the device count without a topology ({replicated} and {manual} need one)\n"
         "  --mesh AXES       the mesh of a Shardy sharding, major axis first: data:4,model:2 (device i is its\n"
         "                    i-th device, as jax.sharding.Mesh lists mesh.devices.flat)\n"
         "  --format F        table (default) or json (the eval op hlo_sharding's result)\n\n"
         "Example: shardscope-cli decode-sharding '{devices=[4,2]<=[8]}' --shape 8192,28672\n";
}

Shape parseShape(const std::string& text) {
  Shape shape;
  if (text == "scalar" || text == "()") return shape;
  std::size_t start = 0;
  while (true) {
    const std::size_t comma = text.find(',', start);
    const std::string part = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
    std::int64_t value = -1;
    const auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), value);
    if (part.empty() || ec != std::errc() || end != part.data() + part.size() || value < 0)
      throw UsageError("--shape must be non-negative integers separated by commas (e.g. 8192,28672), got '" + text +
                       "'");
    if (shape.size() == kMaxHloTileRank) throw UsageError("--shape has more than 64 dimensions");
    shape.push_back(value);
    if (comma == std::string::npos) return shape;
    start = comma + 1;
  }
}

// "id 3 (1,1,0) core 0": the physical device, short enough for a table column.
std::string physicalText(const Device& d) {
  std::string out = "id " + std::to_string(d.id);
  if (d.coords) {
    out += " (";
    for (std::size_t i = 0; i < 3; ++i) {
      if (i) out += ",";
      out += std::to_string((*d.coords)[i]);
    }
    out += ")";
  }
  if (d.core_on_chip) out += " core " + std::to_string(*d.core_on_chip);
  return out;
}

std::string rangeText(const IndexRange& r) { return std::to_string(r.start) + ":" + std::to_string(r.stop); }

} // namespace

int runDecodeSharding(const Args& args, Streams io) {
  if (wantsHelp(args)) {
    printUsage(io.out);
    return 0;
  }
  static constexpr Flag kFlags[] = {{"--shape"}, {"--topology"}, {"--devices"}, {"--mesh"}, {"--format"}};
  const ParsedArgs opts = parseArgs(args, kFlags, 1, "sharding string");
  if (opts.positionals().size() != 1) throw UsageError("expected one HLO sharding string, e.g. '{devices=[4,2]<=[8]}'");
  const auto shapeText = opts.value("--shape");
  if (!shapeText) throw UsageError("--shape is required (the array's dimensions, e.g. 8192,28672)");
  const Shape shape = parseShape(*shapeText);
  const std::string format = opts.valueOr("--format", "table");
  if (format != "table" && format != "json") throw UsageError("--format must be table or json, got '" + format + "'");
  if (opts.has("--topology") && opts.has("--devices")) throw UsageError("give --topology or --devices, not both");

  DeviceList devices;
  std::int64_t count = 0;
  if (const auto t = opts.value("--topology")) {
    devices = makeDevices(parseTopology(*t));
    count = static_cast<std::int64_t>(devices.size());
  } else if (const auto n = opts.value("--devices")) {
    const auto [end, ec] = std::from_chars(n->data(), n->data() + n->size(), count);
    if (ec != std::errc() || end != n->data() + n->size() || count < 1 || count > kMaxHloDevices)
      throw UsageError("--devices must be an integer between 1 and " + std::to_string(kMaxHloDevices) + ", got '" + *n +
                       "'");
  }
  std::optional<InspectMesh> mesh;
  if (const auto m = opts.value("--mesh")) mesh = inspectMeshFromText(*m);
  if (count == 0 && mesh) count = mesh->deviceCount();
  const HloSharding sharding = parseHloSharding(hloShardingTextOf(opts.positionals()[0], mesh ? &*mesh : nullptr));
  const HloDecoded decoded = decodeHloSharding(sharding, shape, count);

  if (format == "json") {
    Json list = Json::array();
    for (const auto& d : decoded.devices) {
      Json index = Json::array();
      for (const auto& r : d.index) index.push_back(Json::array({r.start, r.stop}));
      Json entry = {{"device", d.device}, {"index", std::move(index)}};
      if (!devices.empty()) entry["physical"] = physicalText(devices[static_cast<std::size_t>(d.device)]);
      list.push_back(std::move(entry));
    }
    Json out;
    out["tile_dims"] = decoded.tile_dims;
    out["replicated_tiles"] = decoded.replicated_tiles;
    out["sharding"] = hloShardingToString(sharding);
    out["devices"] = std::move(list);
    io.out << dumpJson(out) << '\n';
    return 0;
  }
  io.out << hloShardingToString(sharding) << " on shape [";
  for (std::size_t i = 0; i < shape.size(); ++i) io.out << (i ? "," : "") << shape[i];
  io.out << "]: tiles [";
  for (std::size_t i = 0; i < decoded.tile_dims.size(); ++i) io.out << (i ? "," : "") << decoded.tile_dims[i];
  io.out << "], each block on " << decoded.replicated_tiles << " device(s)\n";
  TextTable table;
  table.header = {"device"};
  if (!devices.empty()) table.header.push_back("physical");
  table.header.push_back("block");
  for (std::size_t i = 0; i < shape.size(); ++i) table.header.push_back("dim " + std::to_string(i));
  table.right_aligned.assign(table.header.size(), true);
  if (!devices.empty()) table.right_aligned[1] = false;
  for (const auto& d : decoded.devices) {
    std::vector<std::string> row{std::to_string(d.device)};
    if (!devices.empty()) row.push_back(physicalText(devices[static_cast<std::size_t>(d.device)]));
    std::string block = "(";
    for (std::size_t i = 0; i < d.block.size(); ++i) {
      if (i) block += ",";
      block += std::to_string(d.block[i]);
    }
    row.push_back(block + ")");
    for (const auto& r : d.index) row.push_back(rangeText(r));
    table.rows.push_back(std::move(row));
  }
  table.print(io.out);
  return 0;
}

} // namespace shardscope::cli
