// SPDX-License-Identifier: Apache-2.0
// MaxText configurations as workspaces. Behaviour follows MaxText (AI-Hypercomputer/maxtext):
// configs/pyconfig.py (merging base, model and overrides; logical_axis_rules merged by name),
// configs/types.py (global_parameter_scale, batch sizes, num_slices), utils/max_utils.py
// (fill_unspecified_mesh_axes), utils/maxtext_utils.py (create_device_mesh: the ici/dcn lists in
// mesh_axes order, hybrid when several slices), layers/ and models/ (parameter trees and their
// logical axes), and flax's logical_to_mesh_axes for the rules.
#include "shardscope/interop/maxtext_import.hpp"

#include "maxtext_params.hpp"
#include "base/quoted_text.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_fields.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/yaml_text.hpp"
#include "shardscope/cost/workload.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <initializer_list>
#include <set>
#include <sstream>

namespace shardscope {

namespace {

// max_utils.fill_unspecified_mesh_axes: at most one -1, replaced by what makes the product the
// target; the product must then equal the target.
std::vector<std::int64_t> fillUnspecified(std::vector<std::int64_t> values, std::int64_t target,
                                          const std::string& kind, const std::vector<std::string>& axes) {
  std::int64_t product = 1;
  int unspecified = -1;
  for (std::size_t i = 0; i < values.size(); ++i) {
    if (values[i] == -1) {
      if (unspecified >= 0)
        throwValueError("more than one " + kind + " parallelism is -1 (" + axes[static_cast<std::size_t>(unspecified)] +
                        " and " + axes[i] + "); at most one axis can be unspecified");
      unspecified = static_cast<int>(i);
      continue;
    }
    if (values[i] < 1)
      throwValueError(kind + " parallelism of axis '" + axes[i] + "' is " + std::to_string(values[i]) +
                      "; it must be positive or -1");
    if (product > (std::int64_t{1} << 40)) throwValueError(kind + " parallelism product is too large");
    product *= values[i];
  }
  const std::string target_type = kind == "DCN" ? "slices" : "devices per slice";
  if (unspecified >= 0) {
    if (target % product != 0)
      throwValueError("the unspecified (-1) " + kind + " parallelism of axis '" +
                      axes[static_cast<std::size_t>(unspecified)] + "' cannot be determined: " +
                      std::to_string(target) + " " + target_type + " is not a multiple of " + std::to_string(product));
    values[static_cast<std::size_t>(unspecified)] = target / product;
    product = target;
  }
  if (product != target)
    throwValueError("number of " + target_type + " " + std::to_string(target) + " does not match the product of the " +
                    kind + " parallelism " + std::to_string(product));
  return values;
}

// The parallelism key of a mesh axis (maxtext_utils.create_device_mesh's ici_map / dcn_map).
std::optional<std::string> parallelismKey(const std::string& axis, const std::string& prefix) {
  static const std::vector<std::pair<std::string, std::string>> names{
      {"diloco", "diloco"},
      {"data", "data"},
      {"stage", "pipeline"},
      {"fsdp", "fsdp"},
      {"fsdp_transpose", "fsdp_transpose"},
      {"sequence", "sequence"},
      {"context", "context"},
      {"context_usp_ulysses", "context_usp_ulysses"},
      {"context_autoregressive", "context_autoregressive"},
      {"tensor", "tensor"},
      {"tensor_transpose", "tensor_transpose"},
      {"tensor_sequence", "tensor_sequence"},
      {"model", "tensor"},
      {"expert", "expert"},
      {"autoregressive", "autoregressive"}};
  for (const auto& [name, key] : names)
    if (name == axis) return prefix + "_" + key + "_parallelism";
  return std::nullopt;
}

std::vector<std::string> stringList(const Json& value, const std::string& key) {
  std::vector<std::string> out;
  if (!value.is_array())
    throwValueError("MaxText key '" + key + "' must be a list of names, not " + shardscope::quoted(dumpJson(value)));
  for (const Json& v : value) {
    if (!v.is_string())
      throwValueError("MaxText key '" + key + "' must be a list of names; " + shardscope::quoted(dumpJson(v)) +
                      " is not");
    out.push_back(v.get<std::string>());
  }
  return out;
}

// logical_axis_rules as (logical name, mesh axes) pairs; a rule's mesh axes are a name, a list of
// names, or empty (null or []: the logical axis is replicated).
// MaxText's base.yml holds about 100 rules and 12 mesh axes; these bounds keep a hostile config's
// work (every parameter against every rule) small.
constexpr std::size_t kMaxLogicalRules = 2000;
constexpr std::size_t kMaxMeshAxes = 64;

using LogicalRules = std::vector<std::pair<std::string, std::vector<std::string>>>;

LogicalRules readRules(const Json& value) {
  if (!value.is_array()) throwValueError("MaxText key 'logical_axis_rules' must be a list of [name, mesh axes]");
  if (value.size() > kMaxLogicalRules)
    throwValueError("MaxText key 'logical_axis_rules' holds " + std::to_string(value.size()) + " rules, more than " +
                    std::to_string(kMaxLogicalRules));
  LogicalRules rules;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const Json& r = value[i];
    const std::string where = "logical_axis_rules[" + std::to_string(i) + "]";
    if (!r.is_array() || r.size() != 2 || !r[0].is_string())
      throwValueError(where + " must be [logical name, mesh axes], not " + shardscope::quoted(dumpJson(r)));
    std::vector<std::string> axes;
    if (r[1].is_string())
      axes.push_back(r[1].get<std::string>());
    else if (r[1].is_array()) {
      for (const Json& a : r[1]) {
        if (!a.is_string())
          throwValueError(where + ": mesh axis " + shardscope::quoted(dumpJson(a)) + " is not a name");
        axes.push_back(a.get<std::string>());
      }
    } else if (!r[1].is_null())
      throwValueError(where + ": mesh axes must be a name, a list of names or [], not " +
                      shardscope::quoted(dumpJson(r[1])));
    rules.emplace_back(r[0].get<std::string>(), std::move(axes));
  }
  return rules;
}

// flax.linen.spmd logical_to_mesh_axes: the rules are tried in order; a rule whose logical name is
// one of the array's axes (the first such axis) assigns its mesh axes to that axis when the axis is
// still unassigned and none of the rule's mesh axes is used by the array yet. Unassigned axes are
// replicated. Then, as MaxText's sharding.logical_to_mesh_axes does (remove_size_one_mesh_axis:
// mesh.shape.get(axis, 1)), mesh axes of size one, and those not in the mesh, are dropped (they do
// not change the placement).
Json specFromLogicalAxes(const std::vector<std::string>& logical, const LogicalRules& rules,
                         const std::vector<std::pair<std::string, std::int64_t>>& meshSizes) {
  std::vector<std::optional<std::vector<std::string>>> assigned(logical.size());
  std::set<std::string> usedAxes;
  for (const auto& [name, axes] : rules) {
    const auto pos = std::find(logical.begin(), logical.end(), name);
    if (pos == logical.end() || name.empty()) continue;
    const auto index = static_cast<std::size_t>(pos - logical.begin());
    if (assigned[index]) continue;
    if (std::any_of(axes.begin(), axes.end(), [&](const std::string& a) { return usedAxes.count(a) > 0; })) continue;
    assigned[index] = axes;
    usedAxes.insert(axes.begin(), axes.end());
  }
  const auto sizeOf = [&](const std::string& axis) -> std::int64_t {
    for (const auto& [n, s] : meshSizes)
      if (n == axis) return s;
    return 0;
  };
  Json spec = Json::array();
  for (const auto& a : assigned) {
    std::vector<std::string> kept;
    if (a)
      for (const std::string& axis : *a) {
        if (sizeOf(axis) > 1) kept.push_back(axis);
      }
    if (kept.empty())
      spec.push_back(nullptr);
    else if (kept.size() == 1)
      spec.push_back(kept[0]);
    else
      spec.push_back(Json(kept));
  }
  return spec;
}

std::string exactPathRegex(const std::string& path) {
  std::string out = "^";
  for (char c : path) {
    const bool plain =
        (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '/' || c == '-';
    if (!plain) out.push_back('\\');
    out.push_back(c);
  }
  return out + "$";
}

// The mesh axes a logical activation axis shards over (the first rule for it whose axes exist),
// those of size one left out.
std::vector<std::string> activationAxes(const std::string& logical, const LogicalRules& rules,
                                        const std::vector<std::pair<std::string, std::int64_t>>& meshSizes) {
  const Json spec = specFromLogicalAxes({logical}, rules, meshSizes);
  std::vector<std::string> out;
  if (spec[0].is_string())
    out.push_back(spec[0].get<std::string>());
  else if (spec[0].is_array())
    for (const Json& a : spec[0]) out.push_back(a.get<std::string>());
  return out;
}

Json readYamlFile(const std::filesystem::path& file) {
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw Error(ErrorKind::IOError, "MaxText config '" + file.string() + "' is a directory, not a file");
  std::ifstream in(file, std::ios::binary);
  if (!in) throw Error(ErrorKind::IOError, "cannot open MaxText config '" + file.string() + "'");
  std::string text;
  char buffer[65536];
  while (in.read(buffer, sizeof buffer) || in.gcount() > 0) {
    text.append(buffer, static_cast<std::size_t>(in.gcount()));
    if (text.size() > kMaxYamlBytes) break; // parseYamlText reports the size
  }
  Json doc = parseYamlText(text, file.string());
  if (!doc.is_object()) throwValueError(file.string() + ": a MaxText config must be a map of keys");
  return doc;
}

// A config file with its base_config chain (pyconfig._load_config): the base, relative to the file
// (or absolute), loaded first and the file's keys merged over it, as OmegaConf.merge does (a list
// is replaced whole). At most 8 levels; a file naming itself again is an error.
Json readConfigWithBases(const std::filesystem::path& file, std::vector<std::filesystem::path>& chain) {
  if (chain.size() >= 8) throwValueError(file.string() + ": base_config chains more than 8 files");
  for (const auto& seen : chain) {
    std::error_code ec;
    if (std::filesystem::equivalent(seen, file, ec))
      throwValueError(file.string() + ": base_config names a file of its own chain");
  }
  chain.push_back(file);
  Json doc = readYamlFile(file);
  const auto base = doc.find("base_config");
  if (base == doc.end() || base->is_null()) return doc;
  if (!base->is_string() || base->get<std::string>().empty())
    throwValueError(file.string() + ": base_config must name a yml file");
  std::filesystem::path basePath = base->get<std::string>();
  if (basePath.is_relative()) basePath = file.parent_path() / basePath;
  Json merged = readConfigWithBases(basePath, chain);
  for (auto it = doc.begin(); it != doc.end(); ++it)
    if (it.key() != "base_config") merged[it.key()] = it.value();
  return merged;
}

Json readConfigFile(const std::filesystem::path& file) {
  std::vector<std::filesystem::path> chain;
  return readConfigWithBases(file, chain);
}

// MaxText's own remat_policy names: none, full, custom and the policies that name the matmul outputs
// they keep (not Megatron's selective, nor torchtitan's selective_op). Anything else is not modelled.
Recompute maxTextRematPolicy(const std::string& name, const Json& config) {
  auto isMaxTextPolicy = [](Recompute r) {
    const RecomputeTraits t = recomputeTraits(r);
    return r == Recompute::None || r == Recompute::Full || r == Recompute::Custom ||
           (!t.korthikanti && !t.alternate_matmuls);
  };
  const auto policy = parseName(name, kRecomputeNames);
  if (policy && isMaxTextPolicy(*policy)) return *policy;
  std::string known;
  for (const auto& [policyName, p] : kRecomputeNames)
    if (isMaxTextPolicy(p)) known += (known.empty() ? "" : ", ") + std::string(policyName);
  notModelled("remat_policy", config.at("remat_policy"), "known policies: " + known);
}

// remat_policy custom: base.yml's per-tensor keys ('remat', 'device' or 'offload'). A projection
// split over several keys (query_proj, key_proj, value_proj; mlpwi_0, mlpwi_1) is kept only when
// every part is; then it is in host memory when any part is.
CustomRemat maxTextCustomRemat(MaxTextConfigReader& c, bool fusedQkv, bool gatedMlp, MaxTextImportNotes& notes) {
  const auto placement = [&](const char* key) {
    const std::string v = c.text(key, "remat");
    const auto p = parseName(v, kTensorPlacementNames);
    if (!p)
      throwValueError("MaxText key '" + std::string(key) + "' = " + shardscope::quoted(v) +
                      " must be remat, device or offload");
    return *p;
  };
  const auto combined = [&](std::initializer_list<const char*> keys, const char* what) {
    bool remat = false, offload = false, kept = false;
    for (const char* k : keys) {
      const TensorPlacement p = placement(k);
      (p == TensorPlacement::Remat ? remat : kept) = true;
      offload = offload || p == TensorPlacement::Offload;
    }
    if (remat && kept)
      notes.notes.push_back(std::string("remat_policy custom keeps part of ") + what +
                            ": counted as re-run (the step model keeps or re-runs the projection whole)");
    return remat ? TensorPlacement::Remat : offload ? TensorPlacement::Offload : TensorPlacement::Device;
  };
  CustomRemat r;
  r.layer_input = placement("decoder_layer_input");
  if (r.layer_input == TensorPlacement::Remat)
    throwValueError(
        "MaxText key 'decoder_layer_input' cannot be remat: it is the checkpoint the backward re-runs from");
  r.qkv = fusedQkv ? placement("qkv_proj")
                   : combined({"query_proj", "key_proj", "value_proj"}, "the query/key/value projections");
  r.out = placement("out_proj");
  r.mlp_in = gatedMlp ? combined({"mlpwi_0", "mlpwi_1"}, "the MLP input projections") : placement("mlpwi");
  r.mlp_out = placement("mlpwo");
  r.context = placement("context");
  return r;
}

// The attention kernel: MaxText's dot_product writes the scores to HBM; flash and the other fused
// kernels (autoselected picks one on TPU) do not.
AttentionKernel maxTextAttention(MaxTextConfigReader& c) {
  const std::string a = c.text("attention", "autoselected");
  return a == "dot_product" ? AttentionKernel::Materialized : AttentionKernel::Flash;
}

// The logical axis names a parameter takes under the config's rules. MaxText renamed some of them
// over time (2024: query heads "q_heads", key/value heads "kv_heads" and "kv_head_dim", norms
// "norm"; 2026: the embedding's width "embed_vocab"); a config whose rules name only the older
// name is from a MaxText whose layers annotated that one, so the parameter takes it.
std::vector<std::string> namesUnderRules(const std::vector<std::string>& axes, const LogicalRules& rules,
                                         std::set<std::string>& renamed) {
  static const std::pair<const char*, const char*> kOlderNames[] = {
      {"q_heads", "heads"}, {"kv_heads", "heads"}, {"kv_head_dim", "kv"}, {"embed_vocab", "embed"}, {"norm", "embed"}};
  const auto named = [&](const std::string& n) {
    return std::any_of(rules.begin(), rules.end(), [&](const auto& r) { return r.first == n; });
  };
  std::vector<std::string> out = axes;
  for (auto& a : out)
    for (const auto& [current, older] : kOlderNames)
      if (a == current && !named(current) && named(older)) {
        renamed.insert(a + " -> " + older);
        a = older;
        break;
      }
  return out;
}

} // namespace

Json maxTextOverrides(const std::vector<std::string>& arguments) {
  Json out = Json::object();
  for (const std::string& a : arguments) {
    const auto eq = a.find('=');
    if (eq == std::string::npos || eq == 0)
      throwValueError("override " + shardscope::quoted(a) + " must be key=value, as MaxText's command line takes it");
    const std::string key = a.substr(0, eq);
    Json value = parseYamlValue(std::string_view(a).substr(eq + 1), key);
    // `ici_fsdp_parallelism=` or `=null` would quietly leave the config's value in place.
    if (value.is_null())
      throwValueError("override " + shardscope::quoted(a) + " gives " + shardscope::quoted(key) +
                      " no value (MaxText would read null, not its default); give a value or leave the key out");
    out[key] = std::move(value);
  }
  return out;
}

namespace {

// MaxText refuses a command-line key its config does not have (pyconfig: "Key ... was passed at the
// command line but isn't in config"; since 2025 its pydantic types forbid extra keys): a misspelt
// ici_fsdp_parallelsim would otherwise be ignored and the run laid out differently. A key close to
// one of the base config's is refused as the typo it is; another unknown key (one a newer MaxText
// has) is read, and the import notes say MaxText of this base would refuse it.
void refuseUnknownOverride(const std::string& key, const Json& base, const Json& model) {
  if (!base.is_object() || base.empty() || base.contains(key) || (model.is_object() && model.contains(key))) return;
  std::vector<std::string_view> known;
  for (auto it = base.begin(); it != base.end(); ++it) known.push_back(it.key());
  const std::string guess = closestKey(key, known);
  if (!guess.empty())
    throwValueError("override " + shardscope::quoted(key) + " is not a key of the base config (did you mean '" + guess +
                    "'?); MaxText refuses keys its config does not have");
}

} // namespace

Json mergeMaxTextConfig(const Json& base, const Json& model, const Json& overrides) {
  Json merged = base.is_object() ? base : Json::object();
  const bool overrideModel = overrides.contains("override_model_config")
                                 ? overrides["override_model_config"] == true
                                 : merged.value("override_model_config", Json(false)) == true;
  LogicalRules rules;
  Json ruleList = Json::array();
  const auto mergeRules = [&](const Json& layer) {
    const auto it = layer.find("logical_axis_rules");
    if (it == layer.end() || !it->is_array() || it->empty()) return;
    std::set<std::string> replaced;
    for (const Json& r : *it)
      if (r.is_array() && !r.empty() && r[0].is_string()) replaced.insert(r[0].get<std::string>());
    Json kept = Json::array();
    for (const Json& r : ruleList)
      if (!(r.is_array() && !r.empty() && r[0].is_string() && replaced.count(r[0].get<std::string>())))
        kept.push_back(r);
    for (const Json& r : *it) kept.push_back(r);
    ruleList = std::move(kept);
  };
  if (const auto it = merged.find("logical_axis_rules"); it != merged.end() && it->is_array())
    ruleList = *it;
  else if (it != merged.end() && !it->is_null())
    throwValueError("MaxText key 'logical_axis_rules' must be a list of [name, mesh axes], not " +
                    shardscope::quoted(dumpJson(*it)));
  for (const Json* layer : {&model, &overrides}) {
    if (!layer->is_object()) continue;
    if (layer == &overrides && overrides.value("override_logical_axis_rules", Json(false)) == true &&
        overrides.contains("logical_axis_rules"))
      ruleList = overrides["logical_axis_rules"];
    else
      mergeRules(*layer);
    for (auto it = layer->begin(); it != layer->end(); ++it) {
      if (it.key() == "logical_axis_rules") continue;
      if (layer == &overrides) refuseUnknownOverride(it.key(), merged, model);
      if (layer == &overrides && !overrideModel && model.is_object() && model.contains(it.key()) &&
          model[it.key()] != it.value())
        throwValueError("MaxText key " + shardscope::quoted(it.key()) + " is set both by the model config (" +
                        shardscope::quoted(dumpJson(model[it.key()])) + ") and an override (" +
                        shardscope::quoted(dumpJson(it.value())) +
                        "); MaxText refuses this unless override_model_config=true");
      merged[it.key()] = it.value();
    }
  }
  merged["logical_axis_rules"] = ruleList;
  return merged;
}

namespace {

// quantization (AQT on TPU): the weight matmuls in int8 or fp8, training.precision;
// context_parallel_strategy: how the context axes exchange keys and values (all_gather, MaxText's
// default, or ring), performance.context_attention.
void readNumericsAndKernels(MaxTextConfigReader& c, const Json& config, Scenario& s) {
  if (const std::string q = c.text("quantization", ""); q == "int8")
    s.training.precision = Precision::Int8;
  else if (q == "fp8" || q == "fp8_full")
    s.training.precision = Precision::Fp8;
  else if (!q.empty())
    notModelled("quantization", config.at("quantization"),
                "Shardscope models '' (bf16), 'int8', 'fp8' and 'fp8_full' (training.precision)");
  if (const std::string cp = c.text("context_parallel_strategy", ""); cp == "ring")
    s.performance.context_attention = ContextAttention::Ring;
  else if (cp == "all_gather")
    s.performance.context_attention = ContextAttention::AllGather;
  else if (!cp.empty())
    notModelled("context_parallel_strategy", config.at("context_parallel_strategy"),
                "Shardscope models 'all_gather' and 'ring' (performance.context_attention)");
}

// The mesh sizes with every axis of size 1 counted as 2: flax's rules then keep the axes
// MaxText's placement would drop (remove_size_one_mesh_axis), so the workspace names them all.
std::vector<std::pair<std::string, std::int64_t>>
sizesKeepingUnitAxes(std::vector<std::pair<std::string, std::int64_t>> meshSizes) {
  for (auto& entry : meshSizes) entry.second = std::max<std::int64_t>(entry.second, 2);
  return meshSizes;
}

// The model's parameters as the workspace's own model, and one rule per parameter: the spec
// MaxText's rules give it. Each rule keeps the mesh axes of size 1 and the analysis drops them as
// MaxText does (drop_size_one_axes), so an edit that grows one (tensor 1 -> 4) shards the weights
// over it as MaxText would, instead of leaving the new axis idle.
void setModelAndRules(const MaxTextModel& model, const LogicalRules& rules,
                      const std::vector<std::pair<std::string, std::int64_t>>& meshSizes, Scenario& s,
                      MaxTextImportNotes& notes) {
  Json params = Json::array();
  s.rules.preset.clear();
  s.rules.rules.clear();
  s.rules.drop_size_one_axes = true;
  std::set<std::string> renamed;
  const auto everyAxis = sizesKeepingUnitAxes(meshSizes);
  for (const MaxTextParam& p : model.params) {
    params.push_back({{"path", p.path},
                      {"shape", p.shape},
                      {"dtype", model.weight_dtype},
                      {"logical_axes", logicalAxesJson(p.logical_axes)}});
    s.rules.rules.emplace_back(exactPathRegex(p.path),
                               specFromLogicalAxes(namesUnderRules(p.logical_axes, rules, renamed), rules, everyAxis));
  }
  s.model = ModelChoice{};
  s.model.preset.clear();
  s.model.inline_params = std::move(params);
  s.model.inline_architecture = model.architecture;
  s.model.inline_name = model.name;
  notes.architecture = model.architecture;
  if (!renamed.empty()) {
    std::string list;
    for (const auto& r : renamed) list += (list.empty() ? "" : ", ") + r;
    notes.notes.push_back("logical axis names as this config's rules know them (an older MaxText's layers): " + list);
  }
}

} // namespace

Scenario scenarioFromMaxTextConfig(const Json& config, MaxTextImportNotes& notes) {
  if (!config.is_object()) throwValueError("a MaxText config must be a map of keys");
  MaxTextConfigReader c(config);
  Scenario s;
  s.training.framework = Framework::MaxText;
  s.training.workload = Workload::Training;
  // Read by the merge (mergeMaxTextConfig), so listed as used.
  (void)c.get("override_model_config");
  (void)c.get("override_logical_axis_rules");

  // Keys whose non-default values change what we would build and that we do not model.
  if (!c.text("custom_mesh_and_rule", "").empty())
    notModelled("custom_mesh_and_rule", config.at("custom_mesh_and_rule"), "only the default layout is imported");
  readNumericsAndKernels(c, config, s);

  // The hardware: compile_topology names the slice, compile_topology_num_slices (or num_slices)
  // how many.
  const std::string topologyName = c.text("compile_topology", "");
  if (topologyName.empty())
    throwValueError("MaxText key 'compile_topology' is empty: name the target (e.g. compile_topology=v5p-256) so "
                    "the devices are known");
  const auto accel = maxTextAccelerator(topologyName);
  if (!accel)
    throwValueError("MaxText key 'compile_topology' = " + shardscope::quoted(topologyName) +
                    " is not a known TPU name (v4-N, v5p-N, v5e-N, v6e-N, tpu7x-N of accelerator_to_spec_map.py)");
  std::int64_t slices = c.integer("num_slices", -1);
  if (slices == -1)
    slices = c.integer("compile_topology_num_slices", -1);
  else
    (void)c.integer("compile_topology_num_slices", -1);
  if (slices == -1) slices = 1;
  if (slices < 1 || slices > 4096)
    throwValueError("the number of slices must be between 1 and 4096, not " + std::to_string(slices));
  if (slices * accel->devices_per_slice > kMaxTopologyDevices)
    throwValueError(std::to_string(slices) + " slices of " + topologyName + " are more than " +
                    std::to_string(kMaxTopologyDevices) + " devices");
  s.topology = TopologySpec{};
  s.topology.chip = accel->chip;
  s.topology.shape = accel->shape;
  s.topology.slices = static_cast<int>(slices);

  // The mesh: one axis per mesh_axes entry, its ici and dcn sizes from the parallelism keys.
  const Json* meshAxesJson = c.get("mesh_axes");
  if (!meshAxesJson) throwValueError("MaxText key 'mesh_axes' is missing");
  const std::vector<std::string> axes = stringList(*meshAxesJson, "mesh_axes");
  if (axes.empty() || axes.size() > kMaxMeshAxes)
    throwValueError("MaxText key 'mesh_axes' must name 1 to " + std::to_string(kMaxMeshAxes) + " axes");
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (std::find(axes.begin(), axes.begin() + static_cast<std::ptrdiff_t>(i), axes[i]) !=
        axes.begin() + static_cast<std::ptrdiff_t>(i))
      throwValueError("MaxText key 'mesh_axes' names '" + axes[i] + "' twice");
  std::vector<std::int64_t> ici, dcn;
  for (const std::string& axis : axes) {
    const auto iciKey = parallelismKey(axis, "ici");
    if (!iciKey) throwValueError("mesh_axes names '" + axis + "', which has no ici_/dcn_ parallelism key in MaxText");
    ici.push_back(c.integer(*iciKey, axis == "fsdp" ? -1 : 1));
    dcn.push_back(slices > 1 ? c.integer(*parallelismKey(axis, "dcn"), 1) : 1);
  }
  ici = fillUnspecified(ici, accel->devices_per_slice, "ICI", axes);
  if (slices > 1) dcn = fillUnspecified(dcn, slices, "DCN", axes);
  s.mesh.axes.clear();
  std::vector<std::pair<std::string, std::int64_t>> meshSizes;
  for (std::size_t i = 0; i < axes.size(); ++i) {
    s.mesh.axes.push_back(MeshAxis{axes[i], ici[i], dcn[i]});
    meshSizes.emplace_back(axes[i], ici[i] * dcn[i]);
  }
  s.mesh.allow_split_physical_axes = c.boolean("allow_split_physical_axes", false);
  s.mesh.contiguous_submeshes = false;
  for (std::size_t i = 0; i < axes.size(); ++i)
    if (axes[i] == "stage" && ici[i] * dcn[i] > 1)
      notes.notes.push_back("the 'stage' axis (pipeline parallelism) is kept as a mesh axis; MaxText's pipeline "
                            "schedule is not imported");

  // The model.
  const MaxTextModel model = maxTextModel(c, notes);
  const Json* rulesJson = c.get("logical_axis_rules");
  const LogicalRules rules = rulesJson ? readRules(*rulesJson) : LogicalRules{};
  setModelAndRules(model, rules, meshSizes, s, notes);

  // The job.
  const double perDevice = c.number("per_device_batch_size", 12.0);
  if (!(perDevice > 0) || perDevice > 1e6)
    throwValueError("MaxText key 'per_device_batch_size' must be above 0 and at most 1e6, not " +
                    shardscope::quoted(dumpJson(config.at("per_device_batch_size"))));
  const std::int64_t devices = static_cast<std::int64_t>(accel->devices_per_slice) * slices;
  const auto microBatch = static_cast<std::int64_t>(static_cast<double>(devices) * perDevice); // int(), as types.py
  if (microBatch < 1)
    throwValueError("per_device_batch_size " + shardscope::quoted(dumpJson(config.at("per_device_batch_size"))) +
                    " on " + std::to_string(devices) + " devices gives a global batch of 0");
  const std::int64_t accumulation = c.integer("gradient_accumulation_steps", 1);
  if (accumulation < 1 || accumulation > (std::int64_t{1} << 24))
    throwValueError("MaxText key 'gradient_accumulation_steps' must be between 1 and 2^24, not " +
                    std::to_string(accumulation));
  s.training.micro_batch = microBatch;
  s.training.microbatches = accumulation;
  s.training.seq_len = c.integer("max_target_length", 2048);
  if (s.training.seq_len < 1) throwValueError("MaxText key 'max_target_length' must be positive");
  s.training.param_dtype = model.weight_dtype;
  const std::string optimizer = c.text("opt_type", "adamw");
  if (optimizer == "adamw" || optimizer == "adam_pax")
    s.training.optimizer = Optimizer::AdamW;
  else if (optimizer == "sgd")
    s.training.optimizer = Optimizer::SgdMomentum;
  else
    notModelled("opt_type", config.at("opt_type"), "Shardscope models adamw, adam_pax and sgd");
  const std::string remat = c.text("remat_policy", "full");
  s.training.recompute = maxTextRematPolicy(remat, config);
  if (s.training.recompute == Recompute::Custom)
    s.training.custom_remat =
        maxTextCustomRemat(c, c.boolean("fused_qkv", false), model.architecture.value("gated_mlp", true), notes);
  s.training.attention = maxTextAttention(c);
  s.training.seq_axes = activationAxes("activation_length", rules, meshSizes);
  // The batch: every mesh axis the rule names, those of size 1 too (MaxText's spec leaves them
  // out), so the batch stays split when an edit grows one (data 1 -> 128); not an axis that splits
  // the sequence.
  const auto everyAxis = sizesKeepingUnitAxes(meshSizes);
  s.training.batch_axes.clear();
  for (const auto& axis : activationAxes("activation_batch", rules, everyAxis))
    if (std::find(s.training.seq_axes.begin(), s.training.seq_axes.end(), axis) == s.training.seq_axes.end())
      s.training.batch_axes.push_back(axis);
  const std::string dtype = c.text("dtype", "bfloat16");
  if (dtype != "bfloat16") notes.notes.push_back("dtype '" + dtype + "': activations are estimated in bfloat16");

  s.name = "MaxText: " + model.name + " on " + topologyName + (slices > 1 ? " x" + std::to_string(slices) : "");
  c.fillNotes(notes);
  return s;
}

MaxTextFiles maxTextFilesFor(const std::filesystem::path& yml) {
  const Json doc = readYamlFile(yml);
  MaxTextFiles out;
  // A base config names the mesh (or inherits it through base_config).
  if (doc.contains("mesh_axes") || doc.contains("base_config")) {
    out.base = yml;
    return out;
  }
  out.model = yml;
  std::error_code ec;
  for (std::filesystem::path dir = yml.parent_path();; dir = dir.parent_path()) {
    if (std::filesystem::is_regular_file(dir / "base.yml", ec)) {
      out.base = dir / "base.yml";
      break;
    }
    if (dir == yml.parent_path().parent_path().parent_path() || dir == dir.parent_path()) break;
  }
  return out;
}

Scenario importMaxText(const std::vector<std::filesystem::path>& files, const std::vector<std::string>& overrides,
                       MaxTextImportNotes& notes) {
  if (files.empty() || files.size() > 2) throwValueError("give base.yml and at most one model yml");
  const Json base = readConfigFile(files[0]);
  const Json cli = maxTextOverrides(overrides);
  Json model = Json::object();
  if (files.size() == 2)
    model = readConfigFile(files[1]);
  else {
    std::string name =
        cli.contains("model_name") && cli["model_name"].is_string()
            ? cli["model_name"].get<std::string>()
            : (base.contains("model_name") && base["model_name"].is_string() ? base["model_name"].get<std::string>()
                                                                             : "default");
    if (const auto at = name.find("-Instruct"); at != std::string::npos) name.erase(at, 9);
    if (name != "default") {
      if (name.find('/') != std::string::npos || name.find('\\') != std::string::npos ||
          name.find("..") != std::string::npos)
        throwValueError("MaxText key 'model_name' = '" + name + "' is not a plain model name");
      const std::filesystem::path dir = files[0].parent_path();
      std::filesystem::path found;
      for (const auto& candidate : {dir / "models" / (name + ".yml"), dir.parent_path() / "models" / (name + ".yml")})
        if (std::filesystem::is_regular_file(candidate)) {
          found = candidate;
          break;
        }
      if (found.empty())
        throwValueError("model_name '" + name + "': no models/" + name + ".yml next to " + files[0].string() +
                        " (give the model's yml as the second file)");
      model = readYamlFile(found);
      notes.notes.push_back("model config read from " + found.string());
    }
  }
  Scenario s = scenarioFromMaxTextConfig(mergeMaxTextConfig(base, model, cli), notes);
  for (auto it = cli.begin(); it != cli.end(); ++it)
    if (base.is_object() && !base.empty() && !base.contains(it.key()) && !model.contains(it.key()))
      notes.notes.push_back("override '" + it.key() + "' is not a key of " + files[0].filename().string() +
                            ": the MaxText this base comes from would refuse it; read as given");
  // A model file given by path names the model when model_name does not.
  const std::string unnamed = "MaxText: default on ";
  if (files.size() == 2 && s.name.rfind(unnamed, 0) == 0) {
    s.name = "MaxText: " + files[1].stem().string() + " on " + s.name.substr(unnamed.size());
    s.model.inline_name = files[1].stem().string();
  }
  // What import writes every other command must read: the workspace is checked as a loaded one is
  // (num_slices=1025, a rule naming a mesh axis twice), so the error comes here, not at the next step.
  try {
    (void)scenarioFromJson(scenarioToJson(s));
  } catch (const Error& e) {
    throw Error(e.kind(), std::string("the imported workspace would not load: ") + e.what());
  }
  return s;
}

} // namespace shardscope
