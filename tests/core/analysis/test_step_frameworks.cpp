// SPDX-License-Identifier: Apache-2.0
// Framework behaviour in the step and memory estimates (docs/step-time.md, "Frameworks"): what
// each remat policy keeps and re-runs, MaxText's activations sharded over the tensor axis and its
// tensor collectives as overlapped all-gather / reduce-scatter pairs, the parallel block's single
// reduction per layer, the matrix unit's padding, and the published model-FLOPs convention the
// validation suite converts measured MFU with. Every expected value is worked out in the comments.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/validation/validation.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>

using namespace shardscope;

namespace {

// Seconds per byte of A100 HBM at the default hbm_fraction: 2039 GB/s x 0.9.
constexpr double kA100HbmSecondsPerByte = 1 / (2039e9 * 0.9);

// hidden 1024, 8 heads of 128 (no GQA), gated MLP 4096, 2 layers, vocabulary 1024.
Json smallLlama(bool parallelBlock = false) {
  Json c = {{"model_type", "llama"},     {"num_hidden_layers", 2},   {"hidden_size", 1024},
            {"num_attention_heads", 8},  {"num_key_value_heads", 8}, {"head_dim", 128},
            {"intermediate_size", 4096}, {"vocab_size", 1024}};
  if (parallelBlock) c["parallel_attn"] = true;
  return c;
}

Scenario scenario(const std::string& topology, std::vector<MeshAxis> axes, Json config) {
  Scenario s = defaultScenario();
  s.topology = parseTopology(topology);
  s.mesh.axes = std::move(axes);
  s.model = ModelChoice{"", "", Json(), std::move(config), Json()};
  s.rules = RulesChoice{"fsdp-tp", {}};
  s.training.batch_axes = {"fsdp"};
  s.training.micro_batch = 8;
  s.training.seq_len = 2048;
  return s;
}

const StepAxis& axisOf(const Analysis& a, const std::string& name) {
  for (const auto& axis : a.step.per_axis)
    if (axis.axis == name) return axis;
  FAIL("no axis " << name);
  throw;
}

double tensorCalls(const Analysis& a, Collective kind) {
  double calls = 0;
  for (const auto& c : axisOf(a, "tp").collectives)
    if (c.purpose == "tp_activations" && c.kind == kind) calls += c.count;
  return calls;
}

} // namespace

TEST_CASE("activations per token under MaxText's named remat policies", "[step][memory]") {
  const ModelConfig c = modelConfigFromHf(smallLlama());
  // Elements per token and layer: the input 1024; q, k, v 3 x 8 x 128 = 3072; the attention
  // output 1024; the gated MLP's two inputs 2 x 4096 = 8192; its output 1024. Two bytes each.
  // MaxText is an XLA program: the MLP output, read by nothing the backward needs, is never kept.
  // full keeps the input only, split over an embed split of 4: 256 elements.
  CHECK(activationBytesPerToken(c, Recompute::Full, 4, 4, true) == 2 * 256);
  // minimal keeps every matmul output the backward reads: 256 + 3072/4 + 256 + 8192/4 = 3328.
  CHECK(activationBytesPerToken(c, Recompute::Minimal, 4, 4, true) == 2 * 3328);
  // The same names under PyTorch's checkpoint keep the MLP output too: + 1024/4.
  CHECK(activationBytesPerToken(c, Recompute::Minimal, 4, 4, false) == 2 * 3584);
  // save_qkv_proj without tensor parallelism: 1024 + 3072.
  CHECK(activationBytesPerToken(c, Recompute::SaveQkvProj, 1, 1, true) == 2 * 4096);
  // save_dot_except_mlpwi: everything but the MLP inputs (and, in XLA, its output): 1024 + 3072 + 1024.
  CHECK(activationBytesPerToken(c, Recompute::SaveDotExceptMlpWi, 1, 1, true) == 2 * 5120);
  CHECK(activationBytesPerToken(c, Recompute::SaveDotExceptMlpWi, 1, 1, false) == 2 * 6144);
  // Offloaded outputs live in host memory: only the input stays.
  CHECK(activationBytesPerToken(c, Recompute::QkvProjOffloaded, 1, 1, true) == 2 * 1024);
  CHECK(activationBytesPerToken(c, Recompute::MinimalOffloaded, 2, 2, true) == 2 * 512);
  // torchtitan's selective_op (PyTorch) keeps the 1st, 3rd, 5th and 7th matmul outputs (q, v, the
  // MLP's gate, its output) and the attention kernel's output: 1024 + 1024 + 1024 + 1024 + 4096 + 1024.
  CHECK(activationBytesPerToken(c, Recompute::SelectiveOp, 1, 1, false) == 2 * 9216);
  // Tensor-parallel over 4 with sequence parallelism: the input 256, q and v 256 each, the
  // attention output 256, the gate 1024, the MLP output's partial sums whole (1024), and the two
  // reduce-scatters' outputs 2 x 256.
  CHECK(activationBytesPerToken(c, Recompute::SelectiveOp, 4, 4, false) == 2 * 3584);
}

