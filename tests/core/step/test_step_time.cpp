// SPDX-License-Identifier: Apache-2.0
// The step engine on small hand-built cases, one per kind of collective (FSDP, DP, TP with and
// without sequence parallelism, EP all-to-all, a DCN axis), asserting bytes and counts per step
// worked out by hand in the comments; the work (model and hardware FLOPs); and its refusals.
#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/mesh/mesh_string.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/hardware/topology.hpp"

#include "core/cost/comm_test_support.hpp"

#include <catch2/catch.hpp>

#include <optional>

using namespace shardscope;

namespace {

constexpr double MiB = 1024.0 * 1024.0;

// One transformer layer: hidden 1024, 8 heads of 128, MLP 4096 (no gate), bf16. Attention
// projections are 1 Mi elements (2 MiB) each, the MLP matrices 4 Mi (8 MiB) each: 24 MiB in all.
Model tinyModel(bool norm) {
  Model m;
  m.name = "tiny";
  ModelConfig c;
  c.model_type = "llama";
  c.num_layers = 1;
  c.hidden = 1024;
  c.heads = 8;
  c.kv_heads = 8;
  c.head_dim = 128;
  c.ffn = 4096;
  m.config = c;
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
    m.params.push_back({std::string("model.layers.0.self_attn.") + p + ".weight", {1024, 1024}, "bfloat16"});
  m.params.push_back({"model.layers.0.mlp.up_proj.weight", {4096, 1024}, "bfloat16"});
  m.params.push_back({"model.layers.0.mlp.down_proj.weight", {1024, 4096}, "bfloat16"});
  if (norm) m.params.push_back({"model.layers.0.input_layernorm.weight", {1024}, "bfloat16"});
  return m;
}

// One MoE layer: the attention above, a router, and 4 experts of width 512, 2 per token.
Model tinyMoe() {
  Model m = tinyModel(false);
  m.params.resize(4);
  m.config->experts = 4;
  m.config->experts_per_token = 2;
  m.config->moe_ffn = 512;
  m.params.push_back({"model.layers.0.mlp.gate.weight", {4, 1024}, "bfloat16"});
  for (int e = 0; e < 4; ++e) {
    const std::string p = "model.layers.0.mlp.experts." + std::to_string(e);
    m.params.push_back({p + ".gate_proj.weight", {512, 1024}, "bfloat16"});
    m.params.push_back({p + ".up_proj.weight", {512, 1024}, "bfloat16"});
    m.params.push_back({p + ".down_proj.weight", {1024, 512}, "bfloat16"});
  }
  return m;
}

// A model, its shard plan under given specs, a mesh placed on a topology, and the axis reports.
struct Case {
  Model model;
  ParamRoles roles;
  ShardGroups plan;
  Mesh mesh;
  std::vector<AxisReport> axes;
  StepOptions options;

  // `cell` (optional) places the devices by hand: grid index -> position in the device list;
  // otherwise the mesh is placed as every command places it (analyzeMesh; `mesh` sizes per slice,
  // the slices on the first axis).
  Case(Model m, const std::string& topology, const std::string& meshText,
       const std::function<std::string(const Param&)>& specOf,
       const std::function<int(const std::vector<std::int64_t>&, const DeviceList&)>& cell = {})
      : model(std::move(m)) {
    roles = classifyParams(model);
    const auto graph = cachedLinkGraph(parseTopology(topology));
    MeshAxes axesOfMesh;
    if (cell) {
      axesOfMesh = parseMeshAxes(meshText, static_cast<std::int64_t>(graph->devices().size()));
      mesh = testing::handMesh(graph->devices(), axesOfMesh.sizes, axesOfMesh.names,
                               [&](const auto& i) { return cell(i, graph->devices()); });
    } else {
      Scenario scenario;
      scenario.topology = parseTopology(topology);
      scenario.mesh.axes = meshAxesFromText(meshText, scenario.topology);
      mesh = analyzeMesh(scenario).mesh;
      axesOfMesh = {mesh.axis_names, mesh.shape()};
    }
    axes = axisReports(*graph, mesh);
    std::vector<PartitionSpec> specs;
    specs.reserve(model.params.size());
    for (const auto& p : model.params) specs.push_back(PartitionSpec::parse(specOf(p)));
    static const DType bf16 = parseDType("bfloat16");
    std::vector<ShardParamRef> refs;
    for (std::size_t i = 0; i < model.params.size(); ++i)
      refs.push_back({model.params[i].path, &model.params[i].shape, &bf16, &specs[i]});
    plan = planShardGroups(axesOfMesh, refs);
    const ChipSpec& chip = *findChip(graph->spec().chip);
    options.chip = chip.key;
    options.peak_flops = {chip.peak_bf16_flops, FigureSource::Chip};
    options.hbm_bandwidth = {chip.hbm_bandwidth, FigureSource::Chip};
    options.calibration = defaultCalibration(chip);
    options.link_latency = chip.ici_link_latency;
    options.micro_batch = 4;
    options.microbatches = 2;
    options.seq_len = 512;
    options.recompute = Recompute::None;
  }

