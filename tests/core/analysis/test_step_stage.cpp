// SPDX-License-Identifier: Apache-2.0
// The step-time stage through analyze(): the scaling book's thresholds for Llama-3-70B layers on
// v5p, the workspace fields (microbatches, sequence_parallel, performance) and their errors, the
// `step` JSON under its fixed names, what happens without a config or a chip figure, and the
// default calibration against published measured runs (docs/step-time.md, "How close").
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <cmath>

using namespace shardscope;

namespace {

Scenario llama70b(const std::string& topology, std::vector<MeshAxis> axes) {
  Scenario s = defaultScenario();
  s.topology = parseTopology(topology);
  s.mesh.axes = std::move(axes);
  s.model = {};
  s.model.preset = "llama-3.1-70b";
  s.rules = {};
  s.rules.preset = "fsdp-tp";
  s.training.batch_axes = {"fsdp"};
  s.training.micro_batch = 16;
  s.training.seq_len = 4096;
  return s;
}

const StepCritical& critical(const Analysis& a, const std::string& axis) {
  for (const auto& c : a.step.critical)
    if (c.axis == axis) return c;
  FAIL("no critical entry for " << axis);
  throw;
}

} // namespace

TEST_CASE("step: the scaling book's thresholds for Llama-3-70B layers on v5p", "[step][analysis]") {
  // v5p: C / W = 4.59e14 / 1.8e11 = 2550 per wrapped physical axis, divided by the axes an axis spans.
  // fsdp:16 takes two whole axes of the 4x4x4 cube, tp:4 the third.
  const Analysis a = analyze(llama70b("v5p:4x4x4", {{"fsdp", 16, 1}, {"tp", 4, 1}}));
  REQUIRE(a.step.estimated);
  const StepCritical& fsdp = critical(a, "fsdp");
  CHECK(fsdp.role == StepCritical::Role::Batch);
  CHECK(fsdp.physical_axes == 2);
  CHECK(fsdp.flops_per_byte == Approx(459e12 / 1.8e11 / 2)); // 1275
  CHECK(fsdp.tokens_per_device == 16 * 4096 / 16);           // 4096 tokens per micro-batch
  CHECK(fsdp.ok);
  const StepCritical& tp = critical(a, "tp");
  CHECK(tp.role == StepCritical::Role::Tensor);
  CHECK(tp.physical_axes == 1);
  CHECK(tp.ffn == 28672);
  CHECK(tp.flops_per_byte == Approx(2550).epsilon(0.001));
  CHECK(tp.limit == Approx(28672 / (459e12 / 1.8e11))); // F / 2550 = 11.2
  CHECK(tp.ok);

  // tp:16 over two physical axes doubles its bandwidth: the limit is 2 F / 2550 = 22.5.
  const Analysis wide = analyze(llama70b("v5p:4x4x4", {{"fsdp", 4, 1}, {"tp", 16, 1}}));
  const StepCritical& tp16 = critical(wide, "tp");
  CHECK(tp16.physical_axes == 2);
  CHECK(tp16.limit == Approx(2 * 28672 / (459e12 / 1.8e11)));
  CHECK(tp16.ok);
  // fsdp:4 on the remaining axis needs 2550 tokens per device; 16 x 4096 / 4 is plenty.
  CHECK(critical(wide, "fsdp").flops_per_byte == Approx(2550).epsilon(0.001));
}

