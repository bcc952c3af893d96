// SPDX-License-Identifier: Apache-2.0
// The gradient dtype: Megatron-LM keeps a bf16 model's gradients in fp32 (main_grad), which its
// distributed-optimizer guide counts as 18 bytes per parameter with Adam (2 bf16 parameter, 4 fp32
// gradient, 4 + 4 + 4 fp32 master copy, m and v), and 6 + 12/d with the optimizer distributed over
// d data-parallel replicas; every other framework keeps them in the parameters' dtype (16 bytes).
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

using namespace shardscope;

namespace {

// One 4096 x 4096 bf16 weight, replicated on 4 A100s (data parallelism only), Adam with an fp32
// master copy: every device holds all P = 4096^2 parameters.
constexpr double kParams = 4096.0 * 4096.0;

Scenario replicatedWeight(Framework framework, int zeroStage) {
  Scenario s = defaultScenario();
  s.topology = parseTopology("a100:1x4");
  s.mesh.axes = {{"dp", 4, 1, AxisType::Explicit}};
  s.model = {};
  s.model.preset.clear();
  s.model.inline_params =
      Json::parse(R"([{"path": "model.layers.0.mlp.up_proj.weight", "shape": [4096, 4096], "dtype": "bfloat16"}])");
  s.rules = {};
  s.rules.preset = "dp";
  s.training.framework = framework;
  s.training.param_dtype = "bfloat16";
  s.training.optimizer = Optimizer::AdamW;
  s.training.master_weights_fp32 = true;
  s.training.zero_stage = zeroStage;
  s.training.batch_axes = {"dp"};
  s.training.micro_batch = 4;
  return s;
}

// Parameters, gradients and optimizer state (master copy included) per parameter, on device 0.
double stateBytesPerParam(const Analysis& a) {
  REQUIRE_FALSE(a.memory.per_device.empty());
  const auto& d = a.memory.per_device.front();
  return (d.params + d.grads + d.optimizer) / kParams;
}

} // namespace

TEST_CASE("Megatron keeps a bf16 model's gradients in fp32: 18 bytes per parameter, 6 + 12/d distributed",
          "[memory][framework]") {
  const Analysis megatron = analyze(replicatedWeight(Framework::Megatron, 0));
  CHECK(megatron.memory.per_device.front().grads == Approx(4 * kParams));
  CHECK(stateBytesPerParam(megatron) == Approx(18.0));
  // The note says where the figure comes from and which key overrides it.
  CHECK(std::any_of(megatron.diagnostics.begin(), megatron.diagnostics.end(), [](const Diagnostic& d) {
    return d.message.find("gradients in float32") != std::string::npos &&
           d.message.find("training.grad_dtype") != std::string::npos;
  }));
  // The distributed optimizer (ZeRO-1) over d = 4: 2 + 4 + 12/4 = 9.
  CHECK(stateBytesPerParam(analyze(replicatedWeight(Framework::Megatron, 1))) == Approx(6.0 + 12.0 / 4));
  // Generic and MaxText keep them in the parameters' bf16: 16 bytes.
  CHECK(stateBytesPerParam(analyze(replicatedWeight(Framework::Generic, 0))) == Approx(16.0));
  CHECK(stateBytesPerParam(analyze(replicatedWeight(Framework::MaxText, 0))) == Approx(16.0));
  // A dtype alias counts as its name: "bf16" is bfloat16.
  Scenario alias = replicatedWeight(Framework::Megatron, 0);
  alias.training.param_dtype = "bf16";
  CHECK(stateBytesPerParam(analyze(alias)) == Approx(18.0));
  // An fp16 model under Megatron keeps fp16 gradients (accumulate_allreduce_grads_in_fp32 is off).
  Scenario fp16 = replicatedWeight(Framework::Megatron, 0);
  fp16.training.param_dtype = "float16";
  fp16.model.inline_params[0]["dtype"] = "float16";
  CHECK(stateBytesPerParam(analyze(fp16)) == Approx(16.0));
}

TEST_CASE("training.grad_dtype overrides the framework's, round-trips and names itself when unknown",
          "[memory][framework][workspace]") {
  Scenario s = replicatedWeight(Framework::Megatron, 0);
  s.training.grad_dtype = "bfloat16";
  CHECK(stateBytesPerParam(analyze(s)) == Approx(16.0));
  s.training.grad_dtype = "float32";
  Scenario generic = replicatedWeight(Framework::Generic, 0);
  generic.training.grad_dtype = "float32";
  CHECK(stateBytesPerParam(analyze(generic)) == Approx(18.0));

  // Saved only when set; read back equal.
  CHECK(scenarioToJson(s)["training"]["grad_dtype"] == "float32");
  CHECK_FALSE(scenarioToJson(replicatedWeight(Framework::Megatron, 0))["training"].contains("grad_dtype"));
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);

  s.training.grad_dtype = "float13";
  const Analysis bad = analyze(s);
  CHECK(std::any_of(bad.diagnostics.begin(), bad.diagnostics.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::Error &&
           d.message.find("training.grad_dtype: unknown dtype 'float13'") != std::string::npos;
  }));
}

TEST_CASE("Megatron's fp32 gradients double the data-parallel gradient all-reduce", "[step][framework]") {
  // GPT-2 on 4 A100s, data parallel only: the dp axis carries only the gradient all-reduce, whose
  // bytes are the replicated parameters' in the gradient dtype.
  auto dpGradBytes = [](Framework framework) {
    Scenario s = replicatedWeight(framework, 0);
    s.model = {};
    s.model.preset = "gpt2";
    s.training.seq_len = 1024;
    const Analysis a = analyze(s);
    REQUIRE(a.step.estimated);
    double bytes = 0;
    for (const auto& axis : a.step.per_axis)
      for (const auto& c : axis.collectives)
        if (c.purpose == "dp_grads") bytes += c.bytes;
    return bytes;
  };
  const double generic = dpGradBytes(Framework::Generic);
  REQUIRE(generic > 0);
  CHECK(dpGradBytes(Framework::Megatron) == Approx(2 * generic));
}

TEST_CASE("training.precision is a closed set, round-trips, and an 8-bit one needs the chip's published peak",
          "[step][precision][workspace]") {
  Scenario s = replicatedWeight(Framework::Generic, 0);
  s.training.precision = Precision::Int8;
  CHECK(scenarioToJson(s)["training"]["precision"] == "int8");
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
  // A100: INT8 624 TOP/s dense (NVIDIA's datasheet, the sparse 1,248 halved); no FP8 unit.
  CHECK(stepOptionsFromScenario(s, "a100").peak_matmul_flops.value == 624e12);
  s.training.precision = Precision::Fp8;
  const Analysis bad = analyze(s);
  CHECK(std::any_of(bad.diagnostics.begin(), bad.diagnostics.end(), [](const Diagnostic& d) {
    return d.severity == Diagnostic::Severity::Error &&
           d.message.find("training.precision \"fp8\": the NVIDIA A100-SXM4-80GB has no published FP8 matmul peak "
                          "(chips with one: ") != std::string::npos &&
           d.message.find("h100") != std::string::npos;
  }));
  // The same on H100: 1,979 TFLOP/s FP8 dense.
  s.topology = parseTopology("h100:1x4");
  CHECK(stepOptionsFromScenario(s, "h100").peak_matmul_flops.value == 1979e12);
  // An unknown name is refused naming the known ones.
  Json j = scenarioToJson(s);
  j["training"]["precision"] = "fp4";
  CHECK_THROWS_WITH(scenarioFromJson(j), Catch::Matchers::Contains("bf16") && Catch::Matchers::Contains("int8"));
}