  StepEstimate run() const {
    StepInputs in;
    in.model = &model;
    in.roles = &roles;
    in.plan = &plan;
    in.mesh = &mesh;
    in.axes = axes;
    return estimateStep(in, options);
  }
};

const StepAxis& axisOf(const StepEstimate& e, const std::string& name) {
  for (const auto& a : e.per_axis)
    if (a.axis == name) return a;
  FAIL("no axis " << name);
  throw;
}

std::optional<StepCollective> find(const StepAxis& a, Collective kind, const std::string& purpose) {
  for (const auto& c : a.collectives)
    if (c.kind == kind && c.purpose == purpose) return c;
  return std::nullopt;
}

bool isAttentionOrMlpIn(const Param& p, const char* a, const char* b) {
  return p.path.find(a) != std::string::npos || p.path.find(b) != std::string::npos;
}

// Megatron tensor parallelism over `tp`: q/k/v/up split on their output rows, o/down on their
// input columns (HF [out, in] weights).
std::string megatron(const Param& p) {
  if (p.shape.size() < 2) return "P()";
  return isAttentionOrMlpIn(p, "o_proj", "down_proj") ? "P(None, 'tp')" : "P('tp', None)";
}

} // namespace

TEST_CASE("step: FSDP gathers weights forward and backward and reduce-scatters gradients", "[step]") {
  Case c(tinyModel(true), "v4:2x2x1", "fsdp:4",
         [](const Param& p) { return p.shape.size() < 2 ? "P()" : "P('fsdp', None)"; });
  c.options.batch_axes = {"fsdp"};
  const StepEstimate e = c.run();
  REQUIRE(e.estimated);
  const StepAxis& fsdp = axisOf(e, "fsdp");
  // 2 micro-batches x (forward + backward) x 1 layer = 4 gathers of 24 MiB; each device receives 3/4.
  const auto ag = find(fsdp, Collective::AllGather, "fsdp_weights");
  REQUIRE(ag);
  CHECK(ag->count == 4);
  CHECK(ag->bytes == Approx(0.75 * 24 * MiB * 4));
  CHECK(ag->overlappable);
  // One reduce-scatter of the 24 MiB of gradients per micro-batch.
  const auto rs = find(fsdp, Collective::ReduceScatter, "fsdp_grads");
  REQUIRE(rs);
  CHECK(rs->count == 2);
  CHECK(rs->bytes == Approx(0.75 * 24 * MiB * 2));
  // The replicated norm's 2 KiB of gradients: one all-reduce per step, 2 x 3/4 of it.
  const auto ar = find(fsdp, Collective::AllReduce, "dp_grads");
  REQUIRE(ar);
  CHECK(ar->count == 1);
  CHECK(ar->bytes == Approx(2 * 0.75 * 2048));
  CHECK(fsdp.bytes == Approx(ag->bytes + rs->bytes + ar->bytes));
  CHECK(fsdp.overlapped + fsdp.exposed == Approx(fsdp.seconds));
  CHECK(e.time_s == Approx(e.compute_s + e.hbm_s + e.exposed_comm_s));
  CHECK(e.exposed_comm_s <= fsdp.seconds);
}