TEST_CASE("step: the analysis and the analyze eval op carry `step` under its fixed names", "[step][analysis]") {
  Scenario s = defaultScenario();
  s.performance.flops_fraction = 0.5;
  const Json result = evalRequest({{"op", "analyze"}, {"scenario", scenarioToJson(s)}})["result"];
  const Json& step = result["step"];
  for (const char* key :
       {"time_s", "tokens_per_s", "mfu", "model_flops", "hardware_flops", "compute_s", "hbm_s", "exposed_comm_s"}) {
    INFO(key);
    CHECK(step[key].is_number());
    CHECK(step[key].get<double>() >= 0);
  }
  CHECK(step["mfu"].get<double>() > 0);
  CHECK(step["mfu"].get<double>() <= 1);
  CHECK(step["time_s"].get<double>() ==
        Approx(step["compute_s"].get<double>() + step["hbm_s"].get<double>() + step["exposed_comm_s"].get<double>()));
  const std::string bound = step["bound_by"];
  CHECK((bound == "compute" || bound == "hbm" || bound.rfind("comm:", 0) == 0));
  REQUIRE(step["per_axis"].size() == 3);
  for (const auto& axis : step["per_axis"]) {
    for (const char* key : {"axis", "bytes", "time_s", "exposed_s", "collectives"}) CHECK(axis.contains(key));
    for (const auto& c : axis["collectives"])
      for (const char* key : {"kind", "count", "bytes", "time_s"}) CHECK(c.contains(key));
  }
  CHECK(step["per_axis"][2]["axis"] == "tp");
  CHECK(step["critical"].is_array());
  CHECK(step["summary"].get<std::string>().find("per step") != std::string::npos);
  // Every figure says where it comes from.
  CHECK(step["calibration"]["flops_fraction"] == Json({{"value", 0.5}, {"source", "user"}}));
  CHECK(step["calibration"]["link_fraction"]["source"] == "default");
  CHECK(step["calibration"]["hop_latency"] == Json({{"value", 1e-6}, {"source", "chip"}}));
  CHECK(step["chip"]["peak_flops"] == Json({{"value", 275e12}, {"source", "chip"}}));
  // The comm section is per-step seconds now, split like the step's axes.
  REQUIRE(result["comm"].size() == 3);
  CHECK(result["comm"][1]["step_s"].get<double>() == Approx(step["per_axis"][1]["time_s"].get<double>()));
  CHECK(result["comm"][1]["exposed_s"].get<double>() == Approx(step["per_axis"][1]["exposed_s"].get<double>()));
  CHECK_FALSE(result["comm"][1].contains("all_gather_s"));
}

