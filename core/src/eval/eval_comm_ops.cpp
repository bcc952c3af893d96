// SPDX-License-Identifier: Apache-2.0
// Eval ops of the comm family (docs/eval-comm.md): `links`, `hops`, `axis_report`.
#include "eval_json.hpp"
#include "eval_ops.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/cost/comm_mesh.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <cmath>
#include <set>

namespace shardscope::eval {

namespace {

// Requests are bounded by their own size, but a few fields would multiply work: cap them.
constexpr std::size_t kMaxPairs = 1'000'000;

constexpr NumberRange kNonNegative{0};
constexpr NumberRange kBandwidth{kMinLinkBandwidth, kMaxLinkBandwidth};
constexpr NumberRange kLatency{0, kMaxLinkLatency};

// A list of 1 to 3 sizes, padded with 1s.
std::array<int, 3> dims3(const JsonField& field, IntRange range) {
  const Shape s = field.toInts(range);
  if (s.empty() || s.size() > 3) field.fail("must list 1 to 3 integers, got " + std::to_string(s.size()));
  std::array<int, 3> out{1, 1, 1};
  for (std::size_t i = 0; i < s.size(); ++i) out[i] = static_cast<int>(s[i]);
  return out;
}

// "topology": "v4:4x4x8" or {"chip", "shape", "slices", "cores_per_chip", "host_block", "interleaved_gpu_ids"}.
TopologySpec parseTopologyField(const Json& request) {
  const JsonField t = fields(request)["topology"];
  if (t.present() && t.json().is_string()) return parseTopology(t.json().get<std::string>());
  t.toObject("a string like \"v4:4x4x8\" or an object with 'chip' and 'shape'");
  t.checkKeys({"chip", "shape", "slices", "cores_per_chip", "host_block", "interleaved_gpu_ids"});
  TopologySpec spec;
  spec.chip = t["chip"].toString();
  if (!findChip(spec.chip)) {
    std::vector<std::string_view> keys;
    for (const auto& chip : chipCatalog()) keys.push_back(chip.key);
    t["chip"].toChoice(keys); // throws: names the known chips and the closest one
  }
  const ChipSpec& chip = *findChip(spec.chip);
  spec.chip = chip.key;
  spec.shape = dims3(t["shape"], {1, kMaxTopologyDevices});
  // A Boardfly system may be given by its chip count, [1024], as the text form 8i:1024.
  if (chip.fabric == Fabric::Boardfly && t["shape"].json().size() == 1) spec.shape = boardflyShape(chip, spec.shape[0]);
  spec.slices = static_cast<int>(t["slices"].intOr(spec.slices, {1, kMaxTopologyDevices}));
  spec.cores_per_chip = static_cast<int>(t["cores_per_chip"].intOr(spec.cores_per_chip, {0, 64}));
  if (t["host_block"].present()) spec.host_block = dims3(t["host_block"], {0, kMaxTopologyDevices});
  spec.interleaved_gpu_ids = t["interleaved_gpu_ids"].boolOr(false);
  return spec;
}

// Optional "link_params": every field overrides the chip's default.
LinkParams parseLinkParams(const Json& request, const TopologySpec& spec) {
  LinkParams p = defaultLinkParams(*findChip(spec.chip));
  const JsonField o = fields(request)["link_params"];
  if (!o.present()) return p;
  o.checkKeys(
      {"ici_bandwidth", "ici_latency", "uplink_bandwidth", "uplink_latency", "wrap", "twisted", "nvlink_domain"});
  p.ici_bandwidth = o["ici_bandwidth"].numberOr(p.ici_bandwidth, kBandwidth);
  p.ici_latency = o["ici_latency"].numberOr(p.ici_latency, kLatency);
  p.uplink_bandwidth = o["uplink_bandwidth"].numberOr(p.uplink_bandwidth, kBandwidth);
  p.uplink_latency = o["uplink_latency"].numberOr(p.uplink_latency, kLatency);
  if (const JsonField w = o["wrap"]; w.present()) {
    const Json& list = w.toArray("a list of 1 to 3 booleans");
    if (list.empty() || list.size() > 3) w.fail("must list 1 to 3 booleans, got " + std::to_string(list.size()));
    std::array<bool, 3> wrap{false, false, false};
    for (std::size_t i = 0; i < list.size(); ++i) wrap[i] = w[i].toBool();
    p.wrap = wrap;
  }
  p.twisted = o["twisted"].boolOr(false);
  p.nvlink_domain = static_cast<int>(o["nvlink_domain"].intOr(p.nvlink_domain, {0, 1 << 20}));
  return p;
}

std::shared_ptr<const LinkGraph> graphFor(const Json& request) {
  const auto spec = parseTopologyField(request);
  return cachedLinkGraph(spec, parseLinkParams(request, spec));
}

Json collectivesJson(const AxisReport& r, double bytes) {
  Json out = Json::object();
  for (auto c : kCollectives) {
    const auto t = collectiveTime(c, bytes, r);
    out[std::string(collectiveName(c))] = {
        {"time_s", t.seconds}, {"alpha_beta", t.alpha_beta}, {"tpu_form", t.tpu_form}};
  }
  return out;
}

} // namespace

Json evalLinks(const Json& request, EvalContext& context) {
  warnUnknownFields(request, {"op", "topology", "link_params"}, "links", context.warnings);
  const auto g = graphFor(request);
  Json classes = Json::object();
  for (const auto& link : g->links()) {
    auto& c = classes[std::string(linkClassName(link.link_class))];
    if (c.is_null()) c = {{"count", 0}, {"wrap_links", 0}, {"bandwidth", link.bandwidth}, {"latency", link.latency}};
    c["count"] = c["count"].get<std::int64_t>() + 1;
    if (link.wrap) c["wrap_links"] = c["wrap_links"].get<std::int64_t>() + 1;
  }
  std::set<int> hosts;
  for (const auto& d : g->devices()) hosts.insert(d.process_index);
  Json out;
  out["topology"] = formatTopology(g->spec());
  out["platform"] = platformName(g->platform());
  out["fabric"] = fabricName(g->fabric());
  if (g->fabric() == Fabric::Boardfly) {
    // Per level (board, group, global): links and the chips' board and group come from `dims`.
    Json levels = Json::object();
    static constexpr const char* kLevel[] = {"board", "group", "global"};
    for (const char* level : kLevel) levels[level] = 0;
    for (std::size_t id = 0; id < g->localLinkCount(); ++id)
      if (const int dim = g->links()[id].dim; dim >= 0 && dim < 3)
        levels[kLevel[dim]] = levels[kLevel[dim]].get<std::int64_t>() + 1;
    out["boardfly"] = {{"chips_per_board", g->dims()[0]},
                       {"boards_per_group", g->dims()[1]},
                       {"groups", g->dims()[2]},
                       {"links", levels}};
  }
  out["devices"] = g->devices().size();
  out["nodes"] = g->nodeCount();
  out["edges"] = g->localLinkCount();
  out["uplinks"] = g->links().size() - g->localLinkCount();
  out["dims"] = g->dims();
  out["wrap"] = g->wrap();
  out["twisted"] = g->twisted();
  out["slices"] = g->slices();
  out["hosts"] = hosts.size();
  out["ici_diameter"] = g->iciDiameter();
  out["diameter"] = g->diameter();
  out["link_classes"] = classes;
  return out;
}

Json evalHops(const Json& request, EvalContext& context) {
  warnUnknownFields(request, {"op", "topology", "link_params", "pairs"}, "hops", context.warnings);
  const auto g = graphFor(request);
  const JsonField pairsField = fields(request)["pairs"];
  const Json& pairs = pairsField.toArray("a list of [device_id, device_id]");
  if (pairs.size() > kMaxPairs)
    throwValueError("field 'pairs' holds more than " + std::to_string(kMaxPairs) + " pairs");
  Json hops = Json::array();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Shape ab = pairsField[i].toInts();
    if (ab.size() != 2) throwValueError("field 'pairs[" + std::to_string(i) + "]' must hold two device ids");
    const int a = g->nodeOfDevice(ab[0]), b = g->nodeOfDevice(ab[1]);
    if (a < 0 || b < 0)
      throwValueError("field 'pairs[" + std::to_string(i) + "]': device id " + std::to_string(a < 0 ? ab[0] : ab[1]) +
                      " is not in the topology");
    hops.push_back(g->hops(a, b));
  }
  return {{"hops", hops}};
}

