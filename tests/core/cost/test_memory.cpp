// SPDX-License-Identifier: Apache-2.0
// The per-device memory engine: ZeRO's worked example, Korthikanti's activation formulas, KV cache
// and the optimizer variants, each against numbers computed by hand in the comments.
#include "shardscope/base/errors.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/models/layer_pattern.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

// The ZeRO paper's model: Ψ = 7.5B parameters, no architecture (so no activations).
constexpr double kPsi = 7.5e9;
constexpr int kDevices = 64;

MemoryOptions mixedPrecisionAdam() {
  MemoryOptions o;
  o.optimizer = Optimizer::AdamW;
  o.master_weights_fp32 = true; // K = 12: fp32 master + m + v
  o.device_kind = "v5p";
  return o;
}

// Each device's bytes under one ZeRO stage: what is sharded over the 64 data-parallel devices.
double zeroStage(bool shardOptimizer, bool shardGrads, bool shardParams) {
  DeviceParamShards d;
  d.param_elements = shardParams ? kPsi / kDevices : kPsi;
  d.param_bytes = 2 * d.param_elements; // fp16/bf16 weights
  d.grad_elements = shardGrads ? kPsi / kDevices : d.param_elements;
  d.optimizer_elements = shardOptimizer ? kPsi / kDevices : d.param_elements;
  const MemoryEstimate e = estimateMemory(std::vector<DeviceParamShards>(kDevices, d), Model{}, mixedPrecisionAdam());
  REQUIRE(e.per_device.size() == kDevices);
  CHECK(e.max_bytes == Approx(e.mean_bytes));
  CHECK(e.per_device[0].activations == 0);
  return e.max_bytes;
}

} // namespace

TEST_CASE("ZeRO paper: 7.5B params on 64 devices, 120 -> 31.4 -> 16.6 -> 1.9 GB", "[memory]") {
  CHECK(zeroStage(false, false, false) == Approx(120e9));     // (2 + 2 + 12) Ψ
  CHECK(zeroStage(true, false, false) == Approx(31.40625e9)); // 4Ψ + 12Ψ/64
  CHECK(zeroStage(true, true, false) == Approx(16.640625e9)); // 2Ψ + 14Ψ/64
  CHECK(zeroStage(true, true, true) == Approx(1.875e9));      // 16Ψ/64

  // Category split of the baseline: 15 GB weights, 15 GB grads, 30 GB master, 60 GB m+v.
  DeviceParamShards d{kPsi, 2 * kPsi, {}, {}, {}};
  const auto e = estimateMemory({d}, Model{}, mixedPrecisionAdam());
  CHECK(e.per_device[0].params == Approx(15e9));
  CHECK(e.per_device[0].grads == Approx(15e9));
  CHECK(e.per_device[0].master_weights == Approx(30e9));
  CHECK(e.per_device[0].optimizer == Approx(60e9));
  CHECK(e.hbm_bytes == Approx(95.0 * 1024 * 1024 * 1024));
  CHECK(e.out_of_memory); // 120 GB > 95 GiB
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "model '' has no architecture config: activations not estimated");
}