TEST_CASE("step: workspace fields round-trip and bad calibration names its field", "[step][scenario]") {
  Scenario s = defaultScenario();
  s.training.microbatches = 4;
  s.training.sequence_parallel = true;
  s.performance.flops_fraction = 0.6;
  s.performance.link_fraction = 0.7;
  s.performance.hbm_fraction = 0.85;
  s.performance.hop_latency = 2e-6;
  s.performance.overlap_tensor_comm = true;
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
  CHECK(scenarioFromJson(Json::parse("{}")).training.microbatches == 1);

  const auto refused = [](const char* text) {
    try {
      scenarioFromJson(Json::parse(text));
    } catch (const Error& e) {
      CHECK(e.kind() == ErrorKind::ValueError);
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  CHECK(refused(R"({"performance": {"flops_fraction": 1.5}})") ==
        "performance.flops_fraction must be a number between 0.01 and 1, got 1.5");
  CHECK(refused(R"({"performance": {"link_fraction": 0}})") ==
        "performance.link_fraction must be a number between 0.01 and 1, got 0");
  CHECK(refused(R"({"performance": {"hbm_fraction": "high"}})") ==
        "performance.hbm_fraction must be a number between 0.01 and 1, got \"high\"");
  CHECK(refused(R"({"performance": {"hop_latency": 3}})") ==
        "performance.hop_latency must be a number between 1e-09 and 0.001, got 3");
  CHECK(refused(R"({"performance": {"mfu": 0.5}})").find("unknown key 'mfu' in performance") == 0);
  CHECK(refused(R"({"performance": 0.5})") == "performance must be an object, got 0.5");
  CHECK(refused(R"({"training": {"microbatches": 0}})") == "training.microbatches must be a positive integer, got 0");
  CHECK(refused(R"({"training": {"sequence_parallel": 1}})") ==
        "training.sequence_parallel must be true or false, got 1");
}

TEST_CASE("step: gradient accumulation and sequence parallelism reach the engines", "[step][analysis]") {
  Scenario s = defaultScenario();
  const Analysis one = analyze(s);
  s.training.microbatches = 4;
  const Analysis four = analyze(s);
  CHECK(four.step.tokens_per_step == 4 * one.step.tokens_per_step);
  CHECK(four.step.compute_s == Approx(4 * one.step.compute_s));
  // Memory holds one micro-batch of activations whatever the accumulation.
  CHECK(four.memory.max_bytes == Approx(one.memory.max_bytes));
  s.training.sequence_parallel = true;
  const Analysis sp = analyze(s);
  CHECK(sp.memory.per_device[0].activations < four.memory.per_device[0].activations);
  bool gathers = false;
  for (const auto& c : sp.step.per_axis[2].collectives)
    gathers = gathers || (c.purpose == "tp_activations" && c.kind == Collective::AllGather);
  CHECK(gathers);
}

TEST_CASE("step: without an architecture config or a chip figure it says so and memory stays", "[step][analysis]") {
  Scenario s = defaultScenario();
  s.model = {};
  s.model.inline_params =
      Json::parse(R"([{"path": "model.layers.0.mlp.up_proj.weight", "shape": [4096, 1024], "dtype": "bfloat16"}])");
  const Analysis bare = analyze(s);
  CHECK_FALSE(bare.step.estimated);
  REQUIRE(bare.step.not_estimated.size() == 1);
  CHECK(bare.step.not_estimated[0].find("has no architecture config") != std::string::npos);
  CHECK(bare.memory.max_bytes > 0);
  const Json j = stepToJson(bare.step);
  CHECK(j["estimated"] == false);
  CHECK(j["time_s"].is_null());
  CHECK(j["summary"].get<std::string>().find("not estimated") != std::string::npos);

  Scenario unknown = defaultScenario();
  unknown.topology.device_kind_override = "TPU v99";
  const Analysis a = analyze(unknown);
  CHECK_FALSE(a.step.estimated);
  CHECK(a.step.summary.find("no peak bf16 FLOP/s figure") != std::string::npos);
  CHECK(std::any_of(a.diagnostics.begin(), a.diagnostics.end(), [](const Diagnostic& d) {
    return d.section == DiagnosticSection::Step && d.severity == Diagnostic::Severity::Error;
  }));
  CHECK(a.memory.max_bytes > 0);

  Scenario serving = defaultScenario();
  serving.training.workload = Workload::Serving;
  CHECK_FALSE(analyze(serving).step.estimated);
}

TEST_CASE("step: the default calibration against published measured runs", "[step][analysis][calibration]") {
  // MaxText's Llama 3.1 405B recipe on v5p-1024 (8x8x8, 512 chips), pure FSDP, 2 sequences of
  // 8192 per device: 131.474 s per step, 314.5 TFLOP/s per device (tpu-recipes
  // training/v5p/Llama3.1-405B-MaxText). Its remat_policy=custom offloads `context` and `mlpwo` to
  // the host and leaves every other named tensor at base.yml's default, `remat`: the backward
  // re-runs the query/key/value and output projections and the MLP's input projections, as `full`
  // does in an XLA program. Modelled so, the step comes out slow: the measured 68.5% MFU is about
  // 85% of peak on the executed FLOPs, as on the v5p table's largest `full` runs and above the
  // 0.71 the suite's median run implies (docs/step-time.md, "How close the defaults come").
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5p:8x8x8");
  s.mesh.axes = {{"fsdp", -1, 1}};
  s.model = {};
  s.model.preset = "llama-3.1-405b";
  s.rules = {};
  s.rules.preset = "fsdp";
  s.training.batch_axes = {"fsdp"};
  s.training.micro_batch = 1024;
  s.training.seq_len = 8192;
  s.training.framework = Framework::MaxText;
  s.training.recompute = Recompute::Full;
  const Analysis a = analyze(s);
  REQUIRE(a.step.estimated);
  INFO(a.step.summary);
  CHECK(a.step.time_s > 131.474);
  CHECK(a.step.time_s < 1.25 * 131.474);
  // What is re-run, per token, by hand: each of the 126 layers' attention projections (q and o
  // 16384^2, k and v 16384 x 1024: 570.4M parameters) and MLP inputs (2 x 16384 x 53248 = 1744.8M),
  // not its MLP output projection (872.4M), 2 FLOPs each; and the attention core, 2 x 4096.5 keys x
  // (16384 + 16384) per layer. The chips execute that on top of 3 passes of every matmul (the
  // 3187.6M per layer and the 128256 x 16384 head) and of the attention core, whose flash backward
  // recomputes the scores: 3.5 passes of it.
  const double layers = 126, keys = 4096.5, core = 2 * keys * (16384 + 16384);
  const double rerun = layers * (2 * (570.4e6 + 1744.8e6) + core);
  const double executed = 3 * (2 * (layers * 3187.6e6 + 128256.0 * 16384)) + 3.5 * layers * core + rerun;
  CHECK(a.step.recompute_flops / a.step.hardware_flops == Approx(rerun / executed).epsilon(0.001));

  // The gold Llama 2 70B run below states no remat policy: `selective` (no matmul re-run) as before.
  s.training.framework = Framework::Generic;
  s.training.recompute = Recompute::Selective;

  // MaxText's gold Llama 2 70B on 512 v5p chips, sequence 4096: 65.4% MFU, ~692 tokens/s/device.
  s.model = {};
  s.model.path = std::string(SHARDSCOPE_TEST_DATA) + "/llama-2-70b-config.json";
  s.training.micro_batch = 2048;
  s.training.seq_len = 4096;
  const Analysis b = analyze(s);
  REQUIRE(b.step.estimated);
  INFO(b.step.summary);
  CHECK(std::abs(b.step.mfu - 0.654) / 0.654 < 0.15);
  CHECK(std::abs(b.step.tokens_per_s / 512 - 692) / 692 < 0.15);
}
