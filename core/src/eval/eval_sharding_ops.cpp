// SPDX-License-Identifier: Apache-2.0
// Eval ops of the sharding module.
//
// Golden ops (request/result forms of ../shared/golden/eformer-jaxpp-public.json, meta.ops):
//   partition_helper        {mesh_axes, shapes, min_shard_size|null} -> [{shape, methods, spec}]
//   match_partition_rules   {rules: [[regex, spec]], params: [{path, shape|null, dtype?}],
//                            min_size (absent: 0, null: 16384), strict} -> [spec]
//   corrected_sharding      {mesh_axes|null, shape, spec, via?, raise_mesh_error?} -> spec | null
//   shape_based_rule        {patterns: [[pattern, spec]], params: [{shape, dtype?}]} -> [spec]
//   memory_constrained_rule {mesh_axes, max_memory_per_device, axis_names|null, params} -> [spec]
//   auto_sharding_rule      {mesh_axes, axis_names|null, min_shard_size|null, reverse, params} -> [spec]
//   composite_rule          {mesh_axes, rules: [{kind, ...}], params} -> [spec]
// Specs are JSON lists ([] = P(), [null] = P(None), ["a", ["b", "c"]]). Where eformer silently
// changes a spec, the change is reported in the top-level "warnings" list (outside "result").
//
// The reference's AutoShardingRule raises TypeError whenever min_shard_size is left to its
// default (eformer-jaxpp spec §1.11 bug #1) and the golden cases record that error, so auto_sharding_rule and
// composite_rule reproduce it by default; "reference_bugs": false gives the documented intent
// (the device count) instead.
//
//   shard (ours; full form in docs/eval-shard.md)
//     {mesh_axes, device_ids?, params: [{path, shape, dtype?, spec?}],
//      rules?: [[regex, spec]] | preset?: name, partition_axis?: {role: mesh axis},
//      min_size? (absent: 0, null: 16384), correct?: true, allow_uneven?: true,
//      device_positions?: [int] | "all", per_device?: false}
//     -> {mesh, params: [{path, shape, dtype, rule, requested_spec, spec, shard_shape,
//         shard_bytes, total_bytes, replication, uneven, diagnostics, devices?}],
//         totals: {device_count, total_bytes, padded_bytes_per_device, max_bytes, min_bytes,
//         mean_bytes, argmax, argmin, argmax_device_id?, argmin_device_id?, per_device_bytes?}}
#include "base/json_input.hpp"
#include "eval_json.hpp"
#include "eval_ops.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/mesh_partition_helper.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/rule_file.hpp"
#include "shardscope/sharding/shard_plan.hpp"
#include "shardscope/sharding/named_sharding.hpp"
#include "shardscope/sharding/sharding_rules.hpp"

#include <algorithm>
#include <memory>
#include <set>