TEST_CASE("MaxText shards the activations over the tensor axis, Megatron without SP does not", "[step][memory]") {
  // v5p 2x2x2: fsdp 2 x tp 4, micro-batch 8 over fsdp = 4 sequences of 2048 per device.
  Scenario s = scenario("v5p:2x2x2", {{"fsdp", 2, 1}, {"tp", 4, 1}}, smallLlama());
  s.training.recompute = Recompute::Full;
  s.training.framework = Framework::Megatron;
  const Analysis megatron = analyze(s);
  s.training.framework = Framework::MaxText;
  const Analysis maxtext = analyze(s);
  REQUIRE(megatron.memory.argmax >= 0);
  REQUIRE(maxtext.memory.argmax >= 0);
  // U = s b h = 2048 x 4 x 1024 = 8 MiB. Full recompute keeps the layer input, 2U per layer (two
  // layers: 4U); MaxText splits it over tp 4: U/2 per layer, U in all. At the peak one of two
  // moments adds to that (ActivationBreakdown): the loss's backward or a layer re-running its
  // forward, which holds what `none` keeps less what `full` kept. `none` is Korthikanti's Table 2
  // at the model's widths: 10U replicated plus 2 s b (2q + 2kv + mlp_in + mlp) / t = 2 s b x 16h /
  // 4 = 8U split (q = kv = h, the gated MLP's two inputs 8h, its activation 4h): Megatron 18U, so
  // the re-run layer holds 16U; MaxText splits the 10U too: 2.5U + 8U - U/2 = 10U. The loss's
  // moment is smaller in both (norm and projection inputs 4U, or U over tp; the fp32 logits of a
  // 1024-word vocabulary over tp, 4 x 2048 x 4 x 256 = U; Megatron's 2 more bytes per logit, U/2):
  // 5.5U and 2.5U. Megatron 4U + 16U, MaxText U + 10U: 9U apart.
  const double U = 2048.0 * 4 * 1024;
  const double diff = megatron.memory.per_device[0].activations - maxtext.memory.per_device[0].activations;
  CHECK(diff == Approx(9 * U).epsilon(1e-9));
  CHECK(megatron.memory.per_device[0].activations == Approx(20 * U).epsilon(1e-9));
}

TEST_CASE("MaxText's tensor collectives are all-gather / reduce-scatter pairs that hide on TPU", "[step]") {
  Scenario s = scenario("v5p:2x2x2", {{"fsdp", 2, 1}, {"tp", 4, 1}}, smallLlama());
  s.training.framework = Framework::Generic;
  const Analysis generic = analyze(s);
  s.training.framework = Framework::MaxText;
  const Analysis maxtext = analyze(s);
  REQUIRE(generic.step.estimated);
  REQUIRE(maxtext.step.estimated);
  // Generic: an all-reduce per block and pass, on the critical path: exposed whole.
  CHECK(tensorCalls(generic, Collective::AllReduce) > 0);
  CHECK(tensorCalls(generic, Collective::AllGather) == 0);
  CHECK(axisOf(generic, "tp").exposed == Approx(axisOf(generic, "tp").seconds));
  // MaxText: the same blocks as gather/scatter pairs, and XLA's collective matmuls hide them.
  CHECK(tensorCalls(maxtext, Collective::AllReduce) == 0);
  // Per block and pass one of each (2 layers x 2 blocks x 2 passes = 8), the vocabulary-parallel
  // head one of each, the embedding's lookup one reduce-scatter.
  CHECK(tensorCalls(maxtext, Collective::AllGather) == 9);
  CHECK(tensorCalls(maxtext, Collective::ReduceScatter) == 10);
  CHECK(axisOf(maxtext, "tp").exposed < axisOf(maxtext, "tp").seconds);
  // The user can still say otherwise.
  s.performance.overlap_tensor_comm = false;
  const Analysis exposed = analyze(s);
  CHECK(axisOf(exposed, "tp").exposed == Approx(axisOf(exposed, "tp").seconds));
}

