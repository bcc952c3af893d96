// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/analysis_json.hpp"

#include "shardscope/base/json_text.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <ostream>
#include <string>

namespace shardscope {

namespace {
std::string severityName(Diagnostic::Severity s) { return std::string(nameOf(s, kSeverityNames)); }

// Each group's HLO sharding text, as JAX lowers its spec on the analysis's mesh (device id k is
// the mesh's k-th device, row-major); null when the spec does not fit the mesh (its diagnostics
// say why).
std::vector<Json> hloShardingTexts(const Analysis& a) {
  std::vector<Json> texts(a.params.groups().size());
  if (a.params.empty()) return texts;
  try {
    const auto found = groupHloShardings(a.params, MeshAxes::fromMesh(a.mesh));
    for (std::size_t g = 0; g < texts.size(); ++g)
      if (found[g]) texts[g] = *found[g];
  } catch (const Error&) {}
  return texts;
}

Json sourced(const SourcedValue& v) {
  return {{"value", v.value}, {"source", std::string(figureSourceName(v.source))}};
}

Json memoryJson(const DeviceMemory& m) {
  return {{"params", m.params},           {"grads", m.grads},       {"optimizer", m.optimizer},
          {"activations", m.activations}, {"kv_cache", m.kv_cache}, {"total", m.total()}};
}
} // namespace

Json activationBreakdownJson(const ActivationBreakdown& a) {
  return {{"per_layer", a.per_layer},
          {"layers", a.layers},
          {"output_layer", a.output_layer},
          {"loss_gradient", a.loss_gradient},
          {"recompute_layer", a.recompute_layer},
          {"kept", a.keptByLayers() + a.output_layer},
          {"total", a.total()}};
}

namespace {

Json pipelineJson(const PipelineAnalysis& p, const Mesh& mesh) {
  Json j;
  j["axis"] = p.axis;
  j["schedule"] = std::string(pipelineScheduleKindName(p.schedule));
  j["num_stages"] = p.num_stages;
  j["ranks"] = p.rank_count;
  j["microbatches"] = p.microbatches;
  j["fuse_steady_state"] = p.fuse_steady_state;
  j["layers_per_stage"] = p.layers_per_stage;
  j["stage_to_rank"] = p.stage_to_rank;
  // Times are in `time_unit`: "s" when the step estimate gives seconds, else "task" (jaxpp's unit
  // latencies scaled by each stage's layers); makespan_s is only set with seconds.
  j["time_unit"] = std::string(pipelineTimeUnitName(p.time_unit));
  j["makespan"] = p.scheduled ? Json(p.makespan) : Json();
  j["makespan_s"] = p.scheduled && p.time_unit == PipelineTimeUnit::Seconds ? Json(p.makespan) : Json();
  Json bubble;
  bubble["overall"] = p.scheduled ? Json(p.bubble_overall) : Json();
  Json perRankBubble = Json::array(), peak = Json::array(), perRank = Json::array();
  for (const auto& r : p.ranks) {
    perRankBubble.push_back(r.bubble);
    peak.push_back(r.peak_in_flight);
    Json rank;
    rank["rank"] = r.rank;
    rank["stages"] = r.stages;
    rank["layers"] = r.layers;
    Json ids = Json::array();
    for (int pos : r.device_positions) ids.push_back(mesh.devices[static_cast<std::size_t>(pos)].id);
    rank["device_ids"] = ids;
    rank["holds_embedding"] = r.holds_embedding;
    rank["holds_head"] = r.holds_head;
    if (p.has_memory) {
      rank["param_bytes"] = r.param_bytes;
      rank["grad_bytes"] = r.grad_bytes;
      rank["optimizer_bytes"] = r.optimizer_bytes;
      rank["activation_bytes"] = r.activation_bytes;
      rank["transient_bytes"] = r.transient_bytes;
      if (r.kv_cache_bytes > 0) rank["kv_cache_bytes"] = r.kv_cache_bytes;
      rank["total_bytes"] = r.totalBytes();
      rank["peak_time"] = r.peak_time;
    }
    perRank.push_back(std::move(rank));
  }
  if (p.scheduled) {
    bubble["per_rank"] = perRankBubble;
    j["peak_in_flight"] = peak;
  } else {
    j["peak_in_flight"] = Json();
  }
  j["bubble_fraction"] = bubble;
  j["per_rank"] = perRank;
  if (p.has_memory) {
    j["hbm_bytes"] = p.hbm_bytes;
    j["worst_rank"] = p.worst_rank;
    j["layer_activation_bytes"] = p.layer_activation_bytes;
    j["output_activation_bytes"] = p.output_activation_bytes;
  }
  Json transfers = Json::array();
  for (const auto& t : p.transfers)
    transfers.push_back({{"from_stage", t.from_stage},
                         {"to_stage", t.to_stage},
                         {"from_rank", t.from_rank},
                         {"to_rank", t.to_rank},
                         {"bytes", t.bytes},
                         {"seconds", t.seconds},
                         {"max_hops", t.max_hops},
                         {"max_link_load", t.max_link_load},
                         {"slowest_link", t.slowest_link},
                         {"crosses_hosts", t.crosses_hosts},
                         {"crosses_slices", t.crosses_slices}});
  j["transfers"] = transfers;
  j["error"] = p.error.empty() ? Json() : Json(p.error);
  return j;
}

Json deviceJson(const Analysis& a, std::size_t i) {
  Json d = memoryJson(a.memory.per_device[i]);
  d["device_id"] = a.mesh.devices[i].id;
  return d;
}

// nlohmann's layout of a value nested `depth` levels deep: its own lines indented by depth
// levels. Dumped text holds no raw newline but the ones between lines (strings escape theirs).
std::string nestedDump(const Json& value, int indent, int depth) {
  std::string text = dumpJson(value, indent);
  if (indent < 0) return text;
  const std::string shift(static_cast<std::size_t>(indent * depth), ' ');
  std::string out;
  out.reserve(text.size());
  for (const char c : text) {
    out += c;
    if (c == '\n') out += shift;
  }
  return out;
}
} // namespace

Json stepToJson(const StepEstimate& s) {
  Json out;
  out["estimated"] = s.estimated;
  if (!s.estimated) out["not_estimated"] = s.not_estimated;
  const auto number = [&](double v) { return s.estimated ? Json(v) : Json(); };
  out["time_s"] = number(s.time_s);
  out["tokens_per_step"] = number(s.tokens_per_step);
  out["tokens_per_s"] = number(s.tokens_per_s);
  out["mfu"] = number(s.mfu);
  out["model_flops"] = number(s.model_flops);
  out["hardware_flops"] = number(s.hardware_flops);
  out["recompute_flops"] = number(s.recompute_flops);
  out["hbm_bytes"] = number(s.hbm_bytes);
  out["compute_s"] = number(s.compute_s);
  out["hbm_s"] = number(s.hbm_s);
  out["optimizer_s"] = number(s.optimizer_s);
  out["elementwise_s"] = number(s.elementwise_s);
  out["hbm_weights_s"] = number(s.hbm_weights_s);
  out["hbm_activations_s"] = number(s.hbm_activations_s);
  out["padding_s"] = number(s.padding_s);
  out["exposed_comm_s"] = number(s.exposed_comm_s);
  out["bound_by"] = s.estimated ? Json(boundText(s.bound_by)) : Json();
  Json axes = Json::array();
  for (const auto& a : s.per_axis) {
    Json collectives = Json::array();
    for (const auto& c : a.collectives)
      collectives.push_back({{"kind", std::string(collectiveName(c.kind))},
                             {"purpose", c.purpose},
                             {"count", c.count},
                             {"bytes", c.bytes},
                             {"time_s", c.seconds},
                             {"overlappable", c.overlappable}});
    axes.push_back({{"axis", a.axis},
                    {"size", a.size},
                    {"bytes", a.bytes},
                    {"time_s", a.seconds},
                    {"exposed_s", a.exposed},
                    {"overlapped_s", a.overlapped},
                    {"collectives", collectives}});
  }
  out["per_axis"] = axes;
  Json critical = Json::array();
  for (const auto& c : s.critical) {
    Json j{{"axis", c.axis},
           {"role", c.role == StepCritical::Role::Batch ? "batch" : "tensor"},
           {"size", c.size},
           {"physical_axes", c.physical_axes},
           {"flops_per_byte", c.flops_per_byte},
           {"ok", c.ok}};
    if (c.role == StepCritical::Role::Batch) {
      j["tokens_per_device"] = c.tokens_per_device;
      j["threshold"] = c.flops_per_byte;
    } else {
      j["ffn"] = c.ffn;
      j["limit"] = c.limit;
    }
    critical.push_back(std::move(j));
  }
  out["critical"] = critical;
  Json segments = Json::array();
  for (const auto& g : s.segments) {
    Json j{{"kind", std::string(stepPartName(g.kind))}, {"seconds", g.seconds}};
    if (!g.axis.empty()) j["axis"] = g.axis;
    segments.push_back(std::move(j));
  }
  out["segments"] = segments;
  Json timeline = Json::array();
  for (const auto& span : s.timeline) {
    Json j{{"part", std::string(stepPartName(span.part))},
           {"pass", span.forward ? "forward" : "backward"},
           {"microbatch", span.microbatch},
           {"microbatches", span.microbatches},
           {"start_s", span.start},
           {"end_s", span.end},
           {"pulses", span.pulses},
           {"pulse_s", span.pulses > 1 ? span.pulse_s : span.end - span.start}};
    if (span.rank >= 0) {
      j["rank"] = span.rank;
      j["stage"] = span.stage;
    }
    if (span.to_rank >= 0) j["to_rank"] = span.to_rank;
    if (span.part == StepPart::Comm) {
      j["axis"] = span.axis;
      j["kind"] = std::string(collectiveName(span.kind));
      j["purpose"] = span.purpose;
      j["exposed"] = span.exposed;
    }
    timeline.push_back(std::move(j));
  }
  out["timeline"] = timeline;
  out["summary"] = s.summary;
  out["notes"] = s.notes;
  out["idle_axes"] = s.idle_axes;
  out["devices"] = s.devices;
  out["chip"] = {{"peak_flops", sourced(s.peak_flops)},
                 {"hbm_bandwidth", sourced(s.hbm_bandwidth)},
                 {"link_bandwidth", sourced(s.link_bandwidth)},
                 {"uplink_bandwidth", sourced(s.uplink_bandwidth)},
                 {"devices_per_chip", s.devices_per_chip}};
  out["calibration"] = {{"flops_fraction", sourced(s.calibration.flops_fraction)},
                        {"link_fraction", sourced(s.calibration.link_fraction)},
                        {"hbm_fraction", sourced(s.calibration.hbm_fraction)},
                        {"attention_fraction", sourced(s.calibration.attention_fraction)},
                        {"hop_latency", sourced(s.calibration.hop_latency)}};
  return out;
}

Json meshToJson(const Analysis& a) {
  Json mesh;
  mesh["axis_names"] = a.mesh.axis_names;
  mesh["shape"] = a.mesh.shape();
  mesh["device_count"] = a.mesh.devices.size();
  Json paths = Json::array();
  for (const auto& p : a.placements) paths.push_back(p.path);
  mesh["placement"] = std::move(paths);
  Json axes = Json::array();
  for (const auto& ax : a.axes)
    axes.push_back(
        {{"name", ax.name}, {"size", ax.size}, {"ici", ax.ici}, {"dcn", ax.dcn}, {"explanation", ax.explanation}});
  mesh["axes"] = std::move(axes);
  return mesh;
}

Json analysisToJson(const Analysis& a, bool perDevice) {
  Json out;
  out["mesh"] = meshToJson(a);

  Json params = Json::array();
  const std::vector<std::string> specs = a.params.specTexts();
  const std::vector<Json> hlo = hloShardingTexts(a);
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const ParamRow p = a.params[i];
    params.push_back({{"path", p.path},
                      {"shape", p.shape},
                      {"dtype", p.dtype},
                      {"spec", specs[a.params.groupOf(i)]},
                      {"hlo_sharding", hlo[a.params.groupOf(i)]},
                      {"shard_shape", p.shard_shape},
                      {"bytes_per_device", p.bytes_per_device},
                      {"uneven", p.uneven},
                      {"diagnostics", p.diagnostics}});
  }
  out["params"] = std::move(params);