TEST_CASE("step: data parallel all-reduces the gradients once per step, whatever the micro-batches", "[step]") {
  Case c(tinyModel(true), "v4:2x2x1", "dp:4", [](const Param&) { return "P()"; });
  c.options.batch_axes = {"dp"};
  for (std::int64_t m : {1, 4}) {
    c.options.microbatches = m;
    const StepEstimate e = c.run();
    const auto ar = find(axisOf(e, "dp"), Collective::AllReduce, "dp_grads");
    REQUIRE(ar);
    CHECK(ar->count == 1);
    CHECK(ar->bytes == Approx(2 * 0.75 * (24 * MiB + 2048)));
    CHECK(axisOf(e, "dp").collectives.size() == 1);
    // AdamW update of the whole replica: read param and grad, write param (3 x 2 bytes), read and
    // write m and v (16 bytes), per element, at 90% of v4's 1200 GB/s.
    const double elements = 12 * MiB + 1024;
    CHECK(e.optimizer_s == Approx(elements * 22 / (1200e9 * 0.9)));
    CHECK(e.hbm_bytes > elements * 22);
  }
  // ZeRO-1: a reduce-scatter of the gradients and an all-gather of the updated shards instead.
  c.options.zero_stage = 1;
  const StepEstimate z = c.run();
  const auto& dp = axisOf(z, "dp");
  CHECK_FALSE(find(dp, Collective::AllReduce, "dp_grads"));
  REQUIRE(find(dp, Collective::ReduceScatter, "zero_grads"));
  REQUIRE(find(dp, Collective::AllGather, "zero_weights"));
  CHECK(find(dp, Collective::ReduceScatter, "zero_grads")->bytes == Approx(0.75 * (24 * MiB + 2048)));
  CHECK(find(dp, Collective::AllGather, "zero_weights")->bytes == Approx(0.75 * (24 * MiB + 2048)));
}

TEST_CASE("step: tensor parallelism all-reduces each block's activations, or gathers and scatters them", "[step]") {
  Case c(tinyModel(false), "v4:2x2x1", "dp:2,tp:2", megatron);
  c.options.batch_axes = {"dp"};
  // Per device: 4 sequences / 2 dp x 512 = 1024 tokens; one [1024, 1024] bf16 activation = 2 MiB.
  const double activation = 1024.0 * 1024 * 2;
  StepEstimate e = c.run();
  const StepAxis& tp = axisOf(e, "tp");
  // Attention and MLP blocks, forward and backward, 2 micro-batches: 8 all-reduces, each sending
  // 2 x 1/2 of the activation.
  const auto ar = find(tp, Collective::AllReduce, "tp_activations");
  REQUIRE(ar);
  CHECK(ar->count == 8);
  CHECK(ar->bytes == Approx(8 * activation));
  CHECK_FALSE(ar->overlappable);
  CHECK(tp.exposed == Approx(tp.seconds)); // on the critical path
  // dp all-reduces the tp shards' gradients: 12 MiB per device.
  CHECK(find(axisOf(e, "dp"), Collective::AllReduce, "dp_grads")->bytes == Approx(2 * 0.5 * 12 * MiB));
  const double allReduceBytes = tp.bytes; // kept: `e` is overwritten below

  // Sequence parallelism: an all-gather and a reduce-scatter instead of each all-reduce.
  c.options.sequence_parallel = true;
  e = c.run();
  const StepAxis& sp = axisOf(e, "tp");
  CHECK_FALSE(find(sp, Collective::AllReduce, "tp_activations"));
  const auto gather = find(sp, Collective::AllGather, "tp_activations");
  const auto scatter = find(sp, Collective::ReduceScatter, "tp_activations");
  REQUIRE(gather);
  REQUIRE(scatter);
  CHECK(gather->count == 8);
  CHECK(scatter->count == 8);
  CHECK(gather->bytes == Approx(8 * 0.5 * activation));
  CHECK(scatter->bytes == Approx(8 * 0.5 * activation));
  CHECK(sp.bytes == Approx(allReduceBytes)); // the same traffic, split differently

  // Marked overlapped (collective matmuls), the same traffic hides behind compute.
  c.options.overlap_tensor_comm = true;
  e = c.run();
  CHECK(axisOf(e, "tp").exposed < axisOf(e, "tp").seconds);
}