TEST_CASE("a parallel block reduces once per layer instead of twice", "[step]") {
  // Generic framework: every block's all-reduce forward and backward. Serial: attention and MLP in
  // each of 2 layers, 2 passes = 8, plus the vocabulary-parallel head's. Parallel: 4 plus the head's.
  Scenario s = scenario("v5p:2x2x2", {{"fsdp", 2, 1}, {"tp", 4, 1}}, smallLlama(false));
  const Analysis serial = analyze(s);
  s.model.inline_config = smallLlama(true);
  const Analysis parallel = analyze(s);
  REQUIRE(serial.step.estimated);
  REQUIRE(parallel.step.estimated);
  CHECK(tensorCalls(serial, Collective::AllReduce) - tensorCalls(parallel, Collective::AllReduce) == 4);
}

TEST_CASE("what each remat policy runs again, in hardware FLOPs", "[step]") {
  // One micro-batch of 8 x 2048 = 16384 tokens over fsdp 8 (no tensor axis): per device 2048
  // tokens. Forward matmul FLOPs per token and layer: attention 2 x 4 x 1024^2 = 8 Mi, MLP
  // 2 x 3 x 1024 x 4096 = 24 Mi (the two inputs 16 Mi, the output 8 Mi).
  Scenario s = scenario("v5p:2x2x2", {{"fsdp", 8, 1}}, smallLlama());
  auto hardware = [&](Recompute r) {
    s.training.recompute = r;
    const Analysis a = analyze(s);
    REQUIRE(a.step.estimated);
    return a.step.hardware_flops;
  };
  const double tokens = 8.0 * 2048, layers = 2, Mi = 1024.0 * 1024.0;
  // minimal keeps every matmul output but re-runs the attention core, as selective does.
  CHECK(hardware(Recompute::Minimal) == Approx(hardware(Recompute::Selective)).epsilon(1e-12));
  // On a TPU the program is XLA's, which re-runs only what the backward reads: not the MLP's
  // output projection, whose output only joins the residual stream. full re-runs the attention
  // (8 Mi) and the MLP's inputs (16 Mi) per token and layer.
  CHECK(hardware(Recompute::Full) - hardware(Recompute::Minimal) == Approx(tokens * layers * 24 * Mi).epsilon(1e-9));
  // save_dot_except_mlpwi re-runs the MLP's two input projections: 16 Mi.
  CHECK(hardware(Recompute::SaveDotExceptMlpWi) - hardware(Recompute::Minimal) ==
        Approx(tokens * layers * 16 * Mi).epsilon(1e-9));
  // save_qkv_proj re-runs the attention output (2 Mi) and the MLP's inputs (16 Mi).
  CHECK(hardware(Recompute::SaveQkvProj) - hardware(Recompute::Minimal) ==
        Approx(tokens * layers * 18 * Mi).epsilon(1e-9));
  // recompute_flops is that re-run part of the hardware FLOPs: nothing under `none`, and under
  // `full` what separates it from `none` (XLA: 24 Mi per token and layer plus the attention core).
  auto recomputed = [&](Recompute r) {
    s.training.recompute = r;
    return analyze(s).step.recompute_flops;
  };
  CHECK(recomputed(Recompute::None) == 0);
  CHECK(recomputed(Recompute::Full) == Approx(hardware(Recompute::Full) - hardware(Recompute::None)).epsilon(1e-9));
  CHECK(recomputed(Recompute::Full) - recomputed(Recompute::Minimal) ==
        Approx(tokens * layers * 24 * Mi).epsilon(1e-9));
  // Megatron's full recompute is PyTorch's checkpoint, which calls the layer's forward again
  // whole: (8 + 24) Mi.
  s.training.framework = Framework::Megatron;
  CHECK(hardware(Recompute::Full) - hardware(Recompute::Selective) == Approx(tokens * layers * 32 * Mi).epsilon(1e-9));
  s.training.framework = Framework::Generic;
  // selective_op keeps the attention kernel's output (its core is not re-run) and re-runs the
  // 2nd, 4th and 6th matmuls: the keys (2 Mi), the attention output (2 Mi), the MLP's up
  // projection (8 Mi).
  CHECK(hardware(Recompute::SelectiveOp) - hardware(Recompute::None) ==
        Approx(tokens * layers * 12 * Mi).epsilon(1e-9));
}

