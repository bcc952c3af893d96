// SPDX-License-Identifier: Apache-2.0
// Eval ops of the comm family (docs/eval-comm.md): `links`, `hops`, `axis_report`.
#include "eval_json.hpp"
#include "eval_ops.hpp"

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

// A number >= 0; `where` is the enclosing field ("" at top level) for messages.
double numberField(const Json& object, const char* name, const char* where) {
  const std::string field = *where ? std::string(where) + "." + name : std::string(name);
  auto it = object.find(name);
  if (it == object.end()) throwValueError("missing field '" + field + "'");
  const Json& v = *it;
  if (!v.is_number()) throwValueError("field '" + field + "' must be a number, got " + v.type_name());
  const double x = v.get<double>();
  if (!std::isfinite(x) || x < 0) throwValueError("field '" + field + "' must be a finite number >= 0");
  return x;
}

std::array<int, 3> dims3(const Json& value, const char* what) {
  const Shape s = intList(value, what);
  if (s.empty() || s.size() > 3) throwValueError(std::string("field '") + what + "' must list 1 to 3 integers");
  std::array<int, 3> out{1, 1, 1};
  for (std::size_t i = 0; i < s.size(); ++i) {
    if (s[i] < 0 || s[i] > kMaxTopologyDevices)
      throwValueError(std::string("field '") + what + "' has an out-of-range entry");
    out[i] = static_cast<int>(s[i]);
  }
  return out;
}

// "topology": "v4:4x4x8" or {"chip", "shape", "slices", "cores_per_chip", "host_block"}.
TopologySpec parseTopologyField(const Json& request) {
  const Json& t = requireField(request, "topology");
  if (t.is_string()) return parseTopology(t.get<std::string>());
  if (!t.is_object())
    throwValueError("field 'topology' must be a string like \"v4:4x4x8\" or an object with 'chip' and 'shape'");
  TopologySpec spec;
  spec.chip = stringField(t, "chip");
  if (!findChip(spec.chip)) throwValueError("field 'topology.chip': unknown chip '" + spec.chip + "'");
  spec.chip = findChip(spec.chip)->key;
  spec.shape = dims3(requireField(t, "shape"), "topology.shape");
  if (t.contains("slices"))
    spec.slices = static_cast<int>(std::clamp<std::int64_t>(intField(t, "slices"), -1, kMaxTopologyDevices));
  if (t.contains("cores_per_chip"))
    spec.cores_per_chip = static_cast<int>(std::clamp<std::int64_t>(intField(t, "cores_per_chip"), -1, 64));
  if (t.contains("host_block")) spec.host_block = dims3(t.at("host_block"), "topology.host_block");
  spec.interleaved_gpu_ids = boolField(t, "interleaved_gpu_ids", false);
  return spec;
}