TEST_CASE("step: expert parallelism dispatches and combines tokens with all-to-alls", "[step]") {
  const auto experts = [](const Param& p) -> std::string {
    if (p.path.find(".experts.") == std::string::npos) return "P()";
    return p.path.find("down_proj") != std::string::npos ? "P('ep', None)" : "P(None, 'ep')";
  };
  Case c(tinyMoe(), "v4:2x2x1", "ep:4", experts);
  c.options.batch_axes = {"ep"};
  c.options.micro_batch = 8; // 2 sequences per device: 1024 tokens
  const StepEstimate e = c.run();
  REQUIRE(e.estimated);
  const StepAxis& ep = axisOf(e, "ep");
  // Each token's 1024-wide bf16 state goes to k = 2 experts: a 4 MiB buffer per device, of which
  // 3/4 leaves it; dispatch and combine, forward and backward, 2 micro-batches: 8 all-to-alls.
  const auto a2a = find(ep, Collective::AllToAll, "ep_tokens");
  REQUIRE(a2a);
  CHECK(a2a->count == 8);
  CHECK(a2a->bytes == Approx(8 * 0.75 * 1024 * 2 * 1024 * 2));
  // The experts are spread, not gathered; the attention and router gradients are all-reduced.
  CHECK_FALSE(find(ep, Collective::AllGather, "fsdp_weights"));
  const auto ar = find(ep, Collective::AllReduce, "dp_grads");
  REQUIRE(ar);
  CHECK(ar->bytes == Approx(2 * 0.75 * (8 * MiB + 4 * 1024 * 2)));
  // Routed experts count k/E of their FLOPs: 2 of 4 experts x 3 x 0.5 Mi elements per token.
  const double tokens = 8.0 * 2 * 512;
  const double expertFlops = 6 * 0.5 * (4 * 3 * 512.0 * 1024) * tokens;
  const double dense = 6 * (4 * 1024.0 * 1024 + 4 * 1024) * tokens;
  const double attention = 3 * 2 * 256.5 * 2048 * tokens;
  CHECK(e.model_flops == Approx(expertFlops + dense + attention));
}

TEST_CASE("step: an axis across slices is priced on DCN with the alpha-beta ring", "[step]") {
  // dp 1 per slice x 2 slices over DCN, fsdp 4 inside each slice.
  Case c(tinyModel(false), "v4:2x2x1:slices=2", "dp:1,fsdp:4", [](const Param&) { return "P('fsdp', None)"; });
  c.options.batch_axes = {"dp", "fsdp"};
  c.options.calibration.link_fraction = {1.0, FigureSource::User};
  const StepEstimate e = c.run();
  REQUIRE(c.axes[0].crosses_slices);
  const auto ar = find(axisOf(e, "dp"), Collective::AllReduce, "dp_grads");
  REQUIRE(ar);
  // The fsdp shard of the gradients (24 MiB / 4) all-reduced over the 2 slices: one call of
  // 2 x (1 step of latency + 1/2 x 6 MiB / 6.25 GB/s).
  CHECK(ar->bytes == Approx(2 * 0.5 * 6 * MiB));
  CHECK(ar->seconds == Approx(2 * (c.axes[0].step_latency + 0.5 * 6 * MiB / 6.25e9)));
}

TEST_CASE("step: model FLOPs, recompute and repeated work", "[step]") {
  Case c(tinyModel(false), "v4:2x2x1", "dp:2,tp:2", megatron);
  c.options.batch_axes = {"dp"};
  // 6 N T with N = 12 Mi matmul elements and T = 4 x 2 x 512 tokens, plus causal attention:
  // 3 passes x 2 FLOPs x 256.5 keys per query x (1024 + 1024) per token.
  const double tokens = 4096;
  const double attentionFwd = 2 * 256.5 * 2048 * tokens;
  const double model = 6 * 12 * MiB * tokens + 3 * attentionFwd;
  StepEstimate e = c.run();
  CHECK(e.model_flops == Approx(model));
  // dp x tp split every FLOP four ways; the flash kernel's backward recomputes the scores (half a
  // forward of the attention core more: 2.5 forwards, FlashAttention-2's count).
  const double flashRescore = 0.5 * attentionFwd;
  CHECK(e.hardware_flops == Approx(model + flashRescore));
  CHECK(e.tokens_per_step == tokens);
  CHECK(e.mfu == Approx(model / (e.time_s * 4 * 275e12)));
  // Selective recompute re-runs the attention core's forward; Megatron's full recompute (PyTorch's
  // checkpoint) the whole forward.
  c.options.framework = Framework::Megatron;
  c.options.recompute = Recompute::Selective;
  CHECK(c.run().hardware_flops == Approx(model + attentionFwd + flashRescore));
  c.options.recompute = Recompute::Full;
  CHECK(c.run().hardware_flops == Approx(model + model / 3 + flashRescore));
  // A materialized core keeps its scores: its backward is twice the forward.
  c.options.attention = AttentionKernel::Materialized;
  CHECK(c.run().hardware_flops == Approx(model + model / 3));
  c.options.attention = AttentionKernel::Flash;

  // Weights replicated over tp, which does not split the tokens: every tp pair repeats the work.
  Case dup(tinyModel(false), "v4:2x2x1", "dp:2,tp:2", [](const Param&) { return "P()"; });
  dup.options.batch_axes = {"dp"};
  const StepEstimate d = dup.run();
  CHECK(d.hardware_flops == Approx(2 * (model + flashRescore)));
  REQUIRE(d.notes.size() == 1);
  CHECK(d.notes[0].find("axis 'tp' (2) splits neither the batch nor any weight") != std::string::npos);
  // The verdict leads with it: no other edit helps while the work is repeated (a mesh edit that
  // left the batch axes behind).
  CHECK(d.summary.find("but tp (2) splits neither the batch nor any weight, so every device along it repeats the "
                       "same work: add it to training.batch_axes") != std::string::npos);
}