TEST_CASE("local dimensions off the matrix unit's tile cost padding on TPU, not on GPU", "[step]") {
  // hidden 1000 pads to 1024 on the MXU's 128; a GPU's tensor cores take multiples of 8 (1000 is).
  Json c = smallLlama();
  c["hidden_size"] = 1000;
  c["head_dim"] = 125;
  c["intermediate_size"] = 4000;
  const Analysis tpu = analyze(scenario("v5p:2x2x1", {{"fsdp", 4, 1}}, c));
  const Analysis gpu = analyze(scenario("a100:1x4", {{"fsdp", 4, 1}}, c));
  REQUIRE(tpu.step.estimated);
  REQUIRE(gpu.step.estimated);
  CHECK(gpu.step.padding_s == 0);
  CHECK(tpu.step.padding_s > 0);
  // Aligned dimensions pad nothing on TPU either.
  const Analysis aligned = analyze(scenario("v5p:2x2x1", {{"fsdp", 4, 1}}, smallLlama()));
  CHECK(aligned.step.padding_s == 0);
}

TEST_CASE("published model FLOPs follow Narayanan et al.'s formula", "[validation]") {
  // GPT-3 175B: l = 96, h = 12288, V = 51200, s = 2048. Narayanan et al. (2021, eq. 3 without the
  // recompute pass): 72 B s l h^2 (1 + s / (6h) + V / (12 l h)) per step of B sequences.
  const Json gpt3 = {{"model_type", "gpt2"}, {"n_layer", 96},       {"n_embd", 12288},
                     {"n_head", 96},         {"vocab_size", 51200}, {"n_positions", 2048}};
  const ModelConfig c = modelConfigFromHf(gpt3);
  const double B = 1536, s = 2048, l = 96, h = 12288, V = 51200;
  const double expected = 72 * B * s * l * h * h * (1 + s / (6 * h) + V / (12 * l * h));
  CHECK(publishedModelFlops(c, B * s, s) == Approx(expected).epsilon(1e-12));
  // Eq. 3 itself, which counts the recomputed forward of the layers: 96 B s l h^2 (1 + s / (6h) +
  // V / (16 l h)).
  const double withRecompute = 96 * B * s * l * h * h * (1 + s / (6 * h) + V / (16 * l * h));
  CHECK(publishedModelFlops(c, B * s, s, false, 4) == Approx(withRecompute).epsilon(1e-12));
}

namespace {

// A validation file of one hand-made Megatron run: 4 hosts of 8 A100, tp 8 x pp 2 x dp 2, 64
// sequences of 2048 in micro-batches of 2 per replica, selective recompute, `measured` as given.
Json handMadeRunFile(const Json& measured) {
  return {{"format", "shardscope-validation"},
          {"version", 1},
          {"source", "a hand-made run for the format"},
          {"citation", "none"},
          {"runs",
           {{{"id", "pp-run"},
             {"row", "one"},
             {"framework", "megatron"},
             {"model", smallLlama()},
             {"hardware", {{"chip", "a100"}, {"shape", {4, 8, 1}}}},
             {"parallelism", {{"tensor", 8}, {"pipeline", 2}, {"data", 2}}},
             {"global_batch", 64},
             {"micro_batch", 2},
             {"seq_len", 2048},
             {"recompute", "selective"},
             {"distributed_optimizer", true},
             {"measured", measured}}}}};
}

} // namespace

