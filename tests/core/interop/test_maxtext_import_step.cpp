// SPDX-License-Identifier: Apache-2.0
// The step of a MaxText run imported from its config is the step of the same run written by hand:
// a scanned stack of layers costs what the unrolled layers cost, MaxText's paths and logical axis
// names give each parameter the role Hugging Face's names give it, and the HBM time is the
// traffic the step moves. The reference figures are the validation suite's hand-written run and
// its measurement (tpu-recipes' Llama 2 70B on v6e-256: 9.052 s per step, resources/validation).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/validation/validation.hpp"
#include "shardscope/models/model_loaders.hpp"
#include "shardscope/step/step_time.hpp"

#include <catch2/catch.hpp>

#include <filesystem>

using namespace shardscope;

namespace {

const std::string kData = SHARDSCOPE_TEST_DATA "/maxtext/";

// tpu-recipes' Llama 2 70B run on v6e-256 as a user imports it (the command line).
Scenario llama2Recipe(bool scan) {
  MaxTextImportNotes notes;
  return importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                       {"compile_topology=v6e-256", "per_device_batch_size=2", "max_target_length=4096",
                        "remat_policy=qkv_proj_offloaded", "attention=flash",
                        std::string("scan_layers=") + (scan ? "true" : "false")},
                       notes);
}

const ValidationRun& suiteRun(const std::vector<ValidationRun>& runs, const std::string& id) {
  for (const auto& r : runs)
    if (r.id == id) return r;
  FAIL("no run " << id << " in the suite");
  return runs.front();
}

Param param(std::string path, Shape shape, std::vector<std::string> axes) {
  Param p{std::move(path), std::move(shape), "float32", {}};
  p.logical_axes = std::move(axes);
  return p;
}

} // namespace

TEST_CASE("MaxText's paths and logical axes give each parameter its role and matmul form", "[maxtext][step]") {
  Model m;
  m.name = "maxtext-like";
  // As maxtext_params.cpp builds them (scan axis 1): 3 layers, width 64, 4 heads of 16, MLP 256,
  // vocabulary 1000, 8 experts.
  m.params = {
      param("params/token_embedder/embedding", {1000, 64}, {"vocab", "embed_vocab"}),
      param("params/decoder/layers/pre_self_attention_layer_norm/scale", {64, 3}, {"norm", "layers"}),
      param("params/decoder/layers/self_attention/query/kernel", {64, 3, 4, 16}, {"embed", "layers", "q_heads", "kv"}),
      param("params/decoder/layers/self_attention/out/kernel", {4, 3, 16, 64}, {"heads", "layers", "kv", "embed"}),
      param("params/decoder/layers/mlp/wi_0/kernel", {64, 3, 256}, {"embed", "layers", "mlp"}),
      param("params/decoder/layers/mlp/wo/kernel", {256, 3, 64}, {"mlp", "layers", "embed"}),
      param("params/decoder/layers/MoeBlock_0/wi_0", {8, 3, 64, 256}, {"exp", "layers", "embed_moe", "mlp_moe"}),
      param("params/decoder/layers/MoeBlock_0/gate/kernel", {64, 3, 8}, {"embed", "layers", ""}),
      param("params/decoder/decoder_norm/scale", {64}, {"norm"}),
      param("params/decoder/logits_dense/kernel", {64, 1000}, {"embed_vocab", "vocab"})};
  const ParamRoles r = classifyParams(m);
  using R = ParamRole;
  CHECK(r.role == std::vector<R>{R::Embedding, R::None, R::Attention, R::Attention, R::Mlp, R::Mlp, R::RoutedExpert,
                                 R::Mlp, R::None, R::Output});
  // The output projection is logits_dense: the embedding is not used as the output matmul too.
  CHECK_FALSE(r.tied_output);
  using D = MatmulDim;
  const auto form = [&](std::size_t i) { return r.forms[r.form[i]].dims; };
  // query: width in, [heads, head_dim] out; the layers axis is a stack of copies.
  CHECK(form(2) == std::vector<D>{D::In, D::Stack, D::Out, D::Out});
  // out: [heads, head_dim] in, width out.
  CHECK(form(3) == std::vector<D>{D::In, D::Stack, D::In, D::Out});
  CHECK(form(5) == std::vector<D>{D::In, D::Stack, D::Out});
  // experts and layers both stack.
  CHECK(form(6) == std::vector<D>{D::Stack, D::Stack, D::In, D::Out});
  // Without logical axes a weight is [..., in, out].
  CHECK(matmulFormOf(Param{"w", {8, 64, 256}, "float32", {}}).dims == std::vector<D>{D::Stack, D::In, D::Out});
}