TEST_CASE("Korthikanti per-layer activations match Table 2 by hand", "[memory]") {
  // s = 2048, b = 1, h = 4096, a = 32: sbh = 8,388,608 and 5as/h = 80. Table 2 is Megatron's
  // materialized attention; flash attention stores no scores.
  LayerActivationShape s{2048, 2048, 1, 4096, 32, 1, false, true, {}};
  CHECK(activationBytesPerLayer(s, Recompute::None) == 956'301'312.0);      // sbh (34 + 80)
  CHECK(activationBytesPerLayer(s, Recompute::Selective) == 285'212'672.0); // 34 sbh
  CHECK(activationBytesPerLayer(s, Recompute::Full) == 16'777'216.0);       // 2 sbh
  s.tensor = 8;
  CHECK(activationBytesPerLayer(s, Recompute::None) == 192'937'984.0);      // sbh (10 + 24/8 + 80/8)
  CHECK(activationBytesPerLayer(s, Recompute::Selective) == 109'051'904.0); // sbh (10 + 3)
  CHECK(activationBytesPerLayer(s, Recompute::Full) == 16'777'216.0);       // layer input is not split without SP
  s.sequence_parallel = true;
  CHECK(activationBytesPerLayer(s, Recompute::None) == 119'537'664.0);     // sbh/8 (34 + 80)
  CHECK(activationBytesPerLayer(s, Recompute::Selective) == 35'651'584.0); // 34 sbh / 8
  CHECK(activationBytesPerLayer(s, Recompute::Full) == 2'097'152.0);       // 2 sbh / 8
  s.materialized_scores = false;
  CHECK(activationBytesPerLayer(s, Recompute::None) == 35'651'584.0); // 34 sbh / 8: no score terms
  // Table 2's widths stated are Table 2's numbers.
  s.widths = {4096, 4096, 4 * 4096, 4 * 4096};
  CHECK(activationBytesPerLayer(s, Recompute::None) == 35'651'584.0);

  // Megatron-LM CI's 7B GPT (gpt3_7b_tp4_pp1_memory_speed): 8 query groups of 128, so keys and
  // values are 1024 wide; s = 8192, b = 2, TP 4 without sequence parallelism, flash attention.
  // Split per token: 2 x (2 x 4096 + 2 x 1024 + 16384 + 16384) = 86,016 bytes = 21 h, over 4:
  // sbh (10 + 5.25) = 15.25 x 67,108,864 = 1,023,410,176.
  LayerActivationShape gqa{8192, 8192, 2, 4096, 32, 4, false, false, {4096, 1024, 16384, 16384}};
  CHECK(activationBytesPerLayer(gqa, Recompute::None) == 1'023'410'176.0);
  CHECK(activationBytesPerLayer(gqa, Recompute::Selective) == 1'023'410'176.0); // flash: nothing to drop
}

TEST_CASE("training activations for Llama-3.1-8B: layers, logits, batch and context sharding", "[memory]") {
  const Model m = loadPresetModel("llama-3.1-8b");
  MemoryOptions o;
  o.device_kind = "TPU v5p";
  o.micro_batch = 8;
  o.batch_degree = 8; // one sequence per device
  o.seq_len = 4096;
  o.recompute = Recompute::Selective;
  const auto e = estimateMemory({wholeModelShards(m)}, m, o);
  // Table 2's terms at Llama's widths: 10 sbh of model-width tensors plus, per token, 2 bytes of
  // queries (4096), keys and values (8 heads x 128 = 1024 each), the attention output (4096), the
  // gated MLP's two input projections (2 x 14336) and its output projection's input (14336):
  // 2 x 53,248 = 106,496 bytes = 26 h. Per layer 36 * 4096 * 1 * 4096 = 603,979,776; 32 layers =
  // 19,327,352,832;
  // output 4 * 4096 * (4096 + 128256) = 2,168,455,168; at the loss's backward (the generic
  // framework on a TPU: XLA's 6 bytes per logit) 2 more bytes per logit: 2 * 4096 * 128256 =
  // 1,050,673,152.
  CHECK(e.activations.per_layer == 603'979'776.0);
  CHECK(e.activations.layers == 32);
  CHECK(e.activations.output_layer == 2'168'455'168.0);
  CHECK(e.activations.loss_gradient == 1'050'673'152.0);
  CHECK(e.activations.recompute_layer == 0); // selective with flash attention re-runs nothing it kept
  CHECK(e.per_device[0].activations == 22'546'481'152.0);
  // bf16 params and grads, AdamW m and v without master weights: 2 + 2 + 8 bytes per parameter.
  CHECK(e.per_device[0].params == 2.0 * 8'030'261'248);
  CHECK(e.per_device[0].grads == 2.0 * 8'030'261'248);
  CHECK(e.per_device[0].optimizer == 8.0 * 8'030'261'248);
  CHECK(e.per_device[0].master_weights == 0);
  CHECK(e.max_bytes == Approx(12.0 * 8'030'261'248 + 22'546'481'152.0));
  CHECK(e.out_of_memory == (e.max_bytes > 95.0 * 1024 * 1024 * 1024));

  // Context parallelism over 2 devices, no recompute, materialized attention: s_q = 2048 but the
  // scores span all 4096 keys.
  o.recompute = Recompute::None;
  o.attention = AttentionKernel::Materialized;
  o.seq_degree = 2;
  o.include_output_layer = false;
  const auto cp = estimateMemory({wholeModelShards(m)}, m, o);
  // 36 * 2048 * 4096 + 5 * 32 * 2048 * 4096 = 301,989,888 + 1,342,177,280
  CHECK(cp.activations.per_layer == 1'644'167'168.0);
  // Flash attention (the default) keeps no scores: 36 * 2048 * 4096.
  o.attention = AttentionKernel::Flash;
  CHECK(estimateMemory({wholeModelShards(m)}, m, o).activations.per_layer == 301'989'888.0);
  CHECK(cp.activations.output_layer == 0);

  // An uneven batch pads: 3 sequences over 2 devices -> 2 per device.
  o.seq_degree = 1;
  o.recompute = Recompute::Full;
  o.micro_batch = 3;
  o.batch_degree = 2;
  CHECK(estimateMemory({wholeModelShards(m)}, m, o).activations.per_layer == 2.0 * 4096 * 2 * 4096);
}

TEST_CASE("activations at the backward's peak: the loss's gradient or one re-run layer", "[memory]") {
  const Model m = loadPresetModel("llama-3.1-8b");
  MemoryOptions o;
  o.micro_batch = 1;
  o.seq_len = 4096;
  o.recompute = Recompute::Full;
  // Full recompute keeps 2sbh per layer; the layer being re-run holds what `none` keeps (36 sbh at
  // Llama's widths, above) until its backward ends: (36 - 2) * 4096 * 4096 = 570,425,344 beside the
  // 32 kept inputs (32 * 2 * 4096 * 4096).
  o.include_output_layer = false;
  const auto layersOnly = estimateMemory({wholeModelShards(m)}, m, o).activations;
  CHECK(layersOnly.per_layer == 33'554'432.0);
  CHECK(layersOnly.recompute_layer == 570'425'344.0);
  CHECK(layersOnly.total() == 32 * 33'554'432.0 + 570'425'344.0);

  // With the output layer: the loss's moment is the larger one. Logits 4096 * 128256 =
  // 525,336,576; kept: norm inputs 4 * 4096 * 4096 + fp32 logits 4 * 525,336,576.
  o.include_output_layer = true;
  const double logits = 4096.0 * 128256;
  const double kept = 4.0 * 4096 * 4096 + 4 * logits;
  o.framework = Framework::Generic; // PyTorch's cross entropy: 12 bytes per logit at its backward
  auto a = estimateMemory({wholeModelShards(m)}, m, o).activations;
  CHECK(a.output_layer == kept);
  CHECK(a.loss_gradient == 8 * logits);
  CHECK(a.total() == 32 * 33'554'432.0 + kept + 8 * logits);
  o.framework = Framework::Megatron; // in place: 6 bytes per logit
  a = estimateMemory({wholeModelShards(m)}, m, o).activations;
  CHECK(a.loss_gradient == 2 * logits);
  CHECK(a.total() == 32 * 33'554'432.0 + kept + 2 * logits);
  o.framework = Framework::Generic; // on a TPU the program is XLA's: 6 bytes per logit
  o.device_kind = "TPU v5p";
  CHECK(estimateMemory({wholeModelShards(m)}, m, o).activations.loss_gradient == 2 * logits);
  o.device_kind.clear();
  o.framework = Framework::Megatron;

  // Tensor parallelism without sequence parallelism: the kept input is not split, the re-run
  // layer is sbh (10 + 26/8) - 2sbh = 11.25 sbh; the logits split 8 ways (128256 / 8 = 16032), the
  // norm inputs not: the loss's moment 4 * 4096 * 4096 + 6 * 4096 * 16032 = 461,111,296 is larger.
  o.tensor_degree = 8;
  const auto tp = estimateMemory({wholeModelShards(m)}, m, o).activations;
  CHECK(tp.recompute_layer == 11.25 * 4096 * 4096);
  CHECK(tp.output_layer + tp.loss_gradient == 461'111'296.0);
  CHECK(tp.transient() == 461'111'296.0);

  // torchtitan's selective_op keeps less than MaxText's minimal; the difference comes back for
  // the layer's backward. Llama 3.1 8B per token: minimal h + (4096 + 2048) + h + 2 x 14336 + h =
  // 47,104 elements, selective_op h + 4096 + 1024 + 4096 + 14336 + h = 31,744: 15,360 re-run.
  o.tensor_degree = 1;
  o.recompute = Recompute::SelectiveOp;
  const auto op = estimateMemory({wholeModelShards(m)}, m, o).activations;
  CHECK(op.per_layer == 4096.0 * 2 * 31'744);
  CHECK(op.recompute_layer == 4096.0 * 2 * 15'360);
}

TEST_CASE("KV cache by hand: GQA, tensor split, MLA latent, sliding windows", "[memory]") {
  const auto llama = *loadPresetModel("llama-3.1-8b").config;
  // 2 (K and V) * 8 kv heads * 128 * 32 layers * 8192 tokens * 8 sequences * 2 bytes
  CHECK(kvCacheBytes(llama, 8, 8192, 2) == 8'589'934'592.0);
  CHECK(kvCacheBytes(llama, 8, 8192, 2, 4) == 2'147'483'648.0);    // 2 kv heads per device
  CHECK(kvCacheBytes(llama, 8, 8192, 2, 16) == 1'073'741'824.0);   // heads replicated: still 1 per device
  CHECK(kvCacheBytes(llama, 8, 8192, 2, 1, 4) == 2'147'483'648.0); // context split 4 ways
  const auto deepseek = *loadPresetModel("deepseek-v3").config;
  // (kv_lora_rank 512 + rope 64) * 61 layers * 2 bytes = 70,272 bytes per token
  CHECK(kvCacheBytes(deepseek, 1, 1000, 2) == 70'272'000.0);
  CHECK(kvCacheBytes(deepseek, 1, 1000, 2, 8) == 70'272'000.0); // the latent is not split by heads
  const auto gemma = *loadPresetModel("gemma-2-27b").config;
  // 23 sliding layers keep 4096 tokens, 23 global keep 8192; 2 * 16 * 128 * 2 bytes = 8192 per token-layer
  CHECK(kvCacheBytes(gemma, 1, 8192, 2) == (23.0 * 4096 + 23.0 * 8192) * 8192);
  CHECK(kvCacheBytes(gemma, 1, 1000, 2) == 46.0 * 1000 * 8192); // below the window every layer keeps all
  // The count comes from the pattern, not a loop over layers: every second layer of 46 is global.
  CHECK(slidingLayerCount(gemma) == 23);
  ModelConfig odd = gemma;
  odd.num_layers = 47; // layers 2, 4, ..., 46 are global: 23 of them, 24 sliding
  CHECK(slidingLayerCount(odd) == 24);
  odd.sliding_window_pattern = 0; // no pattern: every layer slides
  CHECK(slidingLayerCount(odd) == 47);
  odd.num_layers = std::int64_t{1} << 31; // a declared 2^31 layers costs nothing to count
  odd.sliding_window_pattern = 6;
  CHECK(slidingLayerCount(odd) == (std::int64_t{1} << 31) - (std::int64_t{1} << 31) / 6);
  CHECK(kvCacheBytes(odd, 1, 8192, 2) ==
        (static_cast<double>(slidingLayerCount(odd)) * 4096 + static_cast<double>((std::int64_t{1} << 31) / 6) * 8192) *
            8192);
}

TEST_CASE("serving: weights plus KV cache per device, fullest device found", "[memory]") {
  const Model m = loadPresetModel("llama-3.1-8b");
  MemoryOptions o;
  o.workload = Workload::Serving;
  o.serve_batch = 16;
  o.batch_degree = 2;
  o.context_len = 8192;
  o.tensor_degree = 4;
  o.device_kind = "v5e";
  std::vector<DeviceParamShards> devices(8);
  for (std::size_t i = 0; i < devices.size(); ++i)
    devices[i] = {1e9, 2e9 + static_cast<double>(i == 5) * 1e6, {}, {}, {}};
  const auto e = estimateMemory(devices, m, o);
  // 8 sequences per device, 2 kv heads per device: 8,589,934,592 / 4
  CHECK(e.kv_cache_per_device == 2'147'483'648.0);
  CHECK(e.per_device[0].kv_cache == 2'147'483'648.0);
  CHECK(e.per_device[0].grads == 0);
  CHECK(e.per_device[0].optimizer == 0);
  CHECK(e.argmax == 5);
  CHECK(e.max_bytes == 2e9 + 1e6 + 2'147'483'648.0);
  CHECK(e.mean_bytes == Approx(2e9 + 1e6 / 8 + 2'147'483'648.0));
  CHECK(e.hbm_bytes == 16e9);
  CHECK_FALSE(e.out_of_memory);
  o.hbm_bytes_override = 4e9;
  CHECK(estimateMemory(devices, m, o).out_of_memory);
}

TEST_CASE("optimizer variants: SGD momentum and factored Adafactor", "[memory]") {
  CHECK(adafactorStateElements({4096, 14336}) == 4096 + 14336);
  CHECK(adafactorStateElements({4096}) == 4096);
  CHECK(adafactorStateElements({8, 4096}) == 8 * 4096); // second-largest dim < 128: not factored
  CHECK(adafactorStateElements({8, 256, 512}) == 8 * (256 + 512));
  CHECK(adafactorStateElements({}) == 1);

  Model m;
  m.name = "toy";
  m.params = {{"w", {256, 512}, "bfloat16"}, {"b", {64}, "bfloat16"}};
  MemoryOptions o;
  o.device_kind = "v4";
  o.optimizer = Optimizer::Adafactor;
  auto whole = wholeModelShards(m);
  CHECK(whole.param_elements == 131'136);
  CHECK(whole.param_bytes == 262'272);
  // Without per-device factored sizes: the model-wide ratio (768 + 64) / 131,136.
  CHECK(estimateMemory({whole}, m, o).per_device[0].optimizer == Approx(4.0 * 832));
  whole.adafactor_elements = 100;
  CHECK(estimateMemory({whole}, m, o).per_device[0].optimizer == 400);
  o.optimizer = Optimizer::SgdMomentum;
  o.master_weights_fp32 = true;
  const auto sgd = estimateMemory({whole}, m, o).per_device[0];
  CHECK(sgd.optimizer == 4.0 * 131'136);
  CHECK(sgd.master_weights == 4.0 * 131'136);
  o.grad_bytes_per_element = 4; // fp32 gradients
  CHECK(estimateMemory({whole}, m, o).per_device[0].grads == 4.0 * 131'136);
  // Training dtype override: fp32 weights of a bf16 checkpoint.
  CHECK(wholeModelShards(m, 4.0).param_bytes == 4.0 * 131'136);
}

TEST_CASE("memory options are validated and map from the scenario", "[memory]") {
  MemoryOptions o;
  o.tensor_degree = 0;
  CHECK_THROWS_WITH(estimateMemory({}, Model{}, o), "tensor_degree must be a positive integer, got 0");
  o = MemoryOptions{};
  o.micro_batch = -1;
  CHECK_THROWS_WITH(estimateMemory({}, Model{}, o), "micro_batch must be a positive integer, got -1");
  o = MemoryOptions{};
  o.hbm_bytes_override = 0;
  CHECK_THROWS_WITH(estimateMemory({}, Model{}, o), "hbm_bytes_override must be positive");
  o = MemoryOptions{};
  o.device_kind = "TPU v99";
  const auto e = estimateMemory({}, Model{}, o);
  CHECK(e.argmax == -1);
  CHECK(e.hbm_bytes == 0);
  CHECK_FALSE(e.out_of_memory);
  CHECK(e.notes.back() == "unknown chip 'TPU v99': no HBM size to compare with");

  TrainingOptions t;
  t.workload = Workload::Serving;
  t.optimizer = Optimizer::SgdMomentum;
  t.recompute = Recompute::Full;
  t.micro_batch = 4;
  t.seq_len = 1024;
  t.kv_dtype = "float8_e4m3fn";
  t.hbm_bytes_override = 1e9;
  const auto mapped = memoryOptionsFromTraining(t, "TPU v4");
  CHECK(mapped.workload == Workload::Serving);
  CHECK(mapped.optimizer == Optimizer::SgdMomentum);
  CHECK(mapped.recompute == Recompute::Full);
  CHECK(mapped.micro_batch == 4);
  CHECK(mapped.seq_len == 1024);
  CHECK(mapped.kv_bytes_per_element == 1.0);
  CHECK(mapped.device_kind == "TPU v4");
  CHECK(mapped.hbm_bytes_override == 1e9);
  t.kv_dtype = "float7";
  CHECK_THROWS_WITH(memoryOptionsFromTraining(t, "v4"), "training.kv_dtype: unknown dtype 'float7'");
}

TEST_CASE("shard accumulation helpers and the max-positions note", "[memory]") {
  DeviceParamShards d;
  addParamShard(d, {1024, 512}, 2.0);
  addParamShard(d, {512}, 4.0);
  CHECK(d.param_elements == 524'800);
  CHECK(d.param_bytes == 1024.0 * 512 * 2 + 512 * 4);
  CHECK(d.optimizer_elements == 524'800);
  CHECK(d.adafactor_elements == 1024 + 512 + 512);
  CHECK_FALSE(d.grad_elements);
  // ZeRO-2 layout: the optimizer state and gradients of a 1/4 slice.
  DeviceParamShards z;
  addParamShard(z, {1024, 512}, 2.0, false);
  addOptimizerShard(z, {256, 512}, true);
  CHECK_FALSE(z.adafactor_elements == std::nullopt);
  CHECK(z.optimizer_elements == 131'072);
  CHECK(z.grad_elements == 131'072);
  CHECK(z.adafactor_elements == 256 + 512);

  const Model gpt2 = loadPresetModel("gpt2");
  MemoryOptions o;
  o.device_kind = "v4";
  o.seq_len = 2048;
  const auto e = estimateMemory({wholeModelShards(gpt2)}, gpt2, o);
  REQUIRE(e.notes.size() == 1);
  CHECK(e.notes[0] == "seq_len 2048 exceeds the model's 1024 positions");
}