// The workspace an axis_report request describes: its "scenario", or a default workspace with
// its "topology" and "mesh" (sizes per slice, slices on the first axis, exactly as the CLI's
// --topology/--mesh): the mesh is placed by the analysis' one placement (analyzeMesh).
Scenario axisReportScenario(const Json& request) {
  if (request.contains("scenario")) {
    for (const char* key : {"topology", "mesh", "link_params"})
      if (request.contains(key))
        throwValueError(std::string("field '") + key + "' cannot be given with 'scenario' (the workspace has its own)");
    return scenarioFromJson(requireField(request, "scenario"));
  }
  Scenario scenario = defaultScenario();
  scenario.topology = parseTopologyField(request);
  // "mesh": "fsdp:-1,tp:4" or {"axis_names": [...], "axis_sizes": [...]}
  const Json& m = requireField(request, "mesh");
  std::string text;
  if (m.is_string()) {
    text = m.get<std::string>();
  } else if (m.is_object()) {
    const JsonField mesh = fields(request)["mesh"];
    mesh.checkKeys({"axis_names", "axis_sizes"});
    const auto names = mesh["axis_names"].toStrings();
    const auto sizes = mesh["axis_sizes"].toInts();
    if (names.size() != sizes.size()) throwValueError("field 'mesh': axis_names and axis_sizes differ in length");
    for (std::size_t i = 0; i < names.size(); ++i) text += (i ? "," : "") + names[i] + ":" + std::to_string(sizes[i]);
  } else {
    throwValueError("field 'mesh' must be a string like \"fsdp:-1,tp:4\" or an object with axis_names and axis_sizes");
  }
  scenario.mesh.axes = meshAxesFromText(text, scenario.topology);
  return scenario;
}