TEST_CASE("logical axes round-trip through a model's JSON and must match the rank", "[maxtext][step]") {
  const Json j = {
      {"name", "m"},
      {"params", {{{"path", "a"}, {"shape", {4, 3}}, {"dtype", "float32"}, {"logical_axes", {"embed", nullptr}}}}}};
  const Model m = modelFromJson(j);
  CHECK(m.params[0].logical_axes == std::vector<std::string>{"embed", ""});
  CHECK(modelToJson(m)["params"][0]["logical_axes"] == Json({"embed", nullptr}));
  Json wrong = j;
  wrong["params"][0]["logical_axes"] = {"embed"};
  CHECK_THROWS_WITH(modelFromJson(wrong), Catch::Contains("logical_axes") && Catch::Contains("2 names"));
}

TEST_CASE("an imported MaxText run predicts the step of the same run written by hand", "[maxtext][step]") {
  const Analysis scanned = analyze(llama2Recipe(true));
  const Analysis unrolled = analyze(llama2Recipe(false));
  REQUIRE(scanned.step.estimated);
  REQUIRE(unrolled.step.estimated);
  // A scanned stack reads each layer's slice once per pass, as the unrolled layers do: the same
  // bytes, the same time.
  CHECK(scanned.step.hbm_bytes == Approx(unrolled.step.hbm_bytes).epsilon(1e-9));
  CHECK(scanned.step.time_s == Approx(unrolled.step.time_s).epsilon(1e-9));

  const auto runs = loadValidationRuns(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "validation");
  const ValidationRun& run = suiteRun(runs, "maxtext-v6e-llama2-70b-v6e-256");
  const Analysis byHand = analyze(runScenario(run));
  REQUIRE(byHand.step.estimated);
  CHECK(scanned.step.time_s == Approx(byHand.step.time_s).epsilon(0.02));
  CHECK(scanned.step.model_flops == Approx(byHand.step.model_flops).epsilon(0.001));
  // The measurement: 9.052 s per step (the recipe's sample log line).
  REQUIRE(run.step_time_s);
  CHECK(*run.step_time_s == Approx(9.052));
  CHECK(scanned.step.time_s == Approx(9.052).epsilon(0.10));
  // 8192 tokens per device of a 70B model: compute-bound, and the summary says so.
  CHECK(scanned.step.bound_by.part == StepPart::Compute);
  CHECK(scanned.step.hbm_s < 0.1 * scanned.step.time_s);
}

TEST_CASE("an imported run on v5p-256 costs the same scanned or unrolled", "[maxtext][step]") {
  Scenario s[2];
  for (int scan = 0; scan < 2; ++scan) {
    MaxTextImportNotes notes;
    s[scan] = importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                            {"compile_topology=v5p-256", "per_device_batch_size=2",
                             std::string("scan_layers=") + (scan ? "true" : "false")},
                            notes);
  }
  const Analysis a = analyze(s[0]), b = analyze(s[1]);
  REQUIRE(a.step.estimated);
  CHECK(a.step.time_s == Approx(b.step.time_s).epsilon(1e-9));
  // 128 devices x 2 sequences x 2048 tokens of a 68.98e9-parameter model with full remat: the
  // matmuls' 8 x N x tokens (forward, re-run, backward) at v5p's 459e12 FLOP/s and its fitted
  // fraction dominate; the HBM-bound part is a few percent.
  CHECK(a.step.bound_by.part == StepPart::Compute);
  CHECK(a.step.hbm_s < 0.1 * a.step.time_s);
}

