// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli help TOPIC`: short references for the eval ops and the file formats; the full
// texts are in docs/ (installed under share/doc/shardscope).
#include "cli.hpp"

#include "shardscope/analysis/mesh_presets.hpp"
#include "shardscope/cost/workload.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/sharding/logical_axes.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <map>
#include <ostream>

namespace shardscope::cli {

namespace {

void helpEval(std::ostream& out) {
  out << "shardscope-cli eval: JSON Lines on stdin, one answer line per request on stdout, in order.\n"
         "  request  {\"op\": NAME, ...fields named like the reference function's arguments}\n"
         "  success  {\"ok\": true, \"result\": ..., \"warnings\"?: [...]}\n"
         "  failure  {\"ok\": false, \"error\": {\"type\": "
         "\"ValueError\"|\"NotImplementedError\"|\"AssertionError\"|..., \"message\": ...}}\n"
         "Devices are {\"id\", \"platform\", \"device_kind\", \"coords\": [x,y,z]|null, \"core_on_chip\", "
         "\"process_index\",\n"
         "\"slice_index\"}; \"device_kind\"/\"platform\" may be given once at top level. A line that is not JSON\n"
         "answers an error and the next line is still read; so does a line longer than 64 MB (64000000 bytes).\n\nops:";
  for (const auto& name : evalOpNames()) out << " " << name;
  out << "\n\nExample:\n  echo '{\"op\": \"analyze\", \"scenario\": {}}' | shardscope-cli eval\n"
         "Details: docs/eval.md, docs/eval-shard.md, docs/eval-comm.md, docs/formats.md\n";
}

void helpTopology(std::ostream& out) {
  out << "Topologies: CHIP:DIMS[:slices=N][:cores=C][:host=AxBxC][:interleaved][:kind=NAME]\n"
         "  v4:4x4x8   v5p:16x20x28   v5e:16x16   v6e:8x16   v3:4x4   7x:2x2x4   v4:4x4x4:slices=2\n"
         "  h100:32x8 (32 hosts of 8 GPUs)   gb200:2x72   cpu:8\n"
         "Chips: v2 v3 v4 v4i v5e v5p v6e 7x 8i h100 a100 gb200 cpu. Devices come in jax.devices() order\n"
         "(process-tiled hosts of 2x2x1 chips, x-fastest ids). `shardscope-cli topology KIND XxYxZ` prints them.\n";
}

void helpMesh(std::ostream& out) {
  out << "Mesh strings: name:size pairs, one size may be -1 (absorbs the remaining devices):\n"
         "  \"fsdp:-1,tp:4\"   \"dp:2,fsdp:16,tp:4\"\n"
         "Sizes are per slice; with several slices the first axis also spans the slices over DCN\n"
         "(every command and the app place a mesh the same way).\n"
         "Axes are ordered by increasing network intensity, as in JAX: the last axis gets the\n"
         "fastest links. In a workspace each axis also has a DCN part (across slices) and a type.\n"
         "Or a preset name:\n";
  for (const auto& preset : meshPresets()) out << "  " << preset.name << ": " << preset.description << "\n";
}

void helpModels(std::ostream& out) {
  out << "Models: a preset name or a file.\n  presets:";
  for (const auto& name : presetModelNames()) out << " " << name;
  out << "\n  files:   our JSON ({\"name\", \"params\": [{\"path\", \"shape\", \"dtype\"}]}), *.safetensors (header "
         "only),\n"
         "           model.safetensors.index.json (+ shard headers), a Hugging Face config.json\n"
         "           (llama, llama4, mistral, mixtral, qwen2, qwen3, qwen3_moe, qwen3_next, gemma, gemma2, gemma3,\n"
         "           gpt2, gpt_oss, olmo3, deepseek_v2/v3, kimi_k2)\n"
         "Details: docs/formats.md\n";
}

void helpRules(std::ostream& out) {
  out << "Rule sets: ordered [regex, spec] pairs; the first regex found in a parameter's path wins.\n"
         "Specs: [null, \"tp\", [\"fsdp\", \"sp\"]] or P(None, 'tp', ('fsdp', 'sp')).\n  presets:\n";
  for (const auto& p : rulePresets())
    out << "    " << p.name << std::string(p.name.size() < 9 ? 9 - p.name.size() : 1, ' ') << p.description << "\n";
  out << "A dimension whose axes are missing or do not divide it falls back to replicated (eformer's\n"
         "correction); Shardscope reports each such fallback on its parameter.\n"
         "Rule files hold a whole rule set: {\"rules\": [[\"embed_tokens\", [\"tp\", null]], [\".*\", []]]}\n"
         "(or the bare list). Use one with `shardscope-cli shard --rules FILE`, or File > Import Rules\n"
         "in the app (File > Export Rules writes the rules in effect). Details: docs/formats.md\n";
}

void helpWorkspace(std::ostream& out) {
  out << "Workspaces (*.shardscope.json) hold a whole scenario; every field is optional:\n"
         "{\"format\": \"shardscope-workspace\", \"version\": 1, \"name\": \"...\",\n"
         " \"topology\": {\"chip\": \"v4\", \"shape\": [4,4,8], \"slices\": 1, \"cores_per_chip\": 0},\n"
         " \"mesh\": {\"axes\": [{\"name\": \"dp\", \"ici\": 2, \"dcn\": 1, \"type\": \"Explicit\"}, ...],\n"
         "          \"allow_split_physical_axes\": true, \"contiguous_submeshes\": false},\n"
         " \"model\": {\"preset\": \"llama-3.1-8b\"} | {\"path\": \"...\"} | {\"params\": [...]} | {\"config\": "
         "{...}},\n"
         " \"rules\": {\"preset\": \"fsdp-tp\"} | {\"rules\": [[regex, spec], ...], \"drop_size_one_axes\": false},\n"
         " \"training\": {\"workload\": \"training\"|\"serving\", \"param_dtype\": \"bfloat16\", \"optimizer\": "
         "\"adamw\"|\"adafactor\"|\"sgd-momentum\",\n"
         "              \"master_weights_fp32\": false, \"zero_stage\": 0|1|2, \"micro_batch\": 1, \"seq_len\": 4096, "
         "\"recompute\": \"none\"|\"selective\"|\"full\"|\"minimal\"|...,\n"
         "              \"batch_axes\": [\"dp\",\"fsdp\"], \"seq_axes\": [], \"serve_batch\": 8, \"context_len\": "
         "8192, \"kv_dtype\": \"bfloat16\",\n"
         "              \"hbm_bytes\": null, \"microbatches\": 1, \"sequence_parallel\": false,\n"
         "              \"framework\": \"generic\"|\"maxtext\"|\"megatron\", \"attention\": "
         "\"flash\"|\"materialized\",\n"
         "              \"precision\": \"bf16\"|\"fp16\"|\"fp8\"|\"int8\" (the layers' matmuls; 8-bit at the chip's "
         "published peak),\n"
         "              \"grad_dtype\": absent = the framework's (megatron + bfloat16: float32)},\n"
         " \"links\": {\"ici_bandwidth\": 4.5e10, \"ici_latency\": 1e-6, \"uplink_bandwidth\": 6.25e9, "
         "\"uplink_latency\": 1e-5,\n"
         "           \"twisted\": false},   (links: overrides of the chip's figures)\n"
         " \"performance\": {\"flops_fraction\": 0.68, \"link_fraction\": 0.8, \"hbm_fraction\": 0.9, "
         "\"attention_fraction\": 0.34,\n"
         "                 \"hop_latency\": 1e-6, \"overlap_tensor_comm\": false, \"context_attention\": "
         "\"ring\" | \"all_gather\"},\n"
         "                 (step-time calibration: fractions in [0.01, 1], hop_latency in [1e-9, 1e-3] s;\n"
         "                 overlap and context_attention absent = the framework's default; absent = the\n"
         "                 chip's default)\n"
         " \"pipeline\": {\"axis\": \"pp\", \"schedule\": \"Std1F1B\", \"num_stages\": 4, \"microbatches\": 8,\n"
         "              \"layers_per_stage\": [8, 8, 8, 8], \"fuse_steady_state\": false}}\n"
         "   (pipeline: jaxpp's MPMD pipeline over one mesh axis; absent = none. Schedules: GPipe, Std1F1B,\n"
         "    Eager1F1B, ZeroBubble, Interleaved1F1B, KimiK2, DualPipeV. num_stages defaults to the axis\n"
         "    size (twice it for DualPipeV), microbatches to twice the stages, layers_per_stage to an even\n"
         "    split whose remainder goes to the stages just before the last. See `pipeline --help`.)\n";
  out << "Remat policies (training.recompute):\n";
  for (const auto& [name, policy] : kRecomputeNames)
    out << "  " << name << std::string(name.size() < 22 ? 22 - name.size() : 1, ' ') << describeRecompute(policy, false)
        << "\n";
  out << "  (In an XLA program, MaxText's or any on TPU, the MLP output projection is neither kept nor\n"
         "   re-run: JAX's remat keeps and re-runs only what the backward reads.)\n";
  out << "Details: docs/workspace.md, docs/step-time.md\n";
}

void helpSearch(std::ostream& out) {
  out << "Layout search (`shardscope-cli search`, eval op `search`): which layout should I run?\n"
         "Candidates: every split of the device count over the axes (ICI and DCN parts; size-1 axes\n"
         "dropped), every axis order JAX places differently (orders that place alike are merged), x rule\n"
         "presets x ZeRO stages x recompute policies. Each is placed, sharded, sized and timed by the\n"
         "full analysis, then ranked by step time (s) among those that fit in HBM, less memory first on\n"
         "a tie. Rejected candidates are counted by reason: the batch does not divide over dp x fsdp x ep,\n"
         "JAX cannot place it, the rules or model failed, it does not fit in HBM, tp beyond the model's\n"
         "heads (refused unanalysed), over the candidate limit. Each family (the axes > 1) gets one\n"
         "line: why its best member lost (its step time against the winner's, and what bounds it).\n"
         "  shardscope-cli search ws.json --axes fsdp,tp --max tp=8 --top 10\n"
         "  echo '{\"op\": \"search\", \"scenario\": {}, \"top\": 5}' | shardscope-cli eval\n"
         "Details: docs/eval.md (search), docs/step-time.md\n";
}

void helpHlo(std::ostream& out) {
  out << "XLA HLO sharding strings (sharding={...} in an HLO dump), both ways:\n"
         "  {replicated}  {manual}  {maximal device=N}  {devices=[2,1,4]0,1,2,3,4,5,6,7} (V1 list)\n"
         "  {devices=[4,2]<=[8]}  {devices=[2,4]<=[4,2]T(1,0)} (V2: iota, reshape, transpose)\n"
         "  ... last_tile_dim_replicate   ... last_tile_dims={manual, replicated}   tuples {{..}, {..}}\n"
         "Device ids are positions in the computation's device assignment (a JAX mesh: mesh.devices.flat).\n"
         "Dimension i of size n in t tiles is cut in blocks of ceil(n/t): [b*c, min((b+1)*c, n)), the last\n"
         "ragged, blocks past the end empty. Bad text: one error with the column and what was expected.\n"
         "  shardscope-cli decode-sharding '{devices=[4,2]<=[8]}' --shape 8192,28672 [--topology v4:2x2x2]\n"
         "  echo '{\"op\": \"hlo_sharding\", \"sharding\": \"{devices=[4,2]<=[8]}\", \"shape\": [8,8]}' | "
         "shardscope-cli eval\n"
         "  shardscope-cli shard ws.json --format json   (each parameter's \"hlo_sharding\", as JAX lowers it)\n"
         "Details: docs/hlo-sharding.md\n";
}

using Topic = void (*)(std::ostream&);
const std::map<std::string, Topic>& topics() {
  static const std::map<std::string, Topic> table = {
      {"eval", &helpEval},   {"topology", &helpTopology}, {"mesh", &helpMesh},           {"models", &helpModels},
      {"rules", &helpRules}, {"search", &helpSearch},     {"workspace", &helpWorkspace}, {"hlo", &helpHlo}};
  return table;
}

} // namespace

int runHelpTopic(const Args& args, Streams io) {
  auto it = args.empty() ? topics().end() : topics().find(args[0]);
  if (it == topics().end()) {
    (args.empty() ? io.out : io.err) << (args.empty() ? "" : "unknown help topic '" + args[0] + "'\n")
                                     << "help topics:";
    for (const auto& [name, fn] : topics()) (args.empty() ? io.out : io.err) << " " << name;
    (args.empty() ? io.out : io.err) << "\n";
    return args.empty() ? 0 : 2;
  }
  it->second(io.out);
  return 0;
}

} // namespace shardscope::cli