namespace shardscope::eval {

namespace {

// --- request helpers ---------------------------------------------------------------------------

// A shape: non-negative sizes, at most kMaxRank of them (refused before reading a huge list).
Shape shapeOf(const JsonField& field) {
  if (field.present() && field.json().is_array() && field.json().size() > kMaxRank)
    throwRankError(field.json().size(), field.subject());
  return field.toInts(kNonNegativeInt);
}
Shape shapeOf(const Json& value, const std::string& what) { return shapeOf(fieldAt(value, what)); }

DType dtypeOf(const Json& object, const std::string& what) {
  const JsonField dtype = fieldAt(object, what)["dtype"];
  return dtype.present() ? parseDType(dtype.toString()) : float32DType();
}

const Json& paramList(const Json& request) { return fields(request)["params"].toArray("a list of objects"); }

const Json& paramAt(const Json& list, std::size_t i) { return fieldAt(list, "params")[i].toObject(); }

std::vector<ArrayShape> parseArrays(const Json& request) {
  const Json& list = paramList(request);
  std::vector<ArrayShape> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "params[" + std::to_string(i) + "]";
    const Json& p = paramAt(list, i);
    out.push_back({shapeOf(fieldAt(p, where)["shape"]), dtypeOf(p, where)});
  }
  return out;
}

MeshAxes requireMesh(const Json& request) {
  return MeshAxes::fromJson(requireField(request, "mesh_axes"), "mesh_axes");
}

// A rule that needs a mesh: eformer falls back to the legacy `with mesh:` context, absent here.
MeshAxes meshForRule(const Json& request) {
  if (!present(request, "mesh_axes")) throwAssertion("No mesh found under this context manager.");
  return requireMesh(request);
}

Json specList(const std::vector<PartitionSpec>& specs) {
  Json out = Json::array();
  for (const auto& s : specs) out.push_back(s.toJson());
  return out;
}

Json diagnosticsJson(const ShardingDiagnostics& diags) {
  Json out = Json::array();
  for (const auto& d : diags) {
    Json j;
    j["kind"] = diagnosticKindName(d.kind);
    j["dim"] = d.dim >= 0 ? Json(d.dim) : Json(nullptr);
    j["axis"] = d.axis.empty() ? Json(nullptr) : Json(d.axis);
    j["message"] = d.message;
    out.push_back(std::move(j));
  }
  return out;
}

void warn(EvalContext& context, const std::string& label, const ShardingDiagnostics& diags) {
  for (const auto& d : diags)
    context.warnings.push_back(label + ": " + std::string(diagnosticKindName(d.kind)) + ": " + d.message);
}

std::vector<PartitionRule> parseRules(const Json& value) {
  const JsonField list = fieldAt(value, "rules");
  list.toArray("a list of [regex, spec] pairs");
  if (value.size() > kMaxRuleFileRules)
    list.fail("holds " + std::to_string(value.size()) + " rules, more than the limit of " +
              std::to_string(kMaxRuleFileRules));
  std::vector<PartitionRule> rules;
  for (std::size_t i = 0; i < value.size(); ++i) {
    const JsonField rule = list[i];
    const Json& r = value[i];
    if (!r.is_array() || r.size() != 2) rule.fail("must be a [regex, spec] pair, got " + jsonRepr(r));
    rules.push_back({rule[0].annotated("the regex").toString(), PartitionSpec::fromJson(r[1], rule[1].path())});
  }
  return rules;
}

// match_partition_rules' min_size: an absent key is the signature default 0, null is
// MIN_SHARDING_SIZE.
std::optional<std::int64_t> minSizeOf(const Json& request) {
  const JsonField minSize = fields(request)["min_size"];
  if (!minSize.exists()) return std::int64_t{0};
  return minSize.optionalInt();
}

// AutoShardingRule as the reference runs it with a defaulted min_shard_size: the comparison
// `np.prod(shape) < OrderedDict` raises on the first array.
class ReferenceDefaultAutoRule : public ShardingRule {
public:
  PartitionSpec specFor(const ArrayShape& array, ShardingDiagnostics*) const override {
    // np.prod(()) is a float; any other shape's product is an integer.
    const char* lhs = array.shape.empty() ? "float" : "int";
    throw Error(ErrorKind::TypeError,
                std::string("'<' not supported between instances of '") + lhs + "' and 'collections.OrderedDict'");
  }
};

// The rule's fields live at the request's top level (the single-rule ops) or in one entry of a
// composite rule's list; `spec` carries that path into messages.
std::shared_ptr<const ShardingRule> autoRule(const JsonField& spec, const Json& request, bool referenceBugs) {
  MeshAxes mesh = meshForRule(request);
  const auto minShard = spec["min_shard_size"].optionalInt();
  if (referenceBugs && minShard.value_or(0) == 0) return std::make_shared<ReferenceDefaultAutoRule>();
  return std::make_shared<AutoShardingRule>(std::move(mesh), spec["axis_names"].stringsOr({}), minShard,
                                            spec["reverse"].boolOr(false));
}

std::shared_ptr<const ShardingRule> memoryRule(const JsonField& spec, const Json& request) {
  if (!spec["max_memory_per_device"].present())
    throw Error(ErrorKind::TypeError,
                "MemoryConstrainedShardingRule.__init__() missing 1 required positional argument: "
                "'max_memory_per_device' (" +
                    (spec.path().empty() ? std::string("request") : spec.path()) + ")");
  const auto limit = spec["max_memory_per_device"].toInt();
  return std::make_shared<MemoryConstrainedShardingRule>(limit, meshForRule(request), spec["axis_names"].stringsOr({}));
}

std::shared_ptr<const ShardingRule> shapeRule(const JsonField& spec) {
  const JsonField patterns = spec["patterns"];
  const Json& entries = patterns.toArray("a list of [pattern, spec] pairs");
  std::vector<std::pair<ShapePattern, PartitionSpec>> list;
  for (std::size_t i = 0; i < entries.size(); ++i) {
    const JsonField pair = patterns[i];
    const Json& p = entries[i];
    if (!p.is_array() || p.size() != 2) pair.fail("must be a [pattern, spec] pair, got " + jsonRepr(p));
    const Json& dims = pair[0].toArray("a list of integers or null");
    ShapePattern pattern;
    for (std::size_t d = 0; d < dims.size(); ++d) {
      if (dims[d].is_null())
        pattern.emplace_back(std::nullopt);
      else
        pattern.emplace_back(pair[0][d].toInt());
    }
    PartitionSpec s = PartitionSpec::fromJson(p[1], pair[1].path());
    // A Python dict keeps the first position of a repeated key with the last value.
    auto same = std::find_if(list.begin(), list.end(), [&](const auto& e) { return e.first == pattern; });
    if (same != list.end())
      same->second = std::move(s);
    else
      list.emplace_back(std::move(pattern), std::move(s));
  }
  return std::make_shared<ShapeBasedShardingRule>(std::move(list));
}

Json applyRule(const ShardingRule& rule, const Json& request, EvalContext& context) {
  const auto arrays = parseArrays(request);
  std::vector<ShardingDiagnostics> diags;
  const auto specs = rule.apply(arrays, &diags);
  for (std::size_t i = 0; i < diags.size(); ++i) warn(context, "params[" + std::to_string(i) + "]", diags[i]);
  return specList(specs);
}

// --- shard helpers ---------------------------------------------------------------------------------

PartitionAxis partitionAxisOf(const Json& request) {
  PartitionAxis axes;
  if (!present(request, "partition_axis")) return axes;
  const Json& pa = request["partition_axis"];
  if (!pa.is_object()) throwValueError("field 'partition_axis' must be an object {role: mesh axis}");
  for (const auto& [key, value] : pa.items()) {
    if (!value.is_string()) throwValueError("field 'partition_axis." + key + "' must be a mesh axis name");
    const std::string v = value.get<std::string>();
    if (key == "dp")
      axes.data_parallel = v;
    else if (key == "fsdp")
      axes.fully_sharded_data_parallel = v;
    else if (key == "tp")
      axes.tensor_parallel = v;
    else if (key == "sp")
      axes.sequence_parallel = v;
    else if (key == "ep")
      axes.expert_parallel = v;
    else
      throwValueError("field 'partition_axis." + key + "': roles are dp, fsdp, tp, sp, ep");
  }
  return axes;
}

std::vector<std::int64_t> deviceIdsOf(const Json& request, const MeshAxes& mesh) {
  if (!present(request, "device_ids")) return {};
  std::vector<std::int64_t> ids;
  // Walk the nested lists, checking each level's length against the mesh axis sizes.
  auto walk = [&](auto&& self, const Json& v, std::size_t depth) -> void {
    if (depth == mesh.rank()) {
      if (!v.is_number_integer())
        throwValueError("field 'device_ids' must hold integers at depth " + std::to_string(depth));
      ids.push_back(v.get<std::int64_t>());
      return;
    }
    if (!v.is_array() || static_cast<std::int64_t>(v.size()) != mesh.sizes[depth])
      throwValueError("field 'device_ids' must be nested lists with the mesh shape; level " + std::to_string(depth) +
                      " must have " + std::to_string(mesh.sizes[depth]) + " entries");
    for (const auto& x : v) self(self, x, depth + 1);
  };
  walk(walk, request["device_ids"], 0);
  return ids;
}

std::vector<std::int64_t> positionsOf(const Json& request, const MeshAxes& mesh, std::size_t paramCount) {
  if (!present(request, "device_positions")) return {};
  const Json& v = request["device_positions"];
  std::vector<std::int64_t> out;
  const std::int64_t listed = v.is_array() ? static_cast<std::int64_t>(v.size()) : mesh.deviceCount();
  if (listed > (1 << 20) || listed * static_cast<std::int64_t>(std::max<std::size_t>(1, paramCount)) > (1 << 20))
    throwValueError("field 'device_positions': positions x params exceeds 2^20 entries; ask for fewer positions");
  if (v.is_string() && v.get<std::string>() == "all") {
    for (std::int64_t p = 0; p < mesh.deviceCount(); ++p) out.push_back(p);
    return out;
  }
  for (auto p : intList(v, "device_positions")) {
    if (p < 0 || p >= mesh.deviceCount())
      throwValueError("field 'device_positions': " + std::to_string(p) + " is outside the mesh of " +
                      std::to_string(mesh.deviceCount()) + " devices");
    out.push_back(p);
  }
  return out;
}

} // namespace