  const auto& m = a.memory;
  Json memory;
  memory["hbm_bytes"] = m.hbm_bytes;
  memory["max_bytes"] = m.max_bytes;
  memory["mean_bytes"] = m.mean_bytes;
  memory["argmax_device_id"] = m.argmax >= 0 && static_cast<std::size_t>(m.argmax) < a.mesh.devices.size()
                                   ? Json(a.mesh.devices[static_cast<std::size_t>(m.argmax)].id)
                                   : Json();
  memory["out_of_memory"] = m.out_of_memory;
  if (m.argmax >= 0 && static_cast<std::size_t>(m.argmax) < m.per_device.size())
    memory["fullest_device"] = memoryJson(m.per_device[static_cast<std::size_t>(m.argmax)]);
  if (m.activations.layers > 0) memory["activations"] = activationBreakdownJson(m.activations);
  if (perDevice) {
    Json list = Json::array();
    for (std::size_t i = 0; i < m.per_device.size(); ++i) list.push_back(deviceJson(a, i));
    memory["per_device"] = std::move(list);
  }
  out["memory"] = std::move(memory);

  Json comm = Json::array();
  for (std::size_t i = 0; i < a.comm.size(); ++i) {
    const AxisComm& c = a.comm[i];
    const StepAxis none;
    const StepAxis& s = a.stepAxis(i) ? *a.stepAxis(i) : none;
    comm.push_back({{"axis", c.name},
                    {"size", c.size},
                    {"ring_closed", c.ring_closed},
                    {"max_hops", c.max_hops},
                    {"mean_hops", c.mean_hops},
                    {"max_link_load", c.max_link_load},
                    {"crosses_hosts", c.crosses_hosts},
                    {"crosses_slices", c.crosses_slices},
                    {"in_slice", c.in_slice},
                    {"slowest_link", c.slowest_link},
                    {"step_bytes", s.bytes},
                    {"step_s", s.seconds},
                    {"overlapped_s", s.overlapped},
                    {"exposed_s", s.exposed}});
  }
  out["comm"] = std::move(comm);
  out["step"] = stepToJson(a.step);
  if (a.pipeline) out["pipeline"] = pipelineJson(*a.pipeline, a.mesh);

