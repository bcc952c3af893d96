// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/scenario.hpp"

#include "base/json_input.hpp"
#include "scenario_pipeline.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"

#include <algorithm>
#include <iterator>

#include <limits>
#include <set>

namespace shardscope {

// The member defaults are the default scenario, so an empty workspace reads as this one too.
Scenario defaultScenario() { return Scenario{}; }

namespace {

// Reading helpers that name the full field path in every error.
const Json* find(const Json& obj, const char* key) {
  auto it = obj.find(key);
  return it == obj.end() || it->is_null() ? nullptr : &*it;
}

std::string readString(const Json& obj, const char* key, const std::string& where, std::string fallback) {
  const Json* v = find(obj, key);
  if (!v) return fallback;
  if (!v->is_string()) throwValueError(where + "." + key + " must be a string");
  return v->get<std::string>();
}

std::int64_t readInt(const Json& obj, const char* key, const std::string& where, std::int64_t fallback, std::int64_t lo,
                     std::int64_t hi) {
  const Json* v = find(obj, key);
  if (!v) return fallback;
  if (!v->is_number_integer()) throwValueError(where + "." + key + " must be an integer");
  const auto x = v->get<std::int64_t>();
  if (x < lo || x > hi)
    throwValueError(where + "." + key + " must be between " + std::to_string(lo) + " and " + std::to_string(hi) +
                    ", got " + std::to_string(x));
  return x;
}

bool readBool(const Json& obj, const char* key, const std::string& where, bool fallback) {
  const Json* v = find(obj, key);
  if (!v) return fallback;
  if (!v->is_boolean()) throwValueError(where + "." + key + " must be true or false");
  return v->get<bool>();
}

const Json& readObject(const Json& obj, const char* key, const std::string& where) {
  static const Json empty = Json::object();
  const Json* v = find(obj, key);
  if (!v) return empty;
  if (!v->is_object()) throwValueError(where + "." + key + " must be an object");
  return *v;
}

std::vector<std::string> readStrings(const Json& obj, const char* key, const std::string& where,
                                     std::vector<std::string> fallback) {
  const Json* v = find(obj, key);
  if (!v) return fallback;
  if (!v->is_array()) throwValueError(where + "." + key + " must be a list of strings");
  std::vector<std::string> out;
  for (const auto& s : *v) {
    if (!s.is_string()) throwValueError(where + "." + key + " must be a list of strings");
    out.push_back(s.get<std::string>());
  }
  return out;
}

template <class Enum, std::size_t N>
Enum readEnum(const Json& obj, const char* key, const std::string& where, Enum fallback,
              const std::pair<const char*, Enum> (&names)[N]) {
  const Json* v = find(obj, key);
  if (!v) return fallback;
  std::string allowed;
  for (const auto& [name, value] : names) {
    if (v->is_string() && v->get<std::string>() == name) return value;
    allowed += (allowed.empty() ? "" : ", ") + std::string(name);
  }
  throwValueError(where + "." + key + " must be one of " + allowed);
}

template <class Enum, std::size_t N>
const char* enumName(Enum value, const std::pair<const char*, Enum> (&names)[N]) {
  for (const auto& [name, v] : names)
    if (v == value) return name;
  return names[0].first;
}

constexpr std::pair<const char*, Workload> kWorkloads[] = {{"training", Workload::Training},
                                                           {"serving", Workload::Serving}};
constexpr std::pair<const char*, Optimizer> kOptimizers[] = {
    {"adamw", Optimizer::AdamW}, {"adafactor", Optimizer::Adafactor}, {"sgd-momentum", Optimizer::SgdMomentum}};
constexpr std::pair<const char*, Recompute> kRecompute[] = {
    {"none", Recompute::None}, {"selective", Recompute::Selective}, {"full", Recompute::Full}};
constexpr std::pair<const char*, AxisType> kAxisTypes[] = {
    {"Auto", AxisType::Auto}, {"Explicit", AxisType::Explicit}, {"Manual", AxisType::Manual}};

constexpr std::int64_t kMaxAxisSize = 1 << 24; // far beyond any pod, small enough that products stay exact

TopologySpec readTopology(const Json& t) {
  const std::string where = "topology";
  TopologySpec spec;
  spec.chip = readString(t, "chip", where, spec.chip);
  if (const Json* shape = find(t, "shape")) {
    if (!shape->is_array() || shape->empty() || shape->size() > 3)
      throwValueError("topology.shape must be a list of 1 to 3 positive integers");
    std::array<int, 3> s{1, 1, 1};
    for (std::size_t i = 0; i < shape->size(); ++i) {
      const Json& d = (*shape)[i];
      if (!d.is_number_integer() || d.get<std::int64_t>() < 1 || d.get<std::int64_t>() > 4096)
        throwValueError("topology.shape[" + std::to_string(i) + "] must be an integer between 1 and 4096");
      s[i] = static_cast<int>(d.get<std::int64_t>());
    }
    spec.shape = s;
  }
  spec.slices = static_cast<int>(readInt(t, "slices", where, spec.slices, 1, 1024));
  spec.cores_per_chip = static_cast<int>(readInt(t, "cores_per_chip", where, spec.cores_per_chip, 0, 8));
  spec.interleaved_gpu_ids = readBool(t, "interleaved_gpu_ids", where, spec.interleaved_gpu_ids);
  spec.device_kind_override = readString(t, "device_kind", where, spec.device_kind_override);
  if (const Json* hb = find(t, "host_block")) {
    if (!hb->is_array() || hb->size() != 3) throwValueError("topology.host_block must be [x, y, z]");
    for (std::size_t i = 0; i < 3; ++i) {
      if (!(*hb)[i].is_number_integer() || (*hb)[i].get<std::int64_t>() < 0 || (*hb)[i].get<std::int64_t>() > 4096)
        throwValueError("topology.host_block[" + std::to_string(i) + "] must be an integer between 0 and 4096");
      spec.host_block[i] = static_cast<int>((*hb)[i].get<std::int64_t>());
    }
  }
  return spec;
}

MeshConfig readMesh(const Json& m) {
  MeshConfig mesh;
  if (const Json* axes = find(m, "axes")) {
    if (!axes->is_array()) throwValueError("mesh.axes must be a list of axis objects");
    if (axes->size() > 64)
      throwValueError("mesh.axes has " + std::to_string(axes->size()) + " axes; at most 64 are supported");
    mesh.axes.clear();
    for (std::size_t i = 0; i < axes->size(); ++i) {
      const std::string where = "mesh.axes[" + std::to_string(i) + "]";
      const Json& a = (*axes)[i];
      if (!a.is_object()) throwValueError(where + " must be an object with name, ici, dcn");
      MeshAxis axis;
      axis.name = readString(a, "name", where, "");
      if (axis.name.empty()) throwValueError(where + ".name must be a non-empty string");
      axis.ici = readInt(a, "ici", where, 1, -1, kMaxAxisSize);
      if (axis.ici == 0) throwValueError(where + ".ici must be positive or -1");
      axis.dcn = readInt(a, "dcn", where, 1, -1, kMaxAxisSize);
      if (axis.dcn == 0) throwValueError(where + ".dcn must be positive or -1");
      axis.type = readEnum(a, "type", where, AxisType::Explicit, kAxisTypes);
      mesh.axes.push_back(std::move(axis));
    }
  }
  mesh.allow_split_physical_axes = readBool(m, "allow_split_physical_axes", "mesh", mesh.allow_split_physical_axes);
  mesh.contiguous_submeshes = readBool(m, "contiguous_submeshes", "mesh", mesh.contiguous_submeshes);
  return mesh;
}

ModelChoice readModel(const Json& m) {
  ModelChoice model;
  model.preset = readString(m, "preset", "model", find(m, "path") || find(m, "params") ? "" : model.preset);
  model.path = readString(m, "path", "model", "");
  if (const Json* p = find(m, "params")) {
    if (!p->is_array()) throwValueError("model.params must be a list of {path, shape, dtype}");
    model.inline_params = *p;
  }
  return model;
}

RulesChoice readRules(const Json& r) {
  RulesChoice rules;
  const Json* list = find(r, "rules");
  // Given rules without a preset stand alone; with a preset they are tried first.
  rules.preset = readString(r, "preset", "rules", list ? "" : rules.preset);
  if (list) {
    if (!list->is_array()) throwValueError("rules.rules must be a list of [regex, spec] pairs");
    for (std::size_t i = 0; i < list->size(); ++i) {
      const Json& pair = (*list)[i];
      if (!pair.is_array() || pair.size() != 2 || !pair[0].is_string())
        throwValueError("rules.rules[" + std::to_string(i) + "] must be [regex, spec]");
      rules.rules.emplace_back(pair[0].get<std::string>(), pair[1]);
    }
  }
  return rules;
}

TrainingOptions readTraining(const Json& t) {
  const std::string w = "training";
  TrainingOptions o;
  constexpr std::int64_t big = std::int64_t{1} << 40;
  o.workload = readEnum(t, "workload", w, o.workload, kWorkloads);
  o.param_dtype = readString(t, "param_dtype", w, o.param_dtype);
  o.optimizer = readEnum(t, "optimizer", w, o.optimizer, kOptimizers);
  o.master_weights_fp32 = readBool(t, "master_weights_fp32", w, o.master_weights_fp32);
  o.zero_stage = static_cast<int>(readInt(t, "zero_stage", w, o.zero_stage, 0, 2));
  o.micro_batch = readInt(t, "micro_batch", w, o.micro_batch, 1, big);
  o.seq_len = readInt(t, "seq_len", w, o.seq_len, 1, big);
  o.recompute = readEnum(t, "recompute", w, o.recompute, kRecompute);
  o.batch_axes = readStrings(t, "batch_axes", w, o.batch_axes);
  o.seq_axes = readStrings(t, "seq_axes", w, o.seq_axes);
  o.serve_batch = readInt(t, "serve_batch", w, o.serve_batch, 1, big);
  o.context_len = readInt(t, "context_len", w, o.context_len, 1, big);
  o.kv_dtype = readString(t, "kv_dtype", w, o.kv_dtype);
  if (const Json* h = find(t, "hbm_bytes")) {
    if (!h->is_number() || h->get<double>() <= 0 || h->get<double>() > 1e15)
      throwValueError("training.hbm_bytes must be a positive number of bytes (at most 1e15)");
    o.hbm_bytes_override = h->get<double>();
  }
  return o;
}

LinkOverrides readLinks(const Json& l) {
  LinkOverrides o;
  static const char* const kKnown[] = {"ici_bandwidth", "ici_latency", "uplink_bandwidth", "uplink_latency", "twisted"};
  for (const auto& [key, value] : l.items())
    if (std::find(std::begin(kKnown), std::end(kKnown), key) == std::end(kKnown))
      throwValueError("links." + key +
                      " is not a link setting (ici_bandwidth, ici_latency, uplink_bandwidth, uplink_latency, twisted)");
  // Positive and finite; bandwidths up to 1e15 B/s, latencies up to an hour.
  const auto number = [&](const char* key, double limit) -> std::optional<double> {
    const Json* v = find(l, key);
    if (!v) return std::nullopt;
    if (!v->is_number() || !(v->get<double>() > 0) || v->get<double>() > limit)
      throwValueError(std::string("links.") + key + " must be a positive number (at most " + dumpJson(Json(limit)) +
                      ")");
    return v->get<double>();
  };
  o.ici_bandwidth = number("ici_bandwidth", 1e15);
  o.ici_latency = number("ici_latency", 3600);
  o.uplink_bandwidth = number("uplink_bandwidth", 1e15);
  o.uplink_latency = number("uplink_latency", 3600);
  o.twisted = readBool(l, "twisted", "links", false);
  return o;
}

} // namespace

Json scenarioToJson(const Scenario& s) {
  Json j;
  j["format"] = "shardscope-scenario";
  j["version"] = 1;
  j["name"] = s.name;
  Json t;
  t["chip"] = s.topology.chip;
  t["shape"] = s.topology.shape;
  t["slices"] = s.topology.slices;
  if (s.topology.cores_per_chip) t["cores_per_chip"] = s.topology.cores_per_chip;
  if (s.topology.host_block != std::array<int, 3>{0, 0, 0}) t["host_block"] = s.topology.host_block;
  if (s.topology.interleaved_gpu_ids) t["interleaved_gpu_ids"] = true;
  if (!s.topology.device_kind_override.empty()) t["device_kind"] = s.topology.device_kind_override;
  j["topology"] = t;

  Json axes = Json::array();
  for (const auto& a : s.mesh.axes)
    axes.push_back({{"name", a.name}, {"ici", a.ici}, {"dcn", a.dcn}, {"type", enumName(a.type, kAxisTypes)}});
  j["mesh"] = {{"axes", axes},
               {"allow_split_physical_axes", s.mesh.allow_split_physical_axes},
               {"contiguous_submeshes", s.mesh.contiguous_submeshes}};

  Json model = Json::object();
  if (!s.model.preset.empty()) model["preset"] = s.model.preset;
  if (!s.model.path.empty()) model["path"] = s.model.path;
  if (!s.model.inline_params.is_null()) model["params"] = s.model.inline_params;
  j["model"] = model;

  Json rules = Json::object();
  if (!s.rules.preset.empty()) rules["preset"] = s.rules.preset;
  if (!s.rules.rules.empty()) {
    Json list = Json::array();
    for (const auto& [regex, spec] : s.rules.rules) list.push_back(Json::array({regex, spec}));
    rules["rules"] = list;
  }
  j["rules"] = rules;

  const auto& o = s.training;
  Json t2;
  t2["workload"] = enumName(o.workload, kWorkloads);
  t2["param_dtype"] = o.param_dtype;
  t2["optimizer"] = enumName(o.optimizer, kOptimizers);
  t2["master_weights_fp32"] = o.master_weights_fp32;
  t2["zero_stage"] = o.zero_stage;
  t2["micro_batch"] = o.micro_batch;
  t2["seq_len"] = o.seq_len;
  t2["recompute"] = enumName(o.recompute, kRecompute);
  t2["batch_axes"] = o.batch_axes;
  t2["seq_axes"] = o.seq_axes;
  t2["serve_batch"] = o.serve_batch;
  t2["context_len"] = o.context_len;
  t2["kv_dtype"] = o.kv_dtype;
  if (o.hbm_bytes_override) t2["hbm_bytes"] = *o.hbm_bytes_override;
  j["training"] = t2;

  Json links = Json::object();
  const auto& l = s.links;
  if (l.ici_bandwidth) links["ici_bandwidth"] = *l.ici_bandwidth;
  if (l.ici_latency) links["ici_latency"] = *l.ici_latency;
  if (l.uplink_bandwidth) links["uplink_bandwidth"] = *l.uplink_bandwidth;
  if (l.uplink_latency) links["uplink_latency"] = *l.uplink_latency;
  if (l.twisted) links["twisted"] = true;
  if (!links.empty()) j["links"] = links;
  if (s.pipeline) j["pipeline"] = analysis::pipelineSectionToJson(*s.pipeline);
  return j;
}

Scenario scenarioFromJson(const Json& j) {
  if (!j.is_object()) throwValueError("a scenario must be a JSON object");
  if (const Json* f = find(j, "format"); f && (!f->is_string() || f->get<std::string>() != "shardscope-scenario"))
    throwValueError("format must be \"shardscope-scenario\"");
  if (const Json* v = find(j, "version"); v && (!v->is_number_integer() || v->get<std::int64_t>() != 1))
    throwValueError("version must be 1 (this Shardscope reads version 1 workspaces)");
  Scenario s;
  s.name = readString(j, "name", "scenario", s.name);
  s.topology = readTopology(readObject(j, "topology", "scenario"));
  s.mesh = readMesh(readObject(j, "mesh", "scenario"));
  s.model = readModel(readObject(j, "model", "scenario"));
  s.rules = readRules(readObject(j, "rules", "scenario"));
  s.training = readTraining(readObject(j, "training", "scenario"));
  s.links = readLinks(readObject(j, "links", "scenario"));
  if (const Json* p = find(j, "pipeline")) s.pipeline = analysis::readPipelineSection(*p);
  return s;
}

Shape resolveIciShape(const MeshConfig& mesh, std::int64_t chipsPerSlice) {
  if (mesh.axes.empty()) throwValueError("the mesh has no axes");
  std::set<std::string> names;
  int wildcard = -1;
  std::int64_t known = 1;
  Shape shape;
  for (std::size_t i = 0; i < mesh.axes.size(); ++i) {
    const auto& a = mesh.axes[i];
    if (!names.insert(a.name).second) throwValueError("axis name '" + a.name + "' is used twice");
    if (a.ici == -1) {
      if (wildcard >= 0)
        throwValueError("only one axis may have size -1, but '" + mesh.axes[static_cast<std::size_t>(wildcard)].name +
                        "' and '" + a.name + "' both do");
      wildcard = static_cast<int>(i);
    } else if (a.ici < 1) {
      throwValueError("axis '" + a.name + "' has size " + std::to_string(a.ici) + "; sizes must be positive or -1");
    } else {
      if (known > std::numeric_limits<std::int64_t>::max() / a.ici)
        throwValueError("the product of the mesh axis sizes overflows");
      known *= a.ici;
    }
    shape.push_back(a.ici);
  }
  if (wildcard >= 0) {
    if (chipsPerSlice % known != 0)
      throwValueError("axis '" + mesh.axes[static_cast<std::size_t>(wildcard)].name + "' is -1 but " +
                      std::to_string(chipsPerSlice) + " devices are not divisible by the other axes' product " +
                      std::to_string(known));
    shape[static_cast<std::size_t>(wildcard)] = chipsPerSlice / known;
  }
  return shape;
}

Scenario loadScenarioFile(const std::filesystem::path& file) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(file, ec))
    throw Error(ErrorKind::IOError, "cannot open workspace '" + file.string() + "'");
  return scenarioFromJson(readJsonFile(file, "workspace '" + file.string() + "'"));
}

} // namespace shardscope