// --- ops ---------------------------------------------------------------------------------------------

Json opPartitionHelper(const Json& request, EvalContext& context) {
  MeshPartitionHelper helper(requireMesh(request));
  const Json& shapes = requireField(request, "shapes");
  if (!shapes.is_array()) throwValueError("field 'shapes' must be a list of shapes");
  const std::int64_t minShard = optionalInt(request, "min_shard_size").value_or(1024);
  Json out = Json::array();
  for (std::size_t i = 0; i < shapes.size(); ++i) {
    const Shape shape = shapeOf(shapes[i], "shapes[" + std::to_string(i) + "]");
    const auto methods = helper.suggestMethods(shape);
    ShardingDiagnostics diags;
    const PartitionSpec spec = helper.createPartitionSpec(shape, methods, minShard, &diags);
    warn(context, "shapes[" + std::to_string(i) + "]", diags);
    Json m = Json::array();
    for (const auto& method : methods) m.push_back(method);
    out.push_back({{"shape", shape}, {"methods", std::move(m)}, {"spec", spec.toJson()}});
  }
  return out;
}

Json opMatchPartitionRules(const Json& request, EvalContext& context) {
  const RuleSet rules(parseRules(requireField(request, "rules")));
  const Json& list = paramList(request);
  std::vector<ParamLeaf> leaves;
  std::set<std::string> paths;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "params[" + std::to_string(i) + "]";
    const Json& p = paramAt(list, i);
    ParamLeaf leaf;
    leaf.path = fieldAt(p, where)["path"].toString();
    if (!paths.insert(leaf.path).second)
      throwValueError("field '" + where + ".path': path '" + leaf.path + "' appears twice");
    if (present(p, "shape")) leaf.shape = shapeOf(p["shape"], where + ".shape");
    leaf.dtype = dtypeOf(p, where);
    leaves.push_back(std::move(leaf));
  }
  MatchOptions options;
  options.min_size = minSizeOf(request);
  options.strict = boolField(request, "strict", true);
  const auto matches = matchPartitionRules(rules, leaves, options);
  Json out = Json::array();
  for (std::size_t i = 0; i < matches.size(); ++i) {
    warn(context, leaves[i].path, matches[i].diagnostics);
    out.push_back(matches[i].spec.toJson());
  }
  return out;
}