  Json diagnostics = Json::array();
  for (const auto& d : a.diagnostics)
    diagnostics.push_back({{"severity", severityName(d.severity)},
                           {"section", sectionName(d.section)},
                           {"subject", d.subject},
                           {"message", d.message}});
  out["diagnostics"] = std::move(diagnostics);
  out["compute_ms"] = a.compute_ms;
  return out;
}

void writeAnalysisJson(std::ostream& out, const Analysis& a, bool perDevice, int indent) {
  const Json whole = analysisToJson(a, false);
  if (!perDevice) {
    out << dumpJson(whole, indent);
    return;
  }
  // The same layout as nlohmann's dump: "{" newline, members indented one level, "," newline
  // between them, newline and "}" (no newlines and ":" without a space when compact).
  const bool pretty = indent >= 0;
  const std::string newline = pretty ? "\n" : "", colon = pretty ? ": " : ":";
  const auto pad = [&](int depth) { return std::string(pretty ? static_cast<std::size_t>(indent * depth) : 0, ' '); };
  const auto member = [&](const std::string& key, int depth) { return pad(depth) + dumpJson(Json(key)) + colon; };
  out << "{" << newline;
  bool firstMember = true;
  for (auto it = whole.begin(); it != whole.end(); ++it) {
    if (!firstMember) out << "," << newline;
    firstMember = false;
    out << member(it.key(), 1);
    if (it.key() != "memory") {
      out << nestedDump(it.value(), indent, 1);
      continue;
    }
    out << "{" << newline;
    for (auto m = it.value().begin(); m != it.value().end(); ++m)
      out << member(m.key(), 2) << nestedDump(m.value(), indent, 2) << "," << newline;
    out << member("per_device", 2);
    if (a.memory.per_device.empty()) {
      out << "[]";
    } else {
      out << "[" << newline;
      for (std::size_t i = 0; i < a.memory.per_device.size(); ++i)
        out << (i ? "," + newline : "") << pad(3) << nestedDump(deviceJson(a, i), indent, 3);
      out << newline << pad(2) << "]";
    }
    out << newline << pad(1) << "}";
  }
  out << newline << "}";
}

} // namespace shardscope
