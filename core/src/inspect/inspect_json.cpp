// SPDX-License-Identifier: Apache-2.0
// The inspect result as JSON (docs/inspect.md lists every field). Unknown values are null, never
// 0; keys are fixed words (opcode names and other data are values, not keys).
#include "shardscope/inspect/inspect_result.hpp"

namespace shardscope {

std::string_view inspectKindName(InspectKind kind) { return nameOf(kind, kInspectKindNames); }
std::string_view inspectCollectiveOpName(InspectCollectiveOp op) { return nameOf(op, kInspectCollectiveOpNames); }

std::optional<Collective> costCollective(InspectCollectiveOp op) {
  switch (op) {
  case InspectCollectiveOp::AllGather:
    return Collective::AllGather;
  case InspectCollectiveOp::ReduceScatter:
    return Collective::ReduceScatter;
  case InspectCollectiveOp::AllReduce:
    return Collective::AllReduce;
  case InspectCollectiveOp::AllToAll:
  case InspectCollectiveOp::RaggedAllToAll:
    return Collective::AllToAll;
  case InspectCollectiveOp::CollectivePermute:
  case InspectCollectiveOp::CollectiveBroadcast:
    return std::nullopt;
  }
  return std::nullopt;
}

namespace {

template <class T>
Json orNull(const std::optional<T>& v) {
  return v ? Json(*v) : Json(nullptr);
}

Json textOrNull(const std::string& s) { return s.empty() ? Json(nullptr) : Json(s); }

Json argumentToJson(const InspectArgument& a) {
  return {{"index", a.index},
          {"name", a.name},
          {"function", textOrNull(a.function)},
          {"shape", orNull(a.shape)},
          {"dtype", textOrNull(a.dtype)},
          {"sharding", textOrNull(a.sharding)},
          {"spec", orNull(a.spec)},
          {"replicated_axes", a.replicated_axes},
          {"unreduced_axes", a.unreduced_axes},
          {"bytes", orNull(a.bytes)},
          {"bytes_per_device", orNull(a.bytes_per_device)},
          {"padded_bytes_per_device", orNull(a.padded_bytes_per_device)},
          {"memory_kind", textOrNull(a.memory_kind)},
          {"workspace_param", textOrNull(a.workspace_param)},
          {"workspace_spec", textOrNull(a.workspace_spec)},
          {"note", textOrNull(a.note)}};
}

Json estimateToJson(const InspectEstimate& e) {
  Json axes = Json::array();
  for (const auto& a : e.axes)
    axes.push_back({{"axis", a.axis},
                    {"compiled_bytes_per_device", a.compiled_bytes_per_device},
                    {"compiled_time_s", a.compiled_time_s},
                    {"predicted_bytes_per_device", a.predicted_bytes_per_device},
                    {"predicted_time_s", a.predicted_time_s}});
  return {{"compute_s", e.compute_s},
          {"comm_s", e.comm_s},
          {"serial_s", e.serial_s},
          {"overlapped_s", e.overlapped_s},
          {"workspace_step_s", orNull(e.workspace_step_s)},
          {"workspace_compute_s", orNull(e.workspace_compute_s)},
          {"workspace_comm_s", orNull(e.workspace_comm_s)},
          {"axes", axes}};
}

Json collectiveToJson(const InspectCollective& c) {
  return {{"name", c.name},
          {"computation", textOrNull(c.computation)},
          {"channel_id", orNull(c.channel_id)},
          {"op", std::string(inspectCollectiveOpName(c.op))},
          {"async", c.async},
          {"shape", c.shape},
          {"dtype", textOrNull(c.dtype)},
          {"shape_text", c.shape_text},
          {"arrays", c.arrays},
          {"buffer_bytes", c.buffer_bytes},
          {"bytes_per_device", c.bytes_per_device},
          {"cost_bytes", c.cost_bytes},
          {"group_size", c.group_size},
          {"group_count", c.group_count},
          {"axes", orNull(c.axes)},
          {"trip_count", c.trip_count},
          {"time_s", c.time_s},
          {"op_name", textOrNull(c.op_name)},
          {"note", textOrNull(c.note)}};
}

Json oomToJson(const InspectOom& o) {
  Json breakdown = Json::array();
  for (const auto& [what, bytes] : o.breakdown) breakdown.push_back({{"what", what}, {"bytes", bytes}});
  Json allocations = Json::array();
  for (const auto& a : o.allocations)
    allocations.push_back({{"rank", a.rank},
                           {"bytes", a.bytes},
                           {"unpadded_bytes", orNull(a.unpadded_bytes)},
                           {"shape", textOrNull(a.shape)},
                           {"dtype", textOrNull(a.dtype)},
                           {"op_name", textOrNull(a.op_name)},
                           {"allocation_type", textOrNull(a.allocation_type)},
                           {"label", textOrNull(a.label)},
                           {"what", textOrNull(a.what)},
                           {"padding_bytes", orNull(a.padding_bytes)}});
  return {{"form", o.form},
          {"memory_space", textOrNull(o.memory_space)},
          {"used_bytes", orNull(o.used_bytes)},
          {"capacity_bytes", orNull(o.capacity_bytes)},
          {"exceeded_bytes", orNull(o.exceeded_bytes)},
          {"requested_bytes", orNull(o.requested_bytes)},
          {"breakdown", breakdown},
          {"allocations", allocations},
          {"device", textOrNull(o.device)}};
}

} // namespace

Json inspectMeshToJson(const InspectMesh& m) {
  Json axes = Json::array();
  for (const auto& a : m.axes) axes.push_back({{"name", a.name}, {"size", a.size}});
  return {{"name", textOrNull(m.name)},
          {"axes", axes},
          {"device_ids", m.device_ids.empty() ? Json(nullptr) : Json(m.device_ids)},
          {"devices", m.deviceCount()}};
}

std::vector<InspectAxisTotal> inspectAxisTotals(const InspectResult& r) {
  std::vector<InspectAxisTotal> totals;
  InspectAxisTotal other;
  for (const auto& c : r.collectives) {
    InspectAxisTotal* t = &other;
    if (c.axes) {
      t = nullptr;
      for (auto& x : totals)
        if (x.axes == c.axes) t = &x;
      if (!t) {
        totals.push_back({c.axes, 0, 0, 0, 0});
        t = &totals.back();
      }
    }
    ++t->collectives;
    t->executions += c.trip_count;
    t->bytes_per_device += double(c.bytes_per_device) * double(c.trip_count);
    t->time_s += c.time_s;
  }
  // Mesh order: by the first axis' place in the mesh, then by how many axes.
  const InspectMesh* mesh = nullptr;
  for (const auto& m : r.meshes)
    if (!m.axes.empty() && !mesh) mesh = &m;
  const auto rank = [&](const InspectAxisTotal& t) {
    std::vector<int> out;
    for (const auto& a : *t.axes) out.push_back(mesh ? mesh->axisIndex(a) : 0);
    return out;
  };
  std::stable_sort(totals.begin(), totals.end(),
                   [&](const InspectAxisTotal& a, const InspectAxisTotal& b) { return rank(a) < rank(b); });
  if (other.collectives > 0) totals.push_back(other);
  return totals;
}

Json inspectResultToJson(const InspectResult& r) {
  Json meshes = Json::array(), arguments = Json::array(), results = Json::array(), collectives = Json::array();
  for (const auto& m : r.meshes) meshes.push_back(inspectMeshToJson(m));
  for (const auto& a : r.arguments) arguments.push_back(argumentToJson(a));
  for (const auto& a : r.results) results.push_back(argumentToJson(a));
  Json constraints = Json::array();
  for (const auto& a : r.constraints) {
    Json c = argumentToJson(a);
    c["op"] = a.op;
    constraints.push_back(std::move(c));
  }
  for (const auto& c : r.collectives) collectives.push_back(collectiveToJson(c));
  Json axisTotals = Json::array();
  for (const auto& t : inspectAxisTotals(r))
    axisTotals.push_back({{"axes", orNull(t.axes)},
                          {"collectives", t.collectives},
                          {"executions", t.executions},
                          {"bytes_per_device", t.bytes_per_device},
                          {"time_s", t.time_s}});
  Json skipped = Json::array(), flags = Json::array();
  for (const auto& s : r.skipped_ops) skipped.push_back({{"op", s.op}, {"count", s.count}});
  for (const auto& f : r.flags) flags.push_back({{"kind", f.kind}, {"subject", f.subject}, {"message", f.message}});
  return {{"kind", std::string(inspectKindName(r.kind))},
          {"module", textOrNull(r.module)},
          {"num_devices", r.num_devices > 0 ? Json(r.num_devices) : Json(nullptr)},
          {"local_shapes", r.local_shapes},
          {"instructions", r.instructions},
          {"meshes", meshes},
          {"arguments", arguments},
          {"results", results},
          {"constraints", constraints},
          {"collectives", collectives},
          {"axis_totals", axisTotals},
          {"flops_per_device", orNull(r.flops_per_device)},
          {"flop_ops", r.flop_ops},
          {"oom", r.oom ? oomToJson(*r.oom) : Json(nullptr)},
          {"skipped_ops", skipped},
          {"flags", flags},
          {"notes", r.notes},
          {"estimate", r.estimate ? estimateToJson(*r.estimate) : Json(nullptr)}};
}

} // namespace shardscope