Json opCorrectedSharding(const Json& request, EvalContext& context) {
  std::optional<MeshAxes> mesh;
  if (present(request, "mesh_axes")) mesh = requireMesh(request);
  const Shape shape = shapeOf(requireField(request, "shape"), "shape");
  const PartitionSpec spec = PartitionSpec::fromJson(requireField(request, "spec"), "spec");
  std::string via = "get_corrected_named_sharding";
  if (present(request, "via")) via = stringField(request, "via");
  ShardingDiagnostics diags;
  Json out;
  if (via == "get_corrected_named_sharding") {
    out = getCorrectedNamedSharding(mesh ? &*mesh : nullptr, shape, spec, boolField(request, "raise_mesh_error", true),
                                    &diags)
              .toJson();
  } else if (via == "with_sharding_constraint") {
    auto applied = withShardingConstraintSpec(mesh ? &*mesh : nullptr, shape, spec, &diags);
    out = applied ? applied->toJson() : Json(nullptr);
  } else {
    throwValueError("field 'via' must be 'get_corrected_named_sharding' or 'with_sharding_constraint', got '" + via +
                    "'");
  }
  warn(context, "spec", diags);
  return out;
}

Json opShapeBasedRule(const Json& request, EvalContext& context) {
  return applyRule(*shapeRule(fields(request)), request, context);
}

