// SPDX-License-Identifier: Apache-2.0
// The workspace's layout as MaxText overrides (layout_export.hpp). MaxText (AI-Hypercomputer/maxtext,
// src/maxtext/utils/maxtext_utils.py create_device_mesh) builds its mesh from one ici_*/dcn_*
// parallelism per name in `mesh_axes`, in mesh_axes order, with mesh_utils.create_device_mesh
// (one slice) or create_hybrid_device_mesh (several); micro batch = devices x
// per_device_batch_size, global batch = that x gradient_accumulation_steps (pyconfig's
// calculate_global_batch_sizes).
#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/interop/layout_export.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/base/quoting.hpp"
#include "shardscope/cost/workload.hpp"

#include <algorithm>
#include <array>
#include <cstdio>
#include <sstream>
#include <string_view>

namespace shardscope {

namespace {

struct MaxTextAxis {
  std::string_view axis; // the name in mesh_axes
  std::string_view key;  // the middle of ici_<key>_parallelism / dcn_<key>_parallelism
};

// base.yml's mesh_axes, in its order, with the parallelism key of each.
constexpr std::array<MaxTextAxis, 12> kMaxTextAxes{{
    {"diloco", "diloco"},
    {"data", "data"},
    {"stage", "pipeline"},
    {"fsdp", "fsdp"},
    {"fsdp_transpose", "fsdp_transpose"},
    {"context", "context"},
    {"context_usp_ulysses", "context_usp_ulysses"},
    {"context_autoregressive", "context_autoregressive"},
    {"tensor", "tensor"},
    {"tensor_sequence", "tensor_sequence"},
    {"expert", "expert"},
    {"autoregressive", "autoregressive"},
}};

// Our usual names for MaxText's axes.
constexpr std::array<std::pair<std::string_view, std::string_view>, 9> kAliases{{
    {"dp", "data"},
    {"pp", "stage"},
    {"sp", "context"},
    {"cp", "context"},
    {"seq", "context"},
    {"sequence", "context"},
    {"tp", "tensor"},
    {"model", "tensor"},
    {"ep", "expert"},
}};

std::string number(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.10g", v);
  return buf;
}

// MaxText's remat_policy for ours: the same name where MaxText has it. Korthikanti's selective
// recompute keeps every matmul output and re-runs the attention core: MaxText's "minimal".
std::string maxTextRemat(Recompute r, std::vector<std::string>& notes) {
  switch (r) {
  case Recompute::Selective:
    notes.push_back("remat_policy: the workspace's 'selective' (Korthikanti et al.) is MaxText's 'minimal' "
                    "(matmul outputs kept, attention re-run)");
    return "minimal";
  case Recompute::None:
    notes.push_back("remat_policy: MaxText has no policy that keeps every activation; 'minimal' re-runs the "
                    "attention core");
    return "minimal";
  case Recompute::SelectiveOp:
    notes.push_back("remat_policy: MaxText has no policy that keeps every other matmul output (torchtitan's "
                    "'selective_op'); 'minimal' keeps them all and re-runs the attention core");
    return "minimal";
  default:
    return std::string(recomputeName(r));
  }
}

// The preset's logical rules in MaxText's logical names, when the workspace uses a built-in
// preset (its own path rules have no logical-name form).
std::vector<std::pair<std::string, std::vector<std::string>>>
presetLogicalRules(const std::string& preset, const std::vector<std::string>& batch) {
  std::vector<std::string> embed, model, experts;
  if (preset == "fsdp" || preset == "fsdp-tp" || preset == "ep") embed = {"fsdp", "context"};
  if (preset == "sp") embed = {"context"};
  if (preset == "tp" || preset == "fsdp-tp" || preset == "ep" || preset == "sp") model = {"tensor"};
  if (preset == "ep") experts = {"expert"};
  return {{"activation_batch", batch},
          {"activation_embed_and_logits_batch", batch},
          {"embed", embed},
          {"mlp", model},
          {"heads", model},
          {"q_heads", model},
          {"kv_heads", model},
          {"vocab", model},
          {"exp", experts},
          {"embed_moe", embed},
          {"mlp_moe", model},
          {"norm", {}},
          {"layers", {}}};
}

std::string yamlList(const std::vector<std::string>& items) {
  std::string out = "[";
  for (std::size_t i = 0; i < items.size(); ++i) out += (i ? ", " : "") + yamlQuoted(items[i]);
  return out + "]";
}

} // namespace

std::string maxTextAxisOf(const std::string& axis) {
  for (const auto& m : kMaxTextAxes)
    if (m.axis == axis) return axis;
  for (const auto& [ours, theirs] : kAliases)
    if (ours == axis) return std::string(theirs);
  return {};
}

MaxTextExport exportMaxTextOverrides(const Scenario& scenario, const Analysis& a) {
  MaxTextExport out;
  // Our axes as MaxText's, each used once.
  std::vector<std::string> mapped;
  for (const auto& axis : a.axes) {
    const std::string m = maxTextAxisOf(axis.name);
    if (m.empty())
      throwValueError("mesh axis '" + axis.name + "' has no MaxText counterpart (MaxText's axes: data, stage, fsdp, " +
                      "fsdp_transpose, context, tensor, tensor_sequence, expert, autoregressive, ...; " +
                      "ours dp, pp, sp, tp, ep map to them)");
    if (std::find(mapped.begin(), mapped.end(), m) != mapped.end())
      throwValueError("mesh axes map to MaxText's '" + m + "' twice (rename one: '" + axis.name + "')");
    mapped.push_back(m);
  }
  // mesh_axes: base.yml's order, with our axes placed into their own slots in our order, so the
  // devices land as ours do (axes of size 1 change nothing).
  std::vector<std::string> order;
  for (const auto& m : kMaxTextAxes) order.emplace_back(m.axis);
  std::vector<std::size_t> slots;
  for (std::size_t i = 0; i < order.size(); ++i)
    if (std::find(mapped.begin(), mapped.end(), order[i]) != mapped.end()) slots.push_back(i);
  for (std::size_t k = 0; k < slots.size(); ++k) order[slots[k]] = mapped[k];

  std::ostringstream y;
  y << "# MaxText overrides exported by Shardscope from the workspace " << yamlCommentText(yamlQuoted(scenario.name))
    << ".\n"
    << "# Pass each line as key=value on MaxText's command line, or set these keys in its config (MaxText's\n"
    << "# loader refuses a key written twice, so replace the config's own lines rather than append).\n"
    << "mesh_axes: " << yamlList(order) << "\n";
  for (const char* kind : {"ici", "dcn"})
    for (const auto& m : kMaxTextAxes) {
      std::int64_t size = 1;
      for (std::size_t i = 0; i < mapped.size(); ++i)
        if (mapped[i] == m.axis) size = std::string_view(kind) == "ici" ? a.axes[i].ici : a.axes[i].dcn;
      y << kind << "_" << m.key << "_parallelism: " << size << "\n";
    }
  const int slices = std::max(1, scenario.topology.slices);
  y << "num_slices: " << slices << "\n"
    << "allow_split_physical_axes: " << (scenario.mesh.allow_split_physical_axes ? "true" : "false") << "\n";

  const auto devices = static_cast<double>(a.mesh.devices.size());
  const auto& t = scenario.training;
  // Under a pipeline a step is M micro-batches, M as the schedule resolves it (pipelineMicrobatchCount).
  const std::int64_t accumulation =
      scenario.pipeline ? pipelineMicrobatchCount(*scenario.pipeline, a.mesh.axisSize(scenario.pipeline->axis))
                        : t.microbatches;
  if (devices > 0) {
    const double perDevice = static_cast<double>(t.micro_batch) / devices;
    y << "per_device_batch_size: " << number(perDevice) << "  # " << t.micro_batch << " sequences per micro-batch / "
      << a.mesh.devices.size() << " devices\n";
    if (static_cast<std::int64_t>(devices * perDevice) != t.micro_batch)
      out.notes.push_back("per_device_batch_size: MaxText truncates devices x per_device_batch_size to an integer; "
                          "it gives " +
                          std::to_string(static_cast<std::int64_t>(devices * perDevice)) + " sequences, not " +
                          std::to_string(t.micro_batch));
  }
  y << "gradient_accumulation_steps: " << accumulation << "\n"
    << "max_target_length: " << t.seq_len << "\n"
    << "remat_policy: " << yamlQuoted(maxTextRemat(t.recompute, out.notes)) << "\n";
  // The weight matmuls' format: MaxText's AQT quantization for int8 and fp8.
  if (isEightBit(t.precision))
    y << "quantization: " << yamlQuoted(std::string(precisionName(t.precision))) << "\n";
  else if (t.precision == Precision::Fp16)
    out.notes.push_back("precision fp16: MaxText trains in bfloat16 (dtype); the export leaves it at its default");

  std::vector<std::string> batch;
  for (const auto& b : t.batch_axes)
    if (const auto m = maxTextAxisOf(b); !m.empty()) batch.push_back(m);
  if (!scenario.rules.preset.empty() && scenario.rules.rules.empty()) {
    y << "# The " << yamlCommentText(yamlQuoted(scenario.rules.preset))
      << " preset's rules in MaxText's logical axis names.\n"
      << "logical_axis_rules: [\n";
    for (const auto& [logical, axes] : presetLogicalRules(scenario.rules.preset, batch))
      y << "  [" << yamlQuoted(logical) << ", " << yamlList(axes) << "],\n";
    y << "]\n";
  } else {
    out.notes.push_back("logical_axis_rules: the workspace's own path rules have no MaxText logical-axis form; "
                        "MaxText's logical_axis_rules apply (compare the specs with the JAX export)");
  }
  if (scenario.pipeline)
    out.notes.push_back("pipeline: MaxText's own pipeline (ici/dcn_pipeline_parallelism on 'stage') is not jaxpp's "
                        "MPMD schedule; the schedule is not exported");
  for (const auto& n : out.notes) y << "# note: " << yamlCommentText(n) << "\n";
  out.yaml = y.str();
  return out;
}

} // namespace shardscope