TEST_CASE("step: fp8 runs the weight matmuls at the FP8 peak and prices the casts to one byte", "[step][precision]") {
  // Four H100s, data parallel, every weight replicated: per device 1 sequence of 512 tokens per
  // micro-batch, 2 micro-batches, no recompute, flash attention.
  Case c(tinyModel(false), "h100:1x4", "dp:4", [](const Param&) { return "P()"; });
  c.options.batch_axes = {"dp"};
  const double f = c.options.calibration.flops_fraction.value;
  const double a = c.options.calibration.attention_fraction.value; // H100: FlashAttention-2's 0.34
  REQUIRE(a == Approx(0.34));
  const double hbm = 3350e9 * c.options.calibration.hbm_fraction.value;
  const StepEstimate bf16 = c.run();
  c.options.precision = Precision::Fp8;
  c.options.peak_matmul_flops = {1979e12, FigureSource::Chip};
  const StepEstimate fp8 = c.run();
  // Weight matmuls: 3 passes x 2 FLOPs x 12 Mi elements x 1024 tokens a step; the attention core
  // (flash: 3.5 passes) x 2 x 256.5 keys x 2048 x 1024 tokens stays at the bf16 peak, at the
  // attention kernel's fraction of it.
  const double weights = 6 * 12 * MiB * 1024, core = 3.5 * 2 * 256.5 * 2048 * 1024;
  CHECK(bf16.compute_s == Approx(weights / (989e12 * f) + core / (989e12 * a)));
  CHECK(fp8.compute_s == Approx(weights / (1979e12 * f) + core / (989e12 * a)));
  // The casts, per micro-batch: forward each matmul's input (2 bytes read, 1 written) over
  // 512 x (4 x 1024 + 1024 + 4096) input elements and the 12 Mi weight elements (2 + 1); backward
  // the output's gradient (as many elements, 2 + 1) and the transposes of the cast weights and
  // inputs (1 + 1).
  const double act = 512.0 * 9216, w = 12 * MiB;
  const double casts = 2 * (3 * act + 3 * w + 3 * act + 2 * (w + act));
  CHECK(fp8.elementwise_s - bf16.elementwise_s == Approx(casts / hbm));
  CHECK(fp8.model_flops == Approx(bf16.model_flops));
  // The notes say which peak the matmuls ran at.
  bool noted = false;
  for (const auto& n : fp8.notes) noted = noted || n.find("FP8: the weight matmuls at 1.98 PFLOP/s") == 0;
  CHECK(noted);
}

TEST_CASE("step: a tensor axis past n F / (C / W) is named in the summary with a degree that fits", "[step]") {
  // Hidden and MLP width 8192 on a v5p 4x4x16: tp = 16 takes the wrapped z axis (C/W = 2550),
  // so its limit is 8192 / 2550 = 3.2 and the activation all-reduces dominate the step.
  Model m;
  m.name = "wide";
  ModelConfig cfg;
  cfg.num_layers = 1;
  cfg.hidden = 8192;
  cfg.heads = 64;
  cfg.kv_heads = 64;
  cfg.head_dim = 128;
  cfg.ffn = 8192;
  m.config = cfg;
  for (const char* p : {"q_proj", "k_proj", "v_proj", "o_proj"})
    m.params.push_back({std::string("model.layers.0.self_attn.") + p + ".weight", {8192, 8192}, "bfloat16"});
  m.params.push_back({"model.layers.0.mlp.up_proj.weight", {8192, 8192}, "bfloat16"});
  m.params.push_back({"model.layers.0.mlp.down_proj.weight", {8192, 8192}, "bfloat16"});
  Case c(std::move(m), "v5p:4x4x16", "dp:16,tp:16", megatron, [](const auto& i, const DeviceList& d) {
    return testing::positionOf(d, int(i[0] % 4), int(i[0] / 4), int(i[1]));
  });
  c.options.batch_axes = {"dp"};
  c.options.micro_batch = 16;
  c.options.microbatches = 1;
  c.options.seq_len = 2048;
  const StepEstimate e = c.run();
  CHECK(e.bound_by == StepBound{StepPart::Comm, "tp"});
  CHECK(boundText(e.bound_by) == "comm:tp");
  const StepCritical* tp = nullptr;
  for (const auto& k : e.critical)
    if (k.axis == "tp") tp = &k;
  REQUIRE(tp);
  CHECK(tp->role == StepCritical::Role::Tensor);
  CHECK(tp->flops_per_byte == Approx(459e12 / 1.8e11));
  CHECK(tp->limit == Approx(8192 / (459e12 / 1.8e11)));
  CHECK_FALSE(tp->ok);
  CHECK(e.summary.find("tp = 16 exceeds F/2550 = 3 (F = 8192): try tp = 2") != std::string::npos);
}