Json opMemoryConstrainedRule(const Json& request, EvalContext& context) {
  return applyRule(*memoryRule(fields(request), request), request, context);
}

Json opAutoShardingRule(const Json& request, EvalContext& context) {
  return applyRule(*autoRule(fields(request), request, boolField(request, "reference_bugs", true)), request, context);
}

Json opCompositeRule(const Json& request, EvalContext& context) {
  const Json& list = requireField(request, "rules");
  if (!list.is_array()) throwValueError("field 'rules' must be a list of rule objects");
  const bool referenceBugs = boolField(request, "reference_bugs", true);
  std::vector<std::shared_ptr<const ShardingRule>> rules;
  const JsonField ruleFields = fields(request)["rules"];
  for (std::size_t i = 0; i < list.size(); ++i) {
    const JsonField rule = ruleFields[i];
    rule.toObject("an object with a 'kind'");
    switch (rule["kind"].toChoice({"shape_based", "memory_constrained", "auto"})) {
    case 0:
      rules.push_back(shapeRule(rule));
      break;
    case 1:
      rules.push_back(memoryRule(rule, request));
      break;
    default:
      rules.push_back(autoRule(rule, request, referenceBugs));
    }
  }
  return applyRule(CompositeShardingRule(std::move(rules)), request, context);
}