Json evalAxisReport(const Json& request, EvalContext& context) {
  warnUnknownFields(
      request, {"op", "scenario", "topology", "mesh", "link_params", "mesh_grid", "axis", "bytes", "groups", "fsdp"},
      "axis_report", context.warnings);
  const Scenario scenario = axisReportScenario(request);
  const auto g =
      request.contains("scenario") ? cachedLinkGraph(scenario.topology, linkParamsOf(scenario)) : graphFor(request);
  const std::int64_t deviceCount = static_cast<std::int64_t>(g->devices().size());
  Analysis placed;
  if (auto it = request.find("mesh_grid"); it != request.end() && !it->is_null()) {
    // The caller placed the devices: the axes' total sizes (ICI x DCN) over its grid, no placement.
    if (!it->is_array()) throwValueError("field 'mesh_grid' must be a flat list of device ids in row-major order");
    const int slices = std::max(1, scenario.topology.slices);
    const Shape ici = resolveIciShape(scenario.mesh, deviceCount / slices);
    MeshAxes axes;
    for (std::size_t i = 0; i < ici.size(); ++i) {
      const auto& a = scenario.mesh.axes[i];
      axes.names.push_back(a.name);
      axes.sizes.push_back(ici[i] * a.dcn);
      placed.axes.push_back({a.name, ici[i] * a.dcn, ici[i], a.dcn, "placed by the request's mesh_grid"});
    }
    placed.mesh = meshFromDeviceIds(*g, axes, intList(*it, "mesh_grid"));
  } else {
    placed = analyzeMesh(scenario);
  }
  std::vector<int> which;
  if (auto it = request.find("axis"); it != request.end() && !it->is_null()) {
    if (!it->is_string()) throwValueError("field 'axis' must be an axis name");
    const int a = placed.mesh.axisIndex(it->get<std::string>());
    if (a < 0) throwValueError("field 'axis': the mesh has no axis '" + it->get<std::string>() + "'");
    which.push_back(a);
  } else {
    for (std::size_t a = 0; a < placed.mesh.axis_names.size(); ++a) which.push_back(static_cast<int>(a));
  }
  const std::optional<double> bytes = fields(request)["bytes"].optionalNumber(kNonNegative);
  const bool withGroups = boolField(request, "groups", false);
  if (withGroups && deviceCount > 4096) {
    context.warnings.push_back("'groups' is limited to topologies of at most 4096 devices; groups left out");
  }
  const JsonField fsdp = fields(request)["fsdp"];
  if (fsdp.present()) {
    fsdp.toObject("an object with layer_param_bytes, layer_grad_bytes, layers");
    fsdp.checkKeys({"layer_param_bytes", "layer_grad_bytes", "layers"});
  }

  Json axesOut = Json::array();
  for (int a : which) {
    const auto r = axisReport(*g, placed.mesh, a, withGroups && deviceCount <= 4096);
    Json j;
    j["axis"] = r.axis;
    j["size"] = r.size;
    j["group_count"] = r.group_count;
    j["ring_closed"] = r.ring_closed;
    j["max_hops"] = r.max_hops;
    j["mean_hops"] = r.mean_hops;
    j["max_link_load"] = r.max_link_load;
    j["max_directed_link_load"] = r.max_directed_link_load;
    j["crosses_hosts"] = r.crosses_hosts;
    j["crosses_slices"] = r.crosses_slices;
    j["in_slice"] = r.inSlice();
    j["uses_fabric"] = r.uses_fabric;
    j["slowest_link"] = r.uses_links ? Json(std::string(linkClassName(r.slowest_link))) : Json(nullptr);
    j["ring_bandwidth"] = r.ring_bandwidth;
    j["bidi_ring_bandwidth"] = r.bidi_ring_bandwidth;
    j["step_latency"] = r.step_latency;
    j["physical_axes"] = r.physical_axes;
    j["physical_extent_sum"] = r.physical_extent_sum;
    j["torus"] = r.torus;
    j["wraps"] = r.wraps;
    if (r.a2a_pairwise) {
      j["a2a_max_link_load"] = r.a2a_max_link_load;
      j["a2a_bandwidth"] = r.a2a_bandwidth;
      j["a2a_latency"] = r.a2a_latency;
    }
    if (r.mesh_fanout > 1) j["mesh_fanout"] = r.mesh_fanout;
    if (bytes) j["collectives"] = collectivesJson(r, *bytes);
    if (fsdp.present()) {
      const double paramBytes = fsdp["layer_param_bytes"].toNumber(kNonNegative);
      const double gradBytes = fsdp["layer_grad_bytes"].numberOr(paramBytes, kNonNegative);
      const auto layers = fsdp["layers"].intOr(1, {0, 1'000'000});
      const auto f = fsdpCommCost(r, paramBytes, gradBytes, static_cast<int>(layers));
      j["fsdp"] = {{"layer_all_gather_seconds", f.layer_all_gather_seconds},
                   {"layer_reduce_scatter_seconds", f.layer_reduce_scatter_seconds},
                   {"bytes_received_per_device_all_gather", f.bytes_received_per_device_all_gather},
                   {"bytes_sent_per_device_reduce_scatter", f.bytes_sent_per_device_reduce_scatter},
                   {"step_bytes_per_device", f.step_bytes_per_device},
                   {"step_seconds", f.step_seconds},
                   {"step_seconds_tpu_form", f.step_seconds_tpu_form},
                   {"step_time_s", f.step_seconds_priced}};
    }
    if (!r.groups.empty()) {
      Json groups = Json::array();
      for (const auto& grp : r.groups)
        groups.push_back({{"device_ids", grp.device_ids},
                          {"hops", grp.hops},
                          {"ring_closed", grp.ring_closed},
                          {"max_hops", grp.max_hops},
                          {"mean_hops", grp.mean_hops},
                          {"crosses_hosts", grp.crosses_hosts},
                          {"crosses_slices", grp.crosses_slices}});
      j["groups"] = std::move(groups);
    }
    axesOut.push_back(std::move(j));
  }
  Json out;
  out["topology"] = formatTopology(g->spec());
  out["mesh"] = meshToJson(placed);
  if (placed.placements.empty()) out["mesh"]["placement"] = Json::array({"grid"});
  out["axes"] = std::move(axesOut);
  return out;
}

} // namespace shardscope::eval
