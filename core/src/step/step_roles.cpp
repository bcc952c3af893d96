// SPDX-License-Identifier: Apache-2.0
// What things are, for the step estimate: each parameter's role (from its path and rank, once per
// model), the (group, role) pairs of a shard plan, what each mesh axis does for this layout
// (splits the tokens, or holds the routed experts), and the architecture figures with defaults.
#include "step_internal.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <set>
#include <string_view>

namespace shardscope {

namespace {

// The '.'- or '/'-separated segments of a path, without copies.
template <class F>
void forEachSegment(std::string_view path, F&& f) {
  std::size_t start = 0;
  for (std::size_t i = 0; i <= path.size(); ++i)
    if (i == path.size() || path[i] == '.' || path[i] == '/') {
      if (i > start) f(path.substr(start, i - start));
      start = i + 1;
    }
}

bool isNumber(std::string_view s) {
  return !s.empty() && std::all_of(s.begin(), s.end(), [](char c) { return c >= '0' && c <= '9'; });
}

std::int64_t parseIndex(std::string_view s) {
  std::int64_t v = 0;
  for (char c : s) {
    if (v > (std::int64_t{1} << 40)) return -1;
    v = v * 10 + (c - '0');
  }
  return v;
}

bool contains(std::string_view s, std::string_view part) { return s.find(part) != std::string_view::npos; }

// A stack of scanned layers (MaxText: layers, dense_layers, moe_layers, Gemma 4's local_layers, the
// NNX scanned_blocks).
bool isLayerStackAxis(std::string_view logical) {
  return logical == "layers" || logical.ends_with("_layers") || logical == "scanned_blocks";
}
bool isStackAxis(std::string_view logical) {
  return isLayerStackAxis(logical) || logical == "exp" || logical == "expert_only" || logical == "circular_repeats";
}
bool isModelWidthAxis(std::string_view logical) { return logical.starts_with("embed"); }
bool isHeadsAxis(std::string_view logical) { return logical.find("heads") != std::string_view::npos; }

} // namespace

MatmulForm matmulFormOf(const Param& p) {
  const std::size_t r = p.shape.size();
  MatmulForm f;
  f.dims.assign(r, MatmulDim::Stack);
  if (p.logical_axes.size() != r) {
    // [..., in, out]: leading dimensions are stacked copies (Hugging Face's stacked experts).
    if (r >= 2) {
      f.dims[r - 2] = MatmulDim::In;
      f.dims[r - 1] = MatmulDim::Out;
    }
    return f;
  }
  std::vector<std::size_t> matrix; // dimensions that are not stacked copies
  for (std::size_t d = 0; d < r; ++d)
    if (!isStackAxis(p.logical_axes[d])) matrix.push_back(d);
  if (matrix.size() < 2) return f;
  // Flax's DenseGeneral keeps a kernel as input features then output features. The model width
  // is one side: first (query, key, value, the MLP's input) or last (the attention and MLP
  // outputs); a projection between two other widths (MLA's up-projections) takes one input axis.
  for (std::size_t d : matrix) f.dims[d] = MatmulDim::Out;
  if (isModelWidthAxis(p.logical_axes[matrix.front()]) || !isModelWidthAxis(p.logical_axes[matrix.back()])) {
    f.dims[matrix.front()] = MatmulDim::In;
  } else {
    for (std::size_t d : matrix) f.dims[d] = MatmulDim::In;
    f.dims[matrix.back()] = MatmulDim::Out;
  }
  return f;
}

namespace {

// Whether a weight takes part in a matmul: at least an input and an output dimension.
bool isMatrix(const MatmulForm& f) {
  return std::find(f.dims.begin(), f.dims.end(), MatmulDim::In) != f.dims.end() &&
         std::find(f.dims.begin(), f.dims.end(), MatmulDim::Out) != f.dims.end();
}

} // namespace

bool isRoutedExpertParam(const Param& p) {
  bool experts = false, shared = false;
  forEachSegment(p.path, [&](std::string_view seg) {
    if (seg == "experts") experts = true;
    if (contains(seg, "shared_expert")) shared = true;
  });
  // MaxText names the expert dimension "exp" among a weight's logical axes.
  for (const auto& a : p.logical_axes) experts = experts || a == "exp";
  return experts && !shared;
}

ParamRoles classifyParams(const Model& model) {
  static constexpr std::array<std::string_view, 8> kEmbeddings{
      "embed_tokens",   "wte", "wpe", "word_embeddings", "tok_embeddings", "token_embedder", "position_embeddings",
      "embed_positions"};
  static constexpr std::array<std::string_view, 3> kOutputs{"lm_head", "embed_out", "logits_dense"};
  static constexpr std::array<std::string_view, 3> kLayerLists{"layers", "h", "blocks"};
  ParamRoles out;
  out.role.reserve(model.params.size());
  out.form.reserve(model.params.size());
  std::set<std::int64_t> moeLayers;
  std::map<std::string, double> stackedMoe; // expert block -> layers it holds
  std::int64_t maxLayer = -1;
  bool hasOutput = false;
  for (const auto& p : model.params) {
    bool embedding = false, output = false, attention = false;
    const bool routedExpert = isRoutedExpertParam(p);
    std::int64_t layer = -1;
    std::string_view previous;
    forEachSegment(p.path, [&](std::string_view seg) {
      if (std::find(kEmbeddings.begin(), kEmbeddings.end(), seg) != kEmbeddings.end()) embedding = true;
      if (std::find(kOutputs.begin(), kOutputs.end(), seg) != kOutputs.end()) output = true;
      if (contains(seg, "attn") || contains(seg, "attention")) attention = true;
      if (layer < 0 && isNumber(seg) &&
          std::find(kLayerLists.begin(), kLayerLists.end(), previous) != kLayerLists.end())
        layer = parseIndex(seg);
      if (layer < 0 && seg.starts_with("layers_") && isNumber(seg.substr(7))) layer = parseIndex(seg.substr(7));
      previous = seg;
    });
    // Logical axis names say the same where a source gives them (MaxText: "exp" for routed
    // experts, "heads" for attention, "vocab" last for the output projection).
    for (std::size_t d = 0; d < p.logical_axes.size(); ++d) {
      const std::string_view a = p.logical_axes[d];
      if (isHeadsAxis(a)) attention = true;
      if (a == "vocab" && d + 1 == p.logical_axes.size() && !embedding) output = true;
    }
    MatmulForm form = matmulFormOf(p);
    ParamRole role = ParamRole::None;
    // A bias is added, never multiplied, whatever its rank (gpt-oss's per-expert biases [E, ffn]).
    const std::string_view last = std::string_view(p.path).substr(p.path.find_last_of("./") + 1);
    if (isMatrix(form) && !last.ends_with("bias")) {
      if (embedding)
        role = ParamRole::Embedding;
      else if (output)
        role = ParamRole::Output;
      else if (routedExpert)
        role = ParamRole::RoutedExpert;
      else if (attention)
        role = ParamRole::Attention;
      else
        role = ParamRole::Mlp;
    }
    if (role == ParamRole::Output) hasOutput = true;
    if (role == ParamRole::RoutedExpert && !p.logical_axes.empty()) {
      // Named axes: the layers a stacked expert tensor holds, per expert block (its path's parent).
      double copies = 1;
      for (std::size_t d = 0; d < p.logical_axes.size(); ++d)
        if (isLayerStackAxis(p.logical_axes[d])) copies *= static_cast<double>(p.shape[d]);
      auto& block = stackedMoe[std::string(p.path.substr(0, p.path.rfind('/')))];
      block = std::max(block, copies);
    } else if (role == ParamRole::RoutedExpert && layer >= 0) {
      moeLayers.insert(layer);
    }
    maxLayer = std::max(maxLayer, layer);
    out.role.push_back(role);
    auto known = std::find(out.forms.begin(), out.forms.end(), form);
    if (known == out.forms.end()) {
      if (out.forms.size() >= 65535) throwValueError("more than 65535 distinct parameter forms");
      out.forms.push_back(std::move(form));
      known = out.forms.end() - 1;
    }
    out.form.push_back(static_cast<std::uint16_t>(known - out.forms.begin()));
  }
  out.moe_layers = static_cast<std::int64_t>(moeLayers.size());
  for (const auto& [block, copies] : stackedMoe) out.moe_layers += static_cast<std::int64_t>(copies);
  // Stacked or unnamed experts without a layer index: one MoE block per routed-expert layer count.
  if (out.moe_layers == 0 && std::find(out.role.begin(), out.role.end(), ParamRole::RoutedExpert) != out.role.end())
    out.moe_layers = model.config ? model.config->num_layers - model.config->first_dense_layers : 1;
  out.layers = model.config && model.config->num_layers > 0 ? model.config->num_layers : maxLayer + 1;
  out.tied_output = !hasOutput;
  return out;
}

namespace step {

std::vector<int> axesOf(const ArrayLayout& layout) {
  std::vector<int> out;
  for (std::size_t a = 0; a < layout.axis_used.size(); ++a)
    if (layout.axis_used[a]) out.push_back(static_cast<int>(a));
  return out;
}

std::vector<GroupUse> groupUses(const ShardGroups& plan, const ParamRoles& roles) {
  constexpr std::size_t kRoles = 6;
  // Nearly every (group, role) has one form: count per (group, role) in a flat table, and keep the
  // forms of a pair in a short list.
  struct Slot {
    std::vector<std::pair<std::uint16_t, std::int64_t>> forms;
  };
  std::vector<Slot> slots(plan.plans.size() * kRoles);
  for (std::size_t i = 0; i < plan.group_of.size(); ++i) {
    auto& forms = slots[plan.group_of[i] * kRoles + static_cast<std::size_t>(roles.role[i])].forms;
    const std::uint16_t form = i < roles.form.size() ? roles.form[i] : 0;
    auto it = std::find_if(forms.begin(), forms.end(), [&](const auto& f) { return f.first == form; });
    if (it == forms.end())
      forms.emplace_back(form, 1);
    else
      ++it->second;
  }
  std::vector<GroupUse> out;
  for (std::size_t k = 0; k < slots.size(); ++k)
    for (const auto& [form, count] : slots[k].forms)
      out.push_back({static_cast<std::uint32_t>(k / kRoles), static_cast<ParamRole>(k % kRoles), form, count});
  return out;
}

MeshRoles meshRoles(const Mesh& mesh, const StepOptions& o, const ShardGroups& plan,
                    const std::vector<GroupUse>& uses) {
  MeshRoles r;
  const Shape shape = mesh.shape();
  const std::size_t n = shape.size();
  r.size.assign(shape.begin(), shape.end());
  r.name = mesh.axis_names;
  r.name.resize(n);
  r.batch.assign(n, false);
  r.seq.assign(n, false);
  r.data.assign(n, false);
  r.zero.assign(n, false);
  r.expert.assign(n, false);
  for (std::size_t a = 0; a < n; ++a) {
    const auto& name = r.name[a];
    r.batch[a] = std::find(o.batch_axes.begin(), o.batch_axes.end(), name) != o.batch_axes.end();
    r.seq[a] = !r.batch[a] && std::find(o.seq_axes.begin(), o.seq_axes.end(), name) != o.seq_axes.end();
    r.data[a] = r.batch[a] || r.seq[a];
    r.zero[a] = r.batch[a] || (o.framework == Framework::Megatron && r.seq[a]);
    if (r.batch[a]) r.batch_degree *= r.size[a];
    if (r.seq[a]) r.seq_degree *= r.size[a];
  }
  // An axis that shards routed experts and no other weight exists to spread the experts.
  std::vector<bool> byExperts(n, false), byOthers(n, false);
  for (const auto& u : uses) {
    if (u.role == ParamRole::None) continue;
    const auto& used = plan.plans[u.group].layout.axis_used;
    for (std::size_t a = 0; a < n && a < used.size(); ++a)
      if (used[a]) (u.role == ParamRole::RoutedExpert ? byExperts : byOthers)[a] = true;
  }
  for (std::size_t a = 0; a < n; ++a) r.expert[a] = byExperts[a] && !byOthers[a] && r.size[a] > 1;
  auto ceilDiv = [](std::int64_t x, std::int64_t d) { return static_cast<double>((x + d - 1) / d); };
  r.tokens_local = ceilDiv(o.micro_batch, r.batch_degree) * ceilDiv(o.seq_len, r.seq_degree);
  r.tokens_per_micro_batch = static_cast<double>(o.micro_batch) * static_cast<double>(o.seq_len);
  return r;
}

Architecture architectureOf(const ModelConfig& c) {
  Architecture a;
  a.layers = c.num_layers;
  a.hidden = static_cast<double>(c.hidden);
  const double heads = static_cast<double>(std::max<std::int64_t>(1, c.heads));
  const double headDim = c.head_dim > 0 ? static_cast<double>(c.head_dim) : a.hidden / heads;
  a.kv_heads = c.kv_heads > 0 ? c.kv_heads : std::max<std::int64_t>(1, c.heads);
  a.heads = heads;
  if (c.usesMla()) {
    a.mla = true;
    a.q_dim = heads * static_cast<double>(c.qk_nope_head_dim + c.qk_rope_head_dim);
    a.v_dim = heads * static_cast<double>(c.v_head_dim);
    a.kv_dim = static_cast<double>(c.kv_lora_rank + c.qk_rope_head_dim);
  } else {
    a.q_dim = a.v_dim = heads * headDim;
    a.kv_dim = 2.0 * static_cast<double>(a.kv_heads) * headDim;
  }
  a.head_dim = headDim;
  a.experts = static_cast<double>(c.experts);
  a.experts_per_token = static_cast<double>(c.experts_per_token);
  a.ffn = static_cast<double>(c.ffn);
  a.moe_ffn = static_cast<double>(c.moe_ffn);
  a.vocab = static_cast<double>(c.vocab);
  a.shared_experts = c.shared_experts > 0;
  a.gated_mlp = c.gatedMlp();
  a.parallel_block = c.parallel_block;
  return a;
}

} // namespace step
} // namespace shardscope