Json opShard(const Json& request, EvalContext& context) {
  const MeshAxes mesh = requireMesh(request);
  const auto deviceIds = deviceIdsOf(request, mesh);
  const bool correct = boolField(request, "correct", true);
  const bool allowUneven = boolField(request, "allow_uneven", true);
  const Json& list = paramList(request);
  const auto positions = positionsOf(request, mesh, list.size());

  std::vector<ShardParam> params;
  std::set<std::string> paths;
  for (std::size_t i = 0; i < list.size(); ++i) {
    const std::string where = "params[" + std::to_string(i) + "]";
    const Json& p = paramAt(list, i);
    const JsonField field = fieldAt(p, where);
    ShardParam param;
    param.path = field["path"].toString();
    if (!paths.insert(param.path).second)
      throwValueError("field '" + where + ".path': path '" + param.path + "' appears twice");
    param.shape = shapeOf(field["shape"]);
    param.dtype = dtypeOf(p, where);
    if (present(p, "spec")) param.spec = PartitionSpec::fromJson(p["spec"], where + ".spec");
    params.push_back(std::move(param));
  }
  if (present(request, "rules") && present(request, "preset"))
    throwValueError("give either 'rules' or 'preset', not both");
  std::optional<RuleSet> rules;
  if (present(request, "rules"))
    rules.emplace(parseRules(request["rules"]));
  else if (present(request, "preset"))
    rules.emplace(presetRules(stringField(request, "preset"), partitionAxisOf(request), &mesh));
  if (!rules)
    for (std::size_t i = 0; i < params.size(); ++i)
      if (!params[i].spec)
        throwValueError("field 'params[" + std::to_string(i) +
                        "]' has no 'spec' and the request gives no 'rules' or 'preset'");

  ShardPlanOptions options;
  options.rules = rules ? &*rules : nullptr;
  options.min_size = minSizeOf(request);
  options.correct = correct;
  options.allow_uneven = allowUneven;
  const ShardPlan plan = planShards(mesh, params, options);

  Json paramsJson = Json::array();
  for (std::size_t i = 0; i < params.size(); ++i) {
    const PlannedParam& planned = plan.params[i];
    const ArrayLayout& layout = planned.layout;
    warn(context, params[i].path, planned.diagnostics);
    Json p;
    p["path"] = params[i].path;
    p["shape"] = params[i].shape;
    p["dtype"] = params[i].dtype.name;
    p["rule"] = planned.rule >= 0 ? Json(planned.rule) : Json(nullptr);
    p["requested_spec"] = planned.requested.toJson();
    p["spec"] = planned.spec.toJson();
    p["shard_shape"] = layout.shard_shape;
    p["shard_bytes"] = layout.shard_bytes;
    p["total_bytes"] = layout.total_bytes;
    p["replication"] = layout.replication;
    p["uneven"] = layout.uneven;
    p["diagnostics"] = diagnosticsJson(planned.diagnostics);
    if (!positions.empty()) {
      Json devs = Json::array();
      for (auto pos : positions) {
        Json d;
        d["position"] = pos;
        if (!deviceIds.empty()) d["device_id"] = deviceIds[static_cast<std::size_t>(pos)];
        Json ranges = Json::array();
        std::int64_t held = 1;
        for (const auto& r : deviceIndexRanges(layout, mesh, pos)) {
          ranges.push_back({r.start, r.stop});
          held *= r.stop - r.start;
        }
        d["index"] = std::move(ranges);
        d["held_elements"] = held;
        devs.push_back(std::move(d));
      }
      p["devices"] = std::move(devs);
    }
    paramsJson.push_back(std::move(p));
  }

  const DeviceTotals& t = plan.totals;
  Json tj;
  tj["device_count"] = mesh.deviceCount();
  tj["total_bytes"] = t.total_bytes;
  tj["padded_bytes_per_device"] = t.padded_bytes;
  tj["max_bytes"] = t.max_bytes;
  tj["min_bytes"] = t.min_bytes;
  tj["mean_bytes"] = t.mean_bytes;
  tj["argmax"] = t.argmax;
  tj["argmin"] = t.argmin;
  if (!deviceIds.empty()) {
    tj["argmax_device_id"] = deviceIds[static_cast<std::size_t>(t.argmax)];
    tj["argmin_device_id"] = deviceIds[static_cast<std::size_t>(t.argmin)];
  }
  if (boolField(request, "per_device", false)) {
    if (mesh.deviceCount() > (1 << 20)) throwValueError("field 'per_device': more than 2^20 devices to list");
    tj["per_device_bytes"] = t.data_bytes;
  }

  Json meshJson = Json::object();
  for (std::size_t a = 0; a < mesh.rank(); ++a) meshJson[mesh.names[a]] = mesh.sizes[a];
  Json out;
  out["mesh"] = std::move(meshJson);
  out["params"] = std::move(paramsJson);
  out["totals"] = std::move(tj);
  return out;
}

} // namespace shardscope::eval
