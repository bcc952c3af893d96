// SPDX-License-Identifier: Apache-2.0
// Sharding engine timings on a Llama-3.1-405B-shaped parameter list (126 layers, hidden 16384,
// 128 query / 8 KV heads of 128, MLP 53248, vocabulary 128256; 1137 bf16 tensors with Hugging
// Face names) over the mesh fsdp:2240 x tp:4 (8960 chips, a v5p 16x20x28 slice).
//   sharding/pipeline/*   preset rules -> regex match -> correction -> layouts -> per-device bytes
//   sharding/match        regex matching only (rules compiled once)
//   sharding/layouts      correction + layouts + per-device totals for already matched specs
// The pipeline runs planShards (what the `shard` eval op and the memory estimate use).
// "uneven" variants skip eformer's correction and pad instead, so per-device tables are built.
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/sharding/partition_rules.hpp"
#include "shardscope/sharding/shard_plan.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <benchmark/benchmark.h>

#include <string>
#include <vector>

using namespace shardscope;

namespace {

std::vector<ParamLeaf> llama405b() {
  const std::int64_t hidden = 16384, heads = 128, kvHeads = 8, headDim = 128, ffn = 53248, vocab = 128256;
  const DType bf16 = parseDType("bfloat16");
  std::vector<ParamLeaf> p;
  p.push_back({"model.embed_tokens.weight", Shape{vocab, hidden}, bf16});
  for (int l = 0; l < 126; ++l) {
    const std::string pre = "model.layers." + std::to_string(l) + ".";
    p.push_back({pre + "self_attn.q_proj.weight", Shape{heads * headDim, hidden}, bf16});
    p.push_back({pre + "self_attn.k_proj.weight", Shape{kvHeads * headDim, hidden}, bf16});
    p.push_back({pre + "self_attn.v_proj.weight", Shape{kvHeads * headDim, hidden}, bf16});
    p.push_back({pre + "self_attn.o_proj.weight", Shape{hidden, heads * headDim}, bf16});
    p.push_back({pre + "mlp.gate_proj.weight", Shape{ffn, hidden}, bf16});
    p.push_back({pre + "mlp.up_proj.weight", Shape{ffn, hidden}, bf16});
    p.push_back({pre + "mlp.down_proj.weight", Shape{hidden, ffn}, bf16});
    p.push_back({pre + "input_layernorm.weight", Shape{hidden}, bf16});
    p.push_back({pre + "post_attention_layernorm.weight", Shape{hidden}, bf16});
  }
  p.push_back({"model.norm.weight", Shape{hidden}, bf16});
  p.push_back({"lm_head.weight", Shape{vocab, hidden}, bf16});
  return p;
}

const MeshAxes kMesh({"fsdp", "tp"}, {2240, 4});

DeviceTotals layOut(const std::vector<ParamLeaf>& params, const std::vector<RuleMatch>& matches, bool correct) {
  DeviceTotalsBuilder totals(kMesh);
  for (std::size_t i = 0; i < params.size(); ++i) {
    ShardingDiagnostics diags = matches[i].diagnostics;
    const PartitionSpec spec =
        correct ? correctSpec(kMesh, *params[i].shape, matches[i].spec, &diags) : matches[i].spec;
    LayoutOptions options;
    options.param = params[i].path;
    options.diagnostics = &diags;
    totals.add(layoutArray(kMesh, *params[i].shape, params[i].dtype, spec, options));
  }
  return totals.finish();
}

void pipeline(benchmark::State& state, bool correct) {
  const auto leaves = llama405b();
  std::vector<ShardParam> params;
  for (const auto& l : leaves) params.push_back({l.path, *l.shape, l.dtype, std::nullopt});
  std::int64_t maxBytes = 0;
  for (auto _ : state) {
    const RuleSet rules(presetRules("fsdp-tp", {}, &kMesh));
    ShardPlanOptions options;
    options.rules = &rules;
    options.correct = correct;
    const ShardPlan plan = planShards(kMesh, params, options);
    maxBytes = plan.totals.max_bytes;
    benchmark::DoNotOptimize(maxBytes);
  }
  state.counters["tensors"] = static_cast<double>(params.size());
  state.counters["devices"] = static_cast<double>(kMesh.deviceCount());
  state.counters["max_GiB_per_device"] = static_cast<double>(maxBytes) / (1024.0 * 1024.0 * 1024.0);
}

void BM_PipelineCorrected(benchmark::State& state) { pipeline(state, true); }
void BM_PipelineUneven(benchmark::State& state) { pipeline(state, false); }

void BM_Match(benchmark::State& state) {
  const auto params = llama405b();
  const RuleSet rules(presetRules("fsdp-tp", {}, &kMesh));
  for (auto _ : state) benchmark::DoNotOptimize(matchPartitionRules(rules, params));
}

void layouts(benchmark::State& state, bool correct) {
  const auto params = llama405b();
  const RuleSet rules(presetRules("fsdp-tp", {}, &kMesh));
  const auto matches = matchPartitionRules(rules, params);
  for (auto _ : state) benchmark::DoNotOptimize(layOut(params, matches, correct));
}
void BM_LayoutsCorrected(benchmark::State& state) { layouts(state, true); }
void BM_LayoutsUneven(benchmark::State& state) { layouts(state, false); }

} // namespace

BENCHMARK(BM_PipelineCorrected)->Name("sharding/pipeline/llama-3.1-405b/fsdp2240-tp4")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_PipelineUneven)
    ->Name("sharding/pipeline/llama-3.1-405b/fsdp2240-tp4/uneven")
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_Match)->Name("sharding/match/llama-3.1-405b")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayoutsCorrected)->Name("sharding/layouts/llama-3.1-405b/fsdp2240-tp4")->Unit(benchmark::kMillisecond);
BENCHMARK(BM_LayoutsUneven)->Name("sharding/layouts/llama-3.1-405b/fsdp2240-tp4/uneven")->Unit(benchmark::kMillisecond);