TEST_CASE("the HBM advice names what the HBM-bound time is spent on", "[step]") {
  // One sequence of 64 tokens on one device (no collectives): each weight is read for 64 tokens,
  // far below v6e's 918e12 / 1.64e12 = 560 FLOPs per byte, so the weights' reads bound the matmuls.
  const auto imported = [](const std::string& accumulation) {
    MaxTextImportNotes notes;
    Scenario s = importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"},
                               {"compile_topology=v6e-1", "per_device_batch_size=1", "max_target_length=64",
                                "gradient_accumulation_steps=" + accumulation},
                               notes);
    // 70B on one chip is far over its HBM, and a layout that does not fit is told to make it fit
    // first: the device here has room, so the verdict is the HBM-bound reason under test.
    s.training.hbm_bytes_override = 1e15;
    return analyze(s);
  };
  // One micro-batch: the AdamW update of 69e9 float32 parameters (4 + 4 + 4 read and written, 16
  // of state: 28 bytes each, 1.9e12 bytes) at 0.9 x 1.64e12 B/s takes 1.31 s, more than the
  // weights' reads of one micro-batch (3 passes x 2.8e11 bytes, 0.57 s).
  const Analysis once = imported("1");
  REQUIRE(once.step.estimated);
  CHECK(once.step.bound_by.part == StepPart::Hbm);
  CHECK(once.step.optimizer_s == Approx(68.98e9 * 28 / (0.9 * 1.64e12)).epsilon(0.02));
  CHECK(once.step.optimizer_s > once.step.hbm_weights_s);
  CHECK(once.step.summary.find("the optimizer update") != std::string::npos);
  // Eight micro-batches: the weights are read eight times, the optimizer runs once.
  const Analysis eight = imported("8");
  CHECK(eight.step.bound_by.part == StepPart::Hbm);
  CHECK(eight.step.hbm_weights_s == Approx(8 * once.step.hbm_weights_s).epsilon(1e-6));
  CHECK(eight.step.hbm_weights_s > eight.step.optimizer_s);
  CHECK(eight.step.hbm_weights_s > 100 * eight.step.hbm_activations_s);
  CHECK(eight.step.summary.find("too few tokens per device to reuse each weight") != std::string::npos);
}

TEST_CASE("one DeepSeek-V3 MoE layer's step FLOPs, worked by hand", "[maxtext][step]") {
  // deepseek3-671b.yml cut to one MoE layer on v5p-8 (4 devices), one sequence of 1024 tokens each.
  MaxTextImportNotes notes;
  const std::filesystem::path snapshot = std::filesystem::path(SHARDSCOPE_TEST_DATA) / "maxtext-snapshot";
  const Scenario s = importMaxText({snapshot / "base.yml", snapshot / "models" / "deepseek3-671b.yml"},
                                   {"compile_topology=v5p-8", "override_model_config=true", "base_num_decoder_layers=1",
                                    "first_num_dense_layers=0", "per_device_batch_size=1", "max_target_length=1024"},
                                   notes);
  const Analysis a = analyze(s);
  REQUIRE(a.step.estimated);
  // Per token, 2 FLOPs per weight forward and 4 backward (6 in all) over the matmul weights:
  // MLA wq_a 7168x1536 + wq_b 1536x128x192 + wkv_a 7168x576 + wkv_b 512x128x256 + out 128x128x7168
  // = 187,105,280; the router 7168x256 = 1,835,008; the routed experts 3x256x7168x2048 seen by 8 of
  // 256 = 352,321,536; the shared expert 3x7168x2048 = 44,040,192; logits_dense 7168x129280 =
  // 926,679,040: 1,511,981,056 in all. Attention: 2 x 512.5 keys (causal, 1024 tokens) x (queries
  // 128x192 + values 128x128) = 41,984,000 per token forward, three passes. 4096 tokens:
  // (6 x 1,511,981,056 + 3 x 41,984,000) x 4096 = 3.7674e13.
  CHECK(a.step.model_flops == Approx(37674345824256.0).epsilon(1e-9));
}
