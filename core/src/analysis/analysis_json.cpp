// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/analysis_json.hpp"

#include "shardscope/base/json_text.hpp"

#include <ostream>
#include <string>

namespace shardscope {

namespace {
const char* severityName(Diagnostic::Severity s) {
  switch (s) {
  case Diagnostic::Severity::Info:
    return "info";
  case Diagnostic::Severity::Warning:
    return "warning";
  case Diagnostic::Severity::Error:
    return "error";
  }
  return "info";
}

Json memoryJson(const DeviceMemory& m) {
  return {{"params", m.params},           {"grads", m.grads},       {"optimizer", m.optimizer},
          {"activations", m.activations}, {"kv_cache", m.kv_cache}, {"total", m.total()}};
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

Json analysisToJson(const Analysis& a, bool perDevice) {
  Json out;
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
  out["mesh"] = std::move(mesh);

  Json params = Json::array();
  for (const auto& p : a.params) {
    params.push_back({{"path", p.path},
                      {"shape", p.shape},
                      {"dtype", p.dtype},
                      {"spec", p.spec},
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
  if (perDevice) {
    Json list = Json::array();
    for (std::size_t i = 0; i < m.per_device.size(); ++i) list.push_back(deviceJson(a, i));
    memory["per_device"] = std::move(list);
  }
  out["memory"] = std::move(memory);

  Json comm = Json::array();
  for (const auto& c : a.comm) {
    comm.push_back({{"axis", c.name},
                    {"size", c.size},
                    {"ring_closed", c.ring_closed},
                    {"max_hops", c.max_hops},
                    {"mean_hops", c.mean_hops},
                    {"max_link_load", c.max_link_load},
                    {"crosses_hosts", c.crosses_hosts},
                    {"crosses_slices", c.crosses_slices},
                    {"slowest_link", c.slowest_link},
                    {"bytes", c.bytes},
                    {"all_gather_s", c.all_gather_s},
                    {"reduce_scatter_s", c.reduce_scatter_s},
                    {"all_reduce_s", c.all_reduce_s},
                    {"all_to_all_s", c.all_to_all_s}});
  }
  out["comm"] = std::move(comm);

  Json diagnostics = Json::array();
  for (const auto& d : a.diagnostics)
    diagnostics.push_back({{"severity", severityName(d.severity)},
                           {"section", d.section},
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