// Optional "link_params": every field overrides the chip's default.
LinkParams parseLinkParams(const Json& request, const TopologySpec& spec) {
  LinkParams p = defaultLinkParams(*findChip(spec.chip));
  auto it = request.find("link_params");
  if (it == request.end() || it->is_null()) return p;
  const Json& o = *it;
  if (!o.is_object()) throwValueError("field 'link_params' must be an object");
  static const std::set<std::string> known{"ici_bandwidth", "ici_latency", "uplink_bandwidth", "uplink_latency",
                                           "wrap",          "twisted",     "nvlink_domain"};
  for (const auto& [key, value] : o.items())
    if (!known.count(key)) throwValueError("field 'link_params' has unknown key '" + key + "'");
  if (o.contains("ici_bandwidth")) p.ici_bandwidth = numberField(o, "ici_bandwidth", "link_params");
  if (o.contains("ici_latency")) p.ici_latency = numberField(o, "ici_latency", "link_params");
  if (o.contains("uplink_bandwidth")) p.uplink_bandwidth = numberField(o, "uplink_bandwidth", "link_params");
  if (o.contains("uplink_latency")) p.uplink_latency = numberField(o, "uplink_latency", "link_params");
  if (present(o, "wrap")) {
    const Json& w = o.at("wrap");
    if (!w.is_array() || w.empty() || w.size() > 3)
      throwValueError("field 'link_params.wrap' must list 1 to 3 booleans");
    std::array<bool, 3> wrap{false, false, false};
    for (std::size_t i = 0; i < w.size(); ++i) {
      if (!w[i].is_boolean()) throwValueError("field 'link_params.wrap' must list booleans");
      wrap[i] = w[i].get<bool>();
    }
    p.wrap = wrap;
  }
  p.twisted = boolField(o, "twisted", false);
  if (o.contains("nvlink_domain"))
    p.nvlink_domain = static_cast<int>(std::clamp<std::int64_t>(intField(o, "nvlink_domain"), -1, 1 << 20));
  if (p.nvlink_domain < 0) throwValueError("field 'link_params.nvlink_domain' must be >= 0");
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

Json evalLinks(const Json& request, EvalContext&) {
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

Json evalHops(const Json& request, EvalContext&) {
  const auto g = graphFor(request);
  const Json& pairs = requireField(request, "pairs");
  if (!pairs.is_array()) throwValueError("field 'pairs' must be a list of [device_id, device_id]");
  if (pairs.size() > kMaxPairs)
    throwValueError("field 'pairs' holds more than " + std::to_string(kMaxPairs) + " pairs");
  Json hops = Json::array();
  for (std::size_t i = 0; i < pairs.size(); ++i) {
    const Shape ab = intList(pairs[i], "pairs[]");
    if (ab.size() != 2) throwValueError("field 'pairs[" + std::to_string(i) + "]' must hold two device ids");
    const int a = g->nodeOfDevice(ab[0]), b = g->nodeOfDevice(ab[1]);
    if (a < 0 || b < 0)
      throwValueError("field 'pairs[" + std::to_string(i) + "]': device id " + std::to_string(a < 0 ? ab[0] : ab[1]) +
                      " is not in the topology");
    hops.push_back(g->hops(a, b));
  }
  return {{"hops", hops}};
}

Json evalAxisReport(const Json& request, EvalContext& context) {
  const auto g = graphFor(request);
  const std::int64_t deviceCount = static_cast<std::int64_t>(g->devices().size());
  // "mesh": "fsdp:-1,tp:4" or {"axis_names": [...], "axis_sizes": [...]}
  const Json& m = requireField(request, "mesh");
  MeshAxes axes;
  if (m.is_string()) {
    axes = parseMeshAxes(m.get<std::string>(), deviceCount);
  } else if (m.is_object()) {
    axes.names = stringList(requireField(m, "axis_names"), "mesh.axis_names");
    axes.sizes = intList(requireField(m, "axis_sizes"), "mesh.axis_sizes");
    if (axes.names.size() != axes.sizes.size())
      throwValueError("field 'mesh': axis_names and axis_sizes differ in length");
    std::string text;
    for (std::size_t i = 0; i < axes.names.size(); ++i)
      text += (i ? "," : "") + axes.names[i] + ":" + std::to_string(axes.sizes[i]);
    axes = parseMeshAxes(text, deviceCount); // same validation as the text form, -1 allowed
  } else {
    throwValueError("field 'mesh' must be a string like \"fsdp:-1,tp:4\" or an object with axis_names and axis_sizes");
  }
  PlacedMesh placed;
  if (auto it = request.find("mesh_grid"); it != request.end() && !it->is_null()) {
    if (!it->is_array()) throwValueError("field 'mesh_grid' must be a flat list of device ids in row-major order");
    placed = meshFromDeviceIds(*g, axes, intList(*it, "mesh_grid"));
  } else {
    placed = placeMesh(*g, axes);
    if (!placed.note.empty()) context.warnings.push_back(placed.note);
  }
  std::vector<int> which;
  if (auto it = request.find("axis"); it != request.end() && !it->is_null()) {
    if (!it->is_string()) throwValueError("field 'axis' must be an axis name");
    const int a = placed.mesh.axisIndex(it->get<std::string>());
    if (a < 0) throwValueError("field 'axis': the mesh has no axis '" + it->get<std::string>() + "'");
    which.push_back(a);
  } else {
    for (std::size_t a = 0; a < axes.names.size(); ++a) which.push_back(static_cast<int>(a));
  }
  std::optional<double> bytes;
  if (present(request, "bytes")) bytes = numberField(request, "bytes", "");
  const bool withGroups = boolField(request, "groups", false);
  if (withGroups && deviceCount > 4096) {
    context.warnings.push_back("'groups' is limited to topologies of at most 4096 devices; groups left out");
  }
  const Json* fsdp = nullptr;
  if (auto it = request.find("fsdp"); it != request.end() && !it->is_null()) {
    if (!it->is_object())
      throwValueError("field 'fsdp' must be an object with layer_param_bytes, layer_grad_bytes, layers");
    fsdp = &*it;
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
    j["uses_fabric"] = r.uses_fabric;
    j["slowest_link"] = r.uses_links ? Json(std::string(linkClassName(r.slowest_link))) : Json(nullptr);
    j["ring_bandwidth"] = r.ring_bandwidth;
    j["bidi_ring_bandwidth"] = r.bidi_ring_bandwidth;
    j["step_latency"] = r.step_latency;
    j["physical_axes"] = r.physical_axes;
    j["physical_extent_sum"] = r.physical_extent_sum;
    j["torus"] = r.torus;
    j["wraps"] = r.wraps;
    if (bytes) j["collectives"] = collectivesJson(r, *bytes);
    if (fsdp) {
      const double paramBytes = numberField(*fsdp, "layer_param_bytes", "fsdp");
      const double gradBytes =
          fsdp->contains("layer_grad_bytes") ? numberField(*fsdp, "layer_grad_bytes", "fsdp") : paramBytes;
      const auto layers = fsdp->contains("layers") ? intField(*fsdp, "layers") : 1;
      if (layers < 0 || layers > 1'000'000) throwValueError("field 'fsdp.layers' must be between 0 and 1000000");
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
  out["mesh"] = {{"axis_names", axes.names}, {"axis_sizes", axes.sizes}, {"placement", placed.path}};
  if (!placed.dcn_shape.empty()) out["mesh"]["dcn_axis_sizes"] = placed.dcn_shape;
  out["axes"] = std::move(axesOut);
  return out;
}

} // namespace shardscope::eval