TEST_CASE("a published run becomes a workspace with its mesh, batch and pipeline", "[validation]") {
  const Json file = handMadeRunFile({{"step_time_s", 1.0}});
  const auto runs = validationRunsFromJson(file, "hand.json");
  REQUIRE(runs.size() == 1);
  const Scenario s = runScenario(runs[0]);
  // Outermost first: pp, dp, tp.
  REQUIRE(s.mesh.axes.size() == 3);
  CHECK(s.mesh.axes[0].name == "pp");
  CHECK(s.mesh.axes[0].ici == 2);
  CHECK(s.mesh.axes[1].name == "dp");
  CHECK(s.mesh.axes[2].name == "tp");
  CHECK(s.mesh.axes[2].ici == 8);
  // 2 sequences per replica x 2 replicas = 4 per micro-batch; 64 / 4 = 16 micro-batches, the
  // pipeline's M.
  CHECK(s.training.micro_batch == 4);
  REQUIRE(s.pipeline);
  CHECK(s.pipeline->microbatches == 16);
  CHECK(s.training.microbatches == 1);
  CHECK(s.training.zero_stage == 1);
  CHECK(s.training.framework == Framework::Megatron);

  Json bad = file;
  bad["runs"][0]["parallelism"]["data"] = 3;
  CHECK_THROWS_WITH(runScenario(validationRunsFromJson(bad, "hand.json")[0]),
                    "validation run 'pp-run': the parallel degrees multiply to 48, not the 32 devices");
  bad = file;
  bad["runs"][0]["measured"] = Json::object();
  CHECK_THROWS_WITH(validationRunsFromJson(bad, "hand.json"),
                    Catch::Contains("runs[0].measured states no measured figure"));
  bad = file;
  bad["runs"][0]["measured"]["memory_device"] = "last";
  CHECK_THROWS_WITH(validationRunsFromJson(bad, "hand.json"),
                    Catch::Contains("memory_device says which device memory_gib is of, but memory_gib is absent"));
  bad["runs"][0]["measured"]["memory_gib"] = 10.0;
  bad["runs"][0]["measured"]["memory_device"] = "first";
  CHECK_THROWS_WITH(validationRunsFromJson(bad, "hand.json"), Catch::Contains("memory_device"));
}

TEST_CASE("a run's memory figure is compared with the device the source measured", "[validation]") {
  // The pp 2 x dp 2 x tp 8 run above with a measured memory: by default the fullest device (a
  // planner's peak); "last" is Megatron's rank world_size - 1, a device of the last pipeline stage
  // (the head and the loss, not the embedding), whichever stage is fuller.
  Json file = handMadeRunFile({{"memory_gib", 10.0}});
  const auto fullestRuns = validationRunsFromJson(file, "hand.json");
  file["runs"][0]["measured"]["memory_device"] = "last";
  const auto lastRuns = validationRunsFromJson(file, "hand.json");
  AnalysisCache cache;
  const ValidationResult fullest = validateRun(fullestRuns[0], cache);
  const ValidationResult last = validateRun(lastRuns[0], cache);
  REQUIRE(fullest.predicted_memory_bytes);
  REQUIRE(last.predicted_memory_bytes);
  CHECK(*fullest.measured_memory_bytes == 10.0 * 1024 * 1024 * 1024);

  const Analysis a = analyze(runScenario(fullestRuns[0]));
  REQUIRE(a.mesh.shape() == Shape{2, 2, 8}); // pp, dp, tp
  const auto& positions = a.mesh.grid.data();
  auto bytesAt = [&](std::size_t flat) {
    return a.memory.per_device[static_cast<std::size_t>(positions[flat])].total();
  };
  // Flat grid positions 16..31 are pipeline stage 1; every device there holds the same bytes.
  for (std::size_t flat = 16; flat < 32; ++flat) CHECK(bytesAt(flat) == Approx(*last.predicted_memory_bytes));
  CHECK(*fullest.predicted_memory_bytes == Approx(std::max(bytesAt(0), bytesAt(16))));
  CHECK(bytesAt(0) != Approx(bytesAt(16))); // the stages differ, so the choice matters
}

