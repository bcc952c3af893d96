// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/analysis/mesh_presets.hpp"

#include "base/json_input.hpp"
#include "scenario_step.hpp"
#include "scenario_pipeline.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/mesh/mesh_string.hpp"

#include <algorithm>
#include <filesystem>
#include <array>
#include <iterator>

#include <limits>
#include <set>

namespace shardscope {

// The member defaults are the default scenario, so an empty workspace reads as this one too.
Scenario defaultScenario() { return Scenario{}; }

namespace {

// Bounds on names read from a workspace file (docs/workspace.md).
constexpr std::size_t kMaxAxisNameBytes = 128;
constexpr std::size_t kMaxWorkspaceNameBytes = 4096;

template <class Enum, std::size_t N>
std::vector<std::string_view> enumNames(const std::pair<const char*, Enum> (&names)[N]) {
  std::vector<std::string_view> out;
  for (const auto& [name, value] : names) out.emplace_back(name);
  return out;
}

// One of the names in `names`, by the reader's choice check (a misspelling gets a suggestion).
template <class Enum, std::size_t N>
Enum readEnum(const JsonField& field, Enum fallback, const std::pair<const char*, Enum> (&names)[N]) {
  if (!field.present()) return fallback;
  return names[field.toChoice(enumNames(names))].second;
}

// The same for the name tables the engines' vocabulary keeps (cost/workload.hpp).
template <class Enum, std::size_t N>
Enum readEnum(const JsonField& field, Enum fallback, const std::array<std::pair<std::string_view, Enum>, N>& names) {
  if (!field.present()) return fallback;
  std::vector<std::string_view> list;
  for (const auto& [name, value] : names) list.push_back(name);
  return names[field.toChoice(list)].second;
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
constexpr std::pair<const char*, AxisType> kAxisTypes[] = {
    {"Auto", AxisType::Auto}, {"Explicit", AxisType::Explicit}, {"Manual", AxisType::Manual}};

constexpr std::int64_t kMaxAxisSize = 1 << 24; // far beyond any pod, small enough that products stay exact
constexpr std::int64_t kMaxTopologyDim = 4096;
constexpr NumberRange kLinkBandwidthRange{kMinLinkBandwidth, kMaxLinkBandwidth};
constexpr NumberRange kLinkLatencyRange{0, kMaxLinkLatency};

// A section of the workspace: absent or null is the defaults, anything else must be an object
// with only the section's keys.
bool section(const JsonField& field, const std::vector<std::string_view>& known) {
  if (!field.present()) return false;
  field.checkKeys(known);
  return true;
}

TopologySpec readTopology(const JsonField& t) {
  TopologySpec spec;
  if (!section(t, {"chip", "shape", "slices", "cores_per_chip", "interleaved_gpu_ids", "device_kind", "host_block"}))
    return spec;
  spec.chip = t["chip"].stringOr(spec.chip);
  if (const JsonField shape = t["shape"]; shape.present()) {
    const auto dims = shape.toInts({1, kMaxTopologyDim});
    if (dims.empty() || dims.size() > 3) shape.fail("must list 1 to 3 dimensions, got " + std::to_string(dims.size()));
    std::array<int, 3> s{1, 1, 1};
    for (std::size_t i = 0; i < dims.size(); ++i) s[i] = static_cast<int>(dims[i]);
    spec.shape = s;
    if (const ChipSpec* chip = findChip(spec.chip); chip && chip->torus_dims == 2 && s[2] != 1)
      shape[2].fail("must be 1: " + chip->key + " is a 2-D torus, got " + std::to_string(s[2]));
  }
  spec.slices = t["slices"].present() ? t["slices"].toInt32({1, 1024}) : spec.slices;
  spec.cores_per_chip = t["cores_per_chip"].present() ? t["cores_per_chip"].toInt32({0, 8}) : spec.cores_per_chip;
  spec.interleaved_gpu_ids = t["interleaved_gpu_ids"].boolOr(spec.interleaved_gpu_ids);
  spec.device_kind_override = t["device_kind"].stringOr(spec.device_kind_override);
  if (const JsonField hb = t["host_block"]; hb.present()) {
    const auto dims = hb.toInts({0, kMaxTopologyDim});
    if (dims.size() != 3) hb.fail("must be [x, y, z], got " + std::to_string(dims.size()) + " numbers");
    for (std::size_t i = 0; i < 3; ++i) spec.host_block[i] = static_cast<int>(dims[i]);
  }
  return spec;
}

// A mesh axis size: positive, or -1 for "the rest"; absent is 1.
std::int64_t axisSize(const JsonField& field) {
  const std::int64_t size = field.intOr(1, {kAnyInt.min, kMaxAxisSize});
  if (size < 1 && size != -1) field.fail("must be positive or -1, got " + std::to_string(size));
  return size;
}

MeshConfig readMesh(const JsonField& m) {
  MeshConfig mesh;
  if (!section(m, {"axes", "allow_split_physical_axes", "contiguous_submeshes"})) return mesh;
  if (const JsonField axes = m["axes"]; axes.present()) {
    const Json& list = axes.toArray("a list of axis objects");
    if (list.size() > 64)
      throwValueError("mesh.axes has " + std::to_string(list.size()) + " axes; at most 64 are supported");
    mesh.axes.clear();
    for (std::size_t i = 0; i < list.size(); ++i) {
      const JsonField a = axes[i];
      a.toObject("an object with name, ici, dcn and type");
      a.checkKeys({"name", "ici", "dcn", "type"});
      MeshAxis axis;
      axis.name = a["name"].toNonEmptyString();
      // A name is a word people read in every table; a 10 MB one gave 50 MB of `step` output.
      if (axis.name.size() > kMaxAxisNameBytes)
        a["name"].fail("is " + std::to_string(axis.name.size()) + " bytes long; at most " +
                       std::to_string(kMaxAxisNameBytes));
      if (std::any_of(axis.name.begin(), axis.name.end(),
                      [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; }))
        a["name"].fail("holds a control character (a newline, a NUL, an escape); an axis name is one word");
      axis.ici = axisSize(a["ici"]);
      axis.dcn = axisSize(a["dcn"]);
      axis.type = readEnum(a["type"], AxisType::Explicit, kAxisTypes);
      mesh.axes.push_back(std::move(axis));
    }
  }
  mesh.allow_split_physical_axes = m["allow_split_physical_axes"].boolOr(mesh.allow_split_physical_axes);
  mesh.contiguous_submeshes = m["contiguous_submeshes"].boolOr(mesh.contiguous_submeshes);
  return mesh;
}

ModelChoice readModel(const JsonField& m) {
  ModelChoice model;
  if (!section(m, {"preset", "path", "params", "config", "architecture", "name"})) return model;
  // One source of parameters: a preset, a file, an inline list or an inline config.json.
  const char* given[4] = {};
  int count = 0;
  for (const char* key : {"preset", "path", "params", "config"})
    if (m[key].present()) given[count++] = key;
  if (count > 1)
    m.fail(std::string("gives both '") + given[0] + "' and '" + given[1] +
           "'; give one of preset, path, params or config");
  model.preset = m["preset"].stringOr(count == 0 ? model.preset : "");
  model.path = m["path"].stringOr("");
  if (const JsonField p = m["params"]; p.present()) model.inline_params = p.toArray("a list of {path, shape, dtype}");
  if (const JsonField c = m["config"]; c.present())
    model.inline_config = c.toObject("a Hugging Face config.json object");
  if (const JsonField a = m["architecture"]; a.present()) {
    if (model.inline_params.is_null()) a.fail("goes with 'params' (a preset, file or config.json has its own)");
    model.inline_architecture = a.toObject("an object with ModelConfig's fields (docs/formats.md)");
  }
  if (const JsonField n = m["name"]; n.present()) {
    if (model.inline_params.is_null()) n.fail("goes with 'params' (a preset, file or config.json names itself)");
    model.inline_name = n.toString();
    if (model.inline_name.size() > 200) n.fail("is longer than 200 characters");
  }
  return model;
}

RulesChoice readRules(const JsonField& r) {
  RulesChoice rules;
  if (!section(r, {"preset", "rules", "drop_size_one_axes"})) return rules;
  const JsonField list = r["rules"];
  // Given rules without a preset stand alone; with a preset they are tried first.
  rules.preset = r["preset"].stringOr(list.present() ? "" : rules.preset);
  if (list.present()) {
    const Json& pairs = list.toArray("a list of [regex, spec] pairs");
    for (std::size_t i = 0; i < pairs.size(); ++i) {
      const JsonField pair = list[i];
      if (pair.toArray("a [regex, spec] pair").size() != 2)
        pair.fail("must be a [regex, spec] pair, got a list of " + std::to_string(pair.json().size()));
      rules.rules.emplace_back(pair[0].annotated("the regex").toString(), pair.json()[1]);
    }
  }
  rules.drop_size_one_axes = r["drop_size_one_axes"].boolOr(false);
  return rules;
}

TrainingOptions readTraining(const JsonField& t) {
  TrainingOptions o;
  if (!section(t, {"workload",          "param_dtype", "optimizer", "master_weights_fp32", "zero_stage",
                   "micro_batch",       "seq_len",     "recompute", "batch_axes",          "seq_axes",
                   "serve_batch",       "context_len", "kv_dtype",  "hbm_bytes",           "microbatches",
                   "sequence_parallel", "framework",   "attention", "grad_dtype",          "custom_remat",
                   "precision"}))
    return o;
  constexpr IntRange count{1, std::int64_t{1} << 40};
  o.workload = readEnum(t["workload"], o.workload, kWorkloads);
  o.param_dtype = t["param_dtype"].stringOr(o.param_dtype);
  o.grad_dtype = t["grad_dtype"].stringOr(o.grad_dtype);
  o.optimizer = readEnum(t["optimizer"], o.optimizer, kOptimizers);
  o.master_weights_fp32 = t["master_weights_fp32"].boolOr(o.master_weights_fp32);
  o.zero_stage = static_cast<int>(t["zero_stage"].intOr(o.zero_stage, {0, 2}));
  o.micro_batch = t["micro_batch"].intOr(o.micro_batch, count);
  o.seq_len = t["seq_len"].intOr(o.seq_len, count);
  o.framework = readEnum(t["framework"], o.framework, kFrameworkNames);
  o.recompute = readEnum(t["recompute"], o.recompute, kRecomputeNames);
  if (const JsonField c = t["custom_remat"]; c.present()) {
    if (o.recompute != Recompute::Custom) c.fail("goes with recompute \"custom\"");
    c.checkKeys({"layer_input", "qkv", "out", "mlp_in", "mlp_out", "context"});
    CustomRemat& r = o.custom_remat;
    for (auto [key, field] :
         {std::pair{"layer_input", &r.layer_input}, std::pair{"qkv", &r.qkv}, std::pair{"out", &r.out},
          std::pair{"mlp_in", &r.mlp_in}, std::pair{"mlp_out", &r.mlp_out}, std::pair{"context", &r.context}})
      *field = readEnum(c[key], *field, kTensorPlacementNames);
    if (r.layer_input == TensorPlacement::Remat)
      c["layer_input"].fail("cannot be \"remat\": the layer input is the checkpoint the backward re-runs from");
  }
  o.attention = readEnum(t["attention"], o.attention, kAttentionKernelNames);
  o.precision = readEnum(t["precision"], o.precision, kPrecisionNames);
  // An axis listed twice would split activations twice.
  for (const char* key : {"batch_axes", "seq_axes"})
    if (t[key].present()) t[key].checkUniqueStrings();
  o.batch_axes = t["batch_axes"].stringsOr(o.batch_axes);
  o.seq_axes = t["seq_axes"].stringsOr(o.seq_axes);
  // An axis splits the batch or the sequence, not both (it would halve the activations twice).
  for (const auto& axis : o.seq_axes)
    if (std::find(o.batch_axes.begin(), o.batch_axes.end(), axis) != o.batch_axes.end())
      t["seq_axes"].fail("lists '" + axis + "', which training.batch_axes lists too: an axis splits the batch or the " +
                         "sequence, not both");
  o.serve_batch = t["serve_batch"].intOr(o.serve_batch, count);
  o.context_len = t["context_len"].intOr(o.context_len, count);
  o.kv_dtype = t["kv_dtype"].stringOr(o.kv_dtype);
  // At least 1 MiB: a device with less holds no model (5e-324 was shown as "of 0 B HBM").
  if (auto hbm = t["hbm_bytes"].optionalNumber({1 << 20, 1e15, false, false})) o.hbm_bytes_override = *hbm;
  return o;
}

LinkOverrides readLinks(const JsonField& l) {
  LinkOverrides o;
  if (!section(l, {"ici_bandwidth", "ici_latency", "uplink_bandwidth", "uplink_latency", "twisted"})) return o;
  o.ici_bandwidth = l["ici_bandwidth"].optionalNumber(kLinkBandwidthRange);
  o.ici_latency = l["ici_latency"].optionalNumber(kLinkLatencyRange);
  o.uplink_bandwidth = l["uplink_bandwidth"].optionalNumber(kLinkBandwidthRange);
  o.uplink_latency = l["uplink_latency"].optionalNumber(kLinkLatencyRange);
  o.twisted = l["twisted"].boolOr(false);
  return o;
}

} // namespace

namespace {
std::string placementName(TensorPlacement p) { return std::string(nameOf(p, kTensorPlacementNames)); }
} // namespace

Json scenarioToJson(const Scenario& s) {
  Json j;
  j["format"] = "shardscope-workspace";
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
  if (!s.model.inline_config.is_null()) model["config"] = s.model.inline_config;
  if (!s.model.inline_architecture.is_null()) model["architecture"] = s.model.inline_architecture;
  if (!s.model.inline_name.empty()) model["name"] = s.model.inline_name;
  j["model"] = model;

  Json rules = Json::object();
  if (!s.rules.preset.empty()) rules["preset"] = s.rules.preset;
  if (!s.rules.rules.empty()) {
    Json list = Json::array();
    for (const auto& [regex, spec] : s.rules.rules) list.push_back(Json::array({regex, spec}));
    rules["rules"] = list;
  }
  if (s.rules.drop_size_one_axes) rules["drop_size_one_axes"] = true;
  j["rules"] = rules;

  const auto& o = s.training;
  Json t2;
  t2["workload"] = enumName(o.workload, kWorkloads);
  t2["param_dtype"] = o.param_dtype;
  if (!o.grad_dtype.empty()) t2["grad_dtype"] = o.grad_dtype; // absent: the framework's
  t2["optimizer"] = enumName(o.optimizer, kOptimizers);
  t2["master_weights_fp32"] = o.master_weights_fp32;
  t2["zero_stage"] = o.zero_stage;
  t2["micro_batch"] = o.micro_batch;
  t2["seq_len"] = o.seq_len;
  t2["recompute"] = std::string(recomputeName(o.recompute));
  if (o.recompute == Recompute::Custom) {
    const CustomRemat& r = o.custom_remat;
    t2["custom_remat"] = {{"layer_input", placementName(r.layer_input)},
                          {"qkv", placementName(r.qkv)},
                          {"out", placementName(r.out)},
                          {"mlp_in", placementName(r.mlp_in)},
                          {"mlp_out", placementName(r.mlp_out)},
                          {"context", placementName(r.context)}};
  }
  t2["framework"] = std::string(frameworkName(o.framework));
  t2["attention"] = std::string(attentionKernelName(o.attention));
  t2["precision"] = std::string(precisionName(o.precision));
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
  writeStepFields(s, j);
  if (s.pipeline) j["pipeline"] = analysis::pipelineSectionToJson(*s.pipeline);
  return j;
}

std::string modelLabel(const ModelChoice& m) {
  if (!m.preset.empty()) return m.preset;
  if (!m.path.empty()) return std::filesystem::path(m.path).filename().string();
  if (!m.inline_name.empty()) return m.inline_name;
  if (m.inline_config.is_object() && m.inline_config.contains("model_type") &&
      m.inline_config["model_type"].is_string())
    return m.inline_config["model_type"].get<std::string>() + " config";
  return "inline model";
}

Scenario scenarioFromJson(const Json& j) {
  const JsonField ws = fileFields(j, "", "the workspace");
  ws.toObject("a JSON object");
  ws.checkKeys({"format", "version", "name", "topology", "mesh", "model", "rules", "training", "links", "performance",
                "pipeline"});
  // "shardscope-scenario" is what workspaces were tagged before 2026-11; they still open.
  if (const JsonField f = ws["format"]; f.present() && (!f.json().is_string() || (f.json() != "shardscope-workspace" &&
                                                                                  f.json() != "shardscope-scenario")))
    f.fail("must be \"shardscope-workspace\", got " + jsonRepr(f.json()));
  if (const JsonField v = ws["version"]; v.present() && (!v.json().is_number_integer() || v.json() != 1))
    v.fail("must be 1 (this Shardscope reads version 1 workspaces), got " + jsonRepr(v.json()));
  Scenario s;
  s.name = ws["name"].stringOr(s.name);
  if (s.name.size() > kMaxWorkspaceNameBytes)
    ws["name"].fail("is " + std::to_string(s.name.size()) + " bytes long; at most " +
                    std::to_string(kMaxWorkspaceNameBytes));
  s.topology = readTopology(ws["topology"]);
  s.mesh = readMesh(ws["mesh"]);
  s.model = readModel(ws["model"]);
  s.rules = readRules(ws["rules"]);
  s.training = readTraining(ws["training"]);
  s.links = readLinks(ws["links"]);
  readStepFields(ws, s);
  if (const JsonField p = ws["pipeline"]; p.present()) s.pipeline = analysis::readPipelineSection(p);
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
  const auto status = std::filesystem::status(file, ec);
  if (!std::filesystem::is_regular_file(status)) {
    // Say why: the usual causes are a wrong path, a directory, or a pipe or device given as a file.
    std::string why = "it is not a regular file";
    if (!std::filesystem::exists(status))
      why = ec && ec != std::errc::no_such_file_or_directory ? ec.message() : "no such file";
    else if (std::filesystem::is_directory(status))
      why = "it is a directory";
    throw Error(ErrorKind::IOError, "cannot open workspace '" + file.string() + "': " + why);
  }
  return scenarioFromJson(readJsonFile(file, "workspace '" + file.string() + "'"));
}

std::vector<MeshAxis> meshAxesFromText(const std::string& text, const TopologySpec& topology) {
  if (isMeshPreset(text)) return meshPresetAxes(text, topology.slices);
  const auto devices = makeDevices(topology);
  const auto perSlice = static_cast<std::int64_t>(devices.size()) / std::max(1, topology.slices);
  const MeshAxes parsed = parseMeshAxes(text, perSlice);
  std::vector<MeshAxis> axes;
  for (std::size_t i = 0; i < parsed.names.size(); ++i)
    axes.push_back({parsed.names[i], parsed.sizes[i], 1, AxisType::Explicit});
  if (topology.slices > 1 && !axes.empty()) axes.front().dcn = topology.slices;
  return axes;
}

} // namespace shardscope