TEST_CASE("step: refusals and what cannot be estimated", "[step]") {
  Case c(tinyModel(false), "v4:2x2x1", "fsdp:4", [](const Param&) { return "P('fsdp', None)"; });
  c.options.batch_axes = {"fsdp"};
  StepOptions good = c.options;

  c.options.calibration.flops_fraction = {1.5, FigureSource::User};
  CHECK_THROWS_WITH(c.run(), Catch::Contains("performance.flops_fraction must be in [0.01, 1], got 1.5"));
  c.options = good;
  c.options.calibration.link_fraction = {0, FigureSource::User};
  CHECK_THROWS_WITH(c.run(), Catch::Contains("performance.link_fraction must be in [0.01, 1]"));
  c.options = good;
  c.options.calibration.hop_latency = {2, FigureSource::User};
  CHECK_THROWS_WITH(c.run(), Catch::Contains("performance.hop_latency must be in [1e-09, 0.001] seconds"));

  c.options = good;
  c.options.peak_flops = {0, FigureSource::Chip};
  c.options.chip = "TPU v99";
  try {
    c.run();
    FAIL("a missing chip figure must be refused");
  } catch (const Error& err) {
    CHECK(err.kind() == ErrorKind::ValueError);
    CHECK(std::string(err.what()) ==
          "chip 'TPU v99' has no peak bf16 FLOP/s figure: the step time cannot be estimated");
  }
  c.options = good;
  c.options.hbm_bandwidth = {-1, FigureSource::User};
  CHECK_THROWS_WITH(c.run(), Catch::Contains("no HBM bandwidth figure"));

  c.options = good;
  c.options.microbatches = 0;
  CHECK_THROWS_WITH(c.run(), Catch::Contains("training.microbatches must be a positive integer"));

  // A bare parameter list (a safetensors header): nothing to time, and it says why.
  c.options = good;
  c.model.config.reset();
  const StepEstimate none = c.run();
  CHECK_FALSE(none.estimated);
  REQUIRE(none.not_estimated.size() == 1);
  CHECK(none.not_estimated[0].find("has no architecture config") != std::string::npos);
  CHECK(none.time_s == 0);
  // The figures are still shown: v4's default (the step calibration's table).
  CHECK(none.calibration.flops_fraction.value == defaultCalibration(*findChip("v4")).flops_fraction.value);
}

TEST_CASE("step: parameter roles from paths", "[step]") {
  const ParamRoles moe = classifyParams(tinyMoe());
  CHECK(moe.role[0] == ParamRole::Attention);
  CHECK(moe.role[4] == ParamRole::Mlp); // the router
  CHECK(moe.role[5] == ParamRole::RoutedExpert);
  CHECK(moe.moe_layers == 1);
  CHECK(moe.layers == 1);
  CHECK(moe.tied_output);
  Model gpt;
  gpt.params = {{"transformer.wte.weight", {50257, 768}, "float32"},
                {"transformer.h.3.attn.c_attn.weight", {768, 2304}, "float32"},
                {"transformer.h.3.mlp.c_fc.weight", {768, 3072}, "float32"},
                {"transformer.h.3.ln_1.weight", {768}, "float32"},
                {"model.layers.7.mlp.shared_experts.up_proj.weight", {10, 10}, "float32"},
                {"lm_head.weight", {50257, 768}, "float32"}};
  const ParamRoles r = classifyParams(gpt);
  CHECK(r.role == std::vector<ParamRole>{ParamRole::Embedding, ParamRole::Attention, ParamRole::Mlp, ParamRole::None,
                                         ParamRole::Mlp, ParamRole::Output});
  CHECK(r.layers == 8); // no config: the largest layer index + 1
  CHECK_FALSE(r.tied_output);
}