TEST_CASE("materialized attention scores cost HBM time, flash attention none", "[step]") {
  // a100:1x8, fsdp 8, micro-batch 8 (one sequence of 2048 per device), smallLlama: 8 heads, 2
  // layers. The scores of one layer on one device: 8 heads x 2048 x 2048 = 33,554,432 elements.
  // Forward 6 x 2 + 1 = 13 bytes each; the backward twice that, plus the forward again under
  // selective recompute (the attention core re-runs): 13 x (1 + 2 + 1) = 52 bytes per element.
  // 2 layers: 52 x 33,554,432 x 2 = 3,489,660,928 bytes at 2039 GB/s x 0.9 = 1.9016 ms.
  Scenario s = scenario("a100:1x8", {{"fsdp", 8, 1}}, smallLlama());
  s.training.recompute = Recompute::Selective;
  const Analysis flash = analyze(s);
  s.training.attention = AttentionKernel::Materialized;
  const Analysis materialized = analyze(s);
  REQUIRE(flash.step.estimated);
  REQUIRE(materialized.step.estimated);
  const double expected = 52.0 * 8 * 2048 * 2048 * 2 * kA100HbmSecondsPerByte;
  CHECK(materialized.step.elementwise_s - flash.step.elementwise_s == Approx(expected).epsilon(1e-9));
  CHECK(materialized.step.time_s > flash.step.time_s + 0.9 * expected);
  // Without recompute the forward runs once: 13 x 3 = 39 bytes per element. Memory then keeps
  // the softmax, mask and dropout output (5 bytes per element, Korthikanti's 5as/h).
  s.training.recompute = Recompute::None;
  const Analysis kept = analyze(s);
  s.training.attention = AttentionKernel::Flash;
  const Analysis keptFlash = analyze(s);
  CHECK(kept.step.elementwise_s - keptFlash.step.elementwise_s ==
        Approx(39.0 * 8 * 2048 * 2048 * 2 * kA100HbmSecondsPerByte).epsilon(1e-9));
  // Two layers of 5 x 8 x 2048 x 2048 bytes on every device.
  CHECK(kept.memory.per_device[0].activations - keptFlash.memory.per_device[0].activations ==
        5.0 * 8 * 2048 * 2048 * 2);
}

TEST_CASE("a device of a two-core chip has half the chip's FLOP/s, HBM and bandwidth", "[step][memory]") {
  // TPU7x: 2307 TFLOP/s, 192 GB of HBM at 7370 GB/s per chip, two TensorCores, each a JAX device.
  // 7x:2x2x1 is 4 chips, 8 devices; with cores=1 (one device per chip, as on a megacore chip) the
  // same mesh over the 4 chips sees the whole chip.
  Scenario s = scenario("7x:2x2x1", {{"fsdp", 8, 1}}, smallLlama());
  const Analysis two = analyze(s);
  REQUIRE(two.step.estimated);
  CHECK(two.step.peak_flops.value == 2307e12 / 2);
  CHECK(two.step.hbm_bandwidth.value == 7370e9 / 2);
  CHECK(two.memory.hbm_bytes == 192e9 / 2);
  CHECK(std::find(two.step.notes.begin(), two.step.notes.end(),
                  "each device is one of the chip's 2 TensorCores: it has 1/2 of the chip's peak FLOP/s, HBM and HBM "
                  "bandwidth") != two.step.notes.end());
  s.topology = parseTopology("7x:2x2x1:cores=1");
  s.mesh.axes = {{"fsdp", 4, 1}};
  const Analysis one = analyze(s);
  REQUIRE(one.step.estimated);
  CHECK(one.step.peak_flops.value == 2307e12);
  CHECK(one.memory.hbm_bytes == 192e9);
  // Two devices at half the peak do a chip's work in the same time: 8 sequences over 8 cores (one
  // each) or over 4 chips (two each), one compute time (the FSDP rings differ, so only the compute
  // is compared).
  CHECK(two.step.compute_s == Approx(one.step.compute_s).epsilon(1e-9));
}

TEST_CASE("Megatron's cross entropy moves 52 bytes per logit, a fused loss 20", "[step]") {
  // a100:1x8, fsdp 8, micro-batch 8: one sequence of 2048 tokens per device; smallLlama's
  // vocabulary of 1024, unsplit: 2048 x 1024 = 2,097,152 logits per device. A fused loss (XLA, the
  // generic default) writes and reads fp32 logits: 12 bytes forward, 8 backward. Megatron's
  // vocab-parallel cross entropy runs as separate kernels over fp32 copies: 38 forward, 14
  // backward (cross_entropy.py, counted in step_work.cpp). 32 more bytes per logit at
  // 2039 GB/s x 0.9.
  Scenario s = scenario("a100:1x8", {{"fsdp", 8, 1}}, smallLlama());
  s.training.recompute = Recompute::None;
  const Analysis fused = analyze(s);
  s.training.framework = Framework::Megatron;
  const Analysis megatron = analyze(s);
  REQUIRE(fused.step.estimated);
  REQUIRE(megatron.step.estimated);
  const double logits = 2048.0 * 1024;
  CHECK(megatron.step.elementwise_s - fused.step.elementwise_s ==
        Approx(32.0 * logits * kA100HbmSecondsPerByte).epsilon(1e-9));
  // The head's share (the last pipeline stage's extra work) carries it too.
  CHECK(megatron.step.head_fwd_s - fused.step.head_fwd_s ==
        Approx(26.0 * logits * kA100HbmSecondsPerByte).epsilon(1e-9));
  CHECK(megatron.step.head_bwd_s - fused.step.head_bwd_s ==
        Approx(6.0 * logits * kA100HbmSecondsPerByte).epsilon(1e-9));
}

