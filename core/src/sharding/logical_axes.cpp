// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/logical_axes.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>

namespace shardscope {

namespace {

enum class Role { DP, FSDP, TP, SP, EP };

const std::string& roleAxis(const PartitionAxis& p, Role r) {
  switch (r) {
  case Role::DP:
    return p.data_parallel;
  case Role::FSDP:
    return p.fully_sharded_data_parallel;
  case Role::TP:
    return p.tensor_parallel;
  case Role::SP:
    return p.sequence_parallel;
  case Role::EP:
    return p.expert_parallel;
  }
  return p.data_parallel;
}

// Lower case, eformer's "__NAME__" wrapping removed.
std::string normalize(std::string_view s) {
  std::string out;
  for (char c : s) out += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  while (out.size() > 4 && out.starts_with("__") && out.ends_with("__")) out = out.substr(2, out.size() - 4);
  return out;
}

// eformer PartitionAxis defaults (training mode), with their aliases.
const std::vector<std::pair<std::vector<std::string>, std::vector<Role>>>& logicalTable() {
  static const std::vector<std::pair<std::vector<std::string>, std::vector<Role>>> table = {
      {{"batch"}, {Role::FSDP, Role::DP}},
      {{"sequence", "length"}, {Role::SP}},
      {{"query_sequence", "query_length"}, {Role::SP}},
      {{"key_sequence", "kv_sequence", "kv_length"}, {Role::SP}},
      {{"hidden", "embed", "hidden_state"}, {Role::TP}},
      {{"heads", "head"}, {Role::TP}},
      {{"kv_heads", "kv_head"}, {Role::TP}},
      {{"mlp", "mlp_intermediate", "intermediate"}, {Role::TP}},
      {{"vocab"}, {Role::TP}},
      {{"experts", "expert"}, {Role::EP}},
      {{"expert_gate"}, {}},
      {{"head_dim"}, {}},
      {{"kv_head_dim"}, {}},
      {{"bias_head_sequence", "bias_head_seq"}, {}},
      {{"bias_key_sequence", "bias_kv_seq"}, {}},
      {{"dp", "data_parallel"}, {Role::DP}},
      {{"fsdp", "fully_sharded_data_parallel"}, {Role::FSDP}},
      {{"tp", "tensor_parallel"}, {Role::TP}},
      {{"sp", "sequence_parallel"}, {Role::SP}},
      {{"ep", "expert_parallel"}, {Role::EP}},
      {{"_", "", "empty", "none"}, {}},
  };
  return table;
}

const std::vector<Role>* builtin(const std::string& key) {
  for (const auto& [names, roles] : logicalTable())
    if (std::find(names.begin(), names.end(), key) != names.end()) return &roles;
  return nullptr;
}

void resolveInto(const PartitionAxis& p, std::string_view logical, std::vector<std::string>& out, int depth) {
  if (depth > 16) throwValueError("Cyclic semantic axis registration involving '" + std::string(logical) + "'");
  auto add = [&](const std::string& axis) {
    if (std::find(out.begin(), out.end(), axis) == out.end()) out.push_back(axis);
  };
  auto custom = p.custom.find(std::string(logical));
  if (custom == p.custom.end()) custom = p.custom.find(normalize(logical));
  if (custom != p.custom.end()) {
    for (const auto& element : custom->second) {
      // An element that is itself a logical name resolves; anything else is a mesh axis.
      const std::string key = normalize(element);
      if (p.custom.count(element) || p.custom.count(key) || builtin(key))
        resolveInto(p, element, out, depth + 1);
      else
        add(element);
    }
    return;
  }
  const auto* roles = builtin(normalize(logical));
  if (!roles) throwValueError("Unknown semantic axis name: " + pythonStrRepr(logical));
  for (Role r : *roles) add(roleAxis(p, r));
}

// --- presets --------------------------------------------------------------------------------

// What a weight dimension holds.
enum class Dim { None, Embed, Heads, KvHeads, Mlp, Vocab, Experts, ExpertEmbed };

struct PresetPattern {
  const char* pattern; // '/' stands for either separator
  std::vector<Dim> dims;
};

const std::vector<PresetPattern>& presetPatterns() {
  using D = Dim;
  static const std::vector<PresetPattern> patterns = {
      // Embeddings and heads ([vocab, embed] in HF and flax alike; lm_head kernel is [in, out]).
      {"(^|/)(embed_tokens|wte|word_embeddings|tok_embeddings)/(weight|embedding)$", {D::Vocab, D::Embed}},
      {"(^|/)wpe/(weight|embedding)$", {D::None, D::Embed}},
      {"(^|/)lm_head/weight$", {D::Vocab, D::Embed}},
      {"(^|/)lm_head/kernel$", {D::Embed, D::Vocab}},
      // Attention, HF [out, in].
      {"/q_proj/weight$", {D::Heads, D::Embed}},
      {"/(k_proj|v_proj)/weight$", {D::KvHeads, D::Embed}},
      {"/o_proj/weight$", {D::Embed, D::Heads}},
      // Attention, flax [in, out].
      {"/q_proj/kernel$", {D::Embed, D::Heads}},
      {"/(k_proj|v_proj)/kernel$", {D::Embed, D::KvHeads}},
      {"/o_proj/kernel$", {D::Heads, D::Embed}},
      // DeepSeek multi-head latent attention: the low-rank sides stay whole.
      {"/q_a_proj/weight$", {D::None, D::Embed}},
      {"/q_b_proj/weight$", {D::Heads, D::None}},
      {"/kv_a_proj_with_mqa/weight$", {D::None, D::Embed}},
      {"/kv_b_proj/weight$", {D::Heads, D::None}},
      // GPT-2 Conv1D weights are [in, out].
      {"/attn/c_attn/weight$", {D::Embed, D::Heads}},
      {"/attn/c_proj/weight$", {D::Heads, D::Embed}},
      {"/mlp/c_fc/weight$", {D::Embed, D::Mlp}},
      {"/mlp/c_proj/weight$", {D::Mlp, D::Embed}},
      // Stacked experts [E, ...]: flax kernels and fused tensors are [E, in, out], HF weights [E, out, in].
      {"/experts/(gate_proj|up_proj|w1|w3)/kernel$", {D::Experts, D::Embed, D::Mlp}},
      {"/experts/(down_proj|w2)/kernel$", {D::Experts, D::Mlp, D::Embed}},
      {"/experts/gate_up_proj$", {D::Experts, D::Embed, D::Mlp}},
      {"/experts/down_proj$", {D::Experts, D::Mlp, D::Embed}},
      {"/experts/(gate_proj|up_proj|w1|w3)/weight$", {D::Experts, D::Mlp, D::Embed}},
      {"/experts/(down_proj|w2)/weight$", {D::Experts, D::Embed, D::Mlp}},
      // One tensor per expert (HF checkpoints), [out, in].
      {"/experts/\\d+/(gate_proj|up_proj|w1|w3)/weight$", {D::Mlp, D::ExpertEmbed}},
      {"/experts/\\d+/(down_proj|w2)/weight$", {D::ExpertEmbed, D::Mlp}},
      // MoE router [n_experts, embed].
      {"/(mlp|block_sparse_moe)/gate/weight$", {D::None, D::Embed}},
      // Dense MLP and shared experts.
      {"/(gate_proj|up_proj)/weight$", {D::Mlp, D::Embed}},
      {"/down_proj/weight$", {D::Embed, D::Mlp}},
      {"/(gate_proj|up_proj)/kernel$", {D::Embed, D::Mlp}},
      {"/down_proj/kernel$", {D::Mlp, D::Embed}},
      // Sequence-classification head [labels, embed].
      {"(^|/)score/weight$", {D::None, D::Embed}},
      // Norms, biases, scalars and anything else: replicated.
      {".*", {}},
  };
  return patterns;
}

struct Preset {
  const char* name;
  const char* description;
  std::vector<Role> embed, model, experts, expertEmbed; // model = heads, kv_heads, mlp, vocab
};

const std::vector<Preset>& presets() {
  using R = Role;
  static const std::vector<Preset> table = {
      {"dp", "pure data parallel: every parameter replicated on every device", {}, {}, {}, {}},
      {"fsdp",
       "FSDP / ZeRO-3: the model-width dimension of every weight over (fsdp, sp)",
       {R::FSDP, R::SP},
       {},
       {},
       {R::FSDP, R::SP}},
      {"tp", "Megatron tensor parallel: heads, MLP and vocabulary dimensions over tp", {}, {R::TP}, {}, {}},
      {"fsdp-tp",
       "2-D: model width over (fsdp, sp), heads/MLP/vocabulary over tp",
       {R::FSDP, R::SP},
       {R::TP},
       {},
       {R::FSDP, R::SP}},
      {"ep",
       "expert parallel for MoE: experts over ep, the rest as fsdp-tp",
       {R::FSDP, R::SP},
       {R::TP},
       {R::EP},
       {R::EP, R::FSDP, R::SP}},
      {"sp",
       "sequence parallel: the sp group shards the model width like FSDP, tp the heads/MLP/vocabulary",
       {R::SP},
       {R::TP},
       {},
       {R::SP}},
  };
  return table;
}

const Preset& findPreset(std::string_view name) {
  std::string key = normalize(name);
  std::replace(key.begin(), key.end(), '_', '-');
  if (key == "2d" || key == "fsdp+tp" || key == "tp-fsdp") key = "fsdp-tp";
  if (key == "zero3" || key == "zero-3") key = "fsdp";
  if (key == "megatron") key = "tp";
  if (key == "data-parallel" || key == "replicated") key = "dp";
  for (const auto& p : presets())
    if (key == p.name) return p;
  std::string known;
  for (const auto& p : presets()) known += (known.empty() ? "" : ", ") + std::string(p.name);
  throwValueError("unknown rule preset '" + std::string(name) + "'; presets: " + known);
}

} // namespace

std::vector<std::string> PartitionAxis::resolve(std::string_view logical) const {
  std::vector<std::string> out;
  resolveInto(*this, logical, out, 0);
  return out;
}

PartitionSpec PartitionAxis::resolveSpec(const std::vector<std::vector<std::string>>& dims) const {
  std::vector<SpecEntry> entries;
  for (const auto& names : dims) {
    std::vector<std::string> axes;
    for (const auto& n : names)
      for (auto& a : resolve(n))
        if (std::find(axes.begin(), axes.end(), a) == axes.end()) axes.push_back(std::move(a));
    entries.push_back(SpecEntry::tuple(std::vector<std::optional<std::string>>(axes.begin(), axes.end())));
  }
  return PartitionSpec(std::move(entries));
}

std::vector<std::string> logicalAxisNames() {
  std::vector<std::string> out;
  for (const auto& [names, roles] : logicalTable())
    if (!names.front().empty() && names.front() != "_") out.push_back(names.front());
  return out;
}

std::vector<RulePresetInfo> rulePresets() {
  std::vector<RulePresetInfo> out;
  for (const auto& p : presets()) out.push_back({p.name, p.description});
  return out;
}

std::vector<PartitionRule> presetRules(std::string_view name, const PartitionAxis& axes, const MeshAxes* mesh) {
  const Preset& preset = findPreset(name);
  auto entryFor = [&](Dim d) {
    const std::vector<Role>* roles = nullptr;
    switch (d) {
    case Dim::None:
      break;
    case Dim::Embed:
      roles = &preset.embed;
      break;
    case Dim::Heads:
    case Dim::KvHeads:
    case Dim::Mlp:
    case Dim::Vocab:
      roles = &preset.model;
      break;
    case Dim::Experts:
      roles = &preset.experts;
      break;
    case Dim::ExpertEmbed:
      roles = &preset.expertEmbed;
      break;
    }
    std::vector<std::optional<std::string>> names;
    if (roles)
      for (Role r : *roles) {
        const std::string& axis = roleAxis(axes, r);
        if (mesh && mesh->index(axis) < 0) continue; // absent from this mesh: leave it out
        if (std::find(names.begin(), names.end(), std::optional<std::string>(axis)) == names.end())
          names.emplace_back(axis);
      }
    return SpecEntry::tuple(std::move(names));
  };
  std::vector<PartitionRule> rules;
  for (const auto& p : presetPatterns()) {
    std::string pattern;
    for (const char* c = p.pattern; *c; ++c) pattern += *c == '/' ? std::string("[./]") : std::string(1, *c);
    std::vector<SpecEntry> entries;
    for (Dim d : p.dims) entries.push_back(entryFor(d));
    PartitionSpec spec(std::move(entries));
    if (spec.isReplicated()) spec = PartitionSpec();
    rules.push_back({std::move(pattern), std::move(spec)});
  }
  return rules;
}

} // namespace shardscope