TEST_CASE("a run with Megatron's --tp-comm-overlap hides its tensor collectives", "[validation]") {
  // The pp 2 x dp 2 x tp 8 hand-made run: Megatron leaves tensor collectives exposed unless the
  // run says tp_comm_overlap (performance.overlap_tensor_comm); with it, the tp axis' exposed
  // time falls while its collectives take as long as before.
  Json file = handMadeRunFile({{"step_time_s", 1.0}});
  file["runs"][0]["sequence_parallel"] = true;
  const Scenario plain = runScenario(validationRunsFromJson(file, "hand.json")[0]);
  CHECK_FALSE(plain.performance.overlap_tensor_comm.has_value());
  file["runs"][0]["tp_comm_overlap"] = true;
  const Scenario overlapped = runScenario(validationRunsFromJson(file, "hand.json")[0]);
  REQUIRE(overlapped.performance.overlap_tensor_comm.has_value());
  CHECK(*overlapped.performance.overlap_tensor_comm);
  const Analysis a = analyze(plain), b = analyze(overlapped);
  REQUIRE(a.step.estimated);
  REQUIRE(b.step.estimated);
  CHECK(axisOf(b, "tp").exposed < axisOf(a, "tp").exposed);
  CHECK(axisOf(b, "tp").seconds == Approx(axisOf(a, "tp").seconds));
  file["runs"][0]["tp_comm_overlap"] = "yes";
  CHECK_THROWS_WITH(validationRunsFromJson(file, "hand.json"), Catch::Contains("tp_comm_overlap"));
}

TEST_CASE("a run on a two-core chip states MaxText's per-device degrees and per-chip throughput", "[validation]") {
  // TPU7x 2x2x1: 4 chips, 8 JAX devices (one per TensorCore). MaxText's degrees are per device,
  // so fsdp 8; the tpu-recipes tables give TFLOP/s per chip. 8 sequences of 2048 tokens of
  // smallLlama: published model FLOPs over the 4 chips at 1000 TFLOP/s each; the same figure as
  // MaxText logs it, per device, is half that per device over 8 devices: the same step time.
  Json file = handMadeRunFile({{"tflops_per_chip", 1000.0}});
  Json& run = file["runs"][0];
  run["framework"] = "maxtext";
  run["hardware"] = {{"chip", "7x"}, {"shape", {2, 2, 1}}};
  run["parallelism"] = {{"fsdp", 8}};
  run["global_batch"] = 8;
  run.erase("micro_batch");
  run["recompute"] = "full";
  const auto runs = validationRunsFromJson(file, "hand.json");
  AnalysisCache cache;
  const ValidationResult perChip = validateRun(runs[0], cache);
  REQUIRE(perChip.ok);
  CHECK(perChip.devices == 8);
  CHECK(perChip.chips == 4);
  const double flops = publishedModelFlops(modelConfigFromHf(smallLlama()), 8.0 * 2048, 2048);
  CHECK(perChip.measured_step_s == Approx(flops / (4 * 1000e12)).epsilon(1e-12));
  // MFU against the chips' peak: 1000 / 2307.
  CHECK(perChip.measured_mfu == Approx(1000.0 / 2307).epsilon(1e-9));
  run["measured"] = {{"tflops_per_device", 500.0}};
  const ValidationResult perDevice = validateRun(validationRunsFromJson(file, "hand.json")[0], cache);
  CHECK(perDevice.measured_step_s == Approx(perChip.measured_step_s).epsilon(1e-12));
  // Degrees over the chips instead of the devices are refused with the device count.
  run["parallelism"] = {{"fsdp", 4}};
  CHECK_THROWS_WITH(runScenario(validationRunsFromJson(file, "hand.json")[0]),
                    Catch::Contains("the parallel degrees multiply to 4, not the 8 devices"));
}
