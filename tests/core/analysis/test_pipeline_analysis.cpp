// SPDX-License-Identifier: Apache-2.0
// The workspace's pipeline section through the whole analysis: the section's JSON, memory per
// pipeline rank worked by hand (an uneven split under Std1F1B, and DualPipeV's V placement that
// puts both ends of the network on rank 0), bad input reported as errors naming the field while
// the rest of the analysis still shows, jaxpp's process-per-group rule, and the analysis JSON.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <algorithm>

#include <filesystem>
#include <fstream>
#include <string>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;

namespace {

// A four-layer model small enough to add up by hand (all bf16, 2 bytes an element):
//   model.embed_tokens.weight [128, 64]  8192 elements
//   model.layers.i.w          [64, 64]   4096 elements each, i = 0..3
//   model.norm.weight         [64]         64 elements
//   lm_head.weight            [128, 64]  8192 elements
// hidden 64, 4 heads, vocabulary 128.
std::string tinyModelPath() {
  static const std::string path = [] {
    const auto file = std::filesystem::temp_directory_path() /
                      ("shardscope-test-pipeline-tiny-model-" + std::to_string(::getpid()) + ".json");
    std::ofstream out(file);
    out << R"({"name": "tiny", "dtype": "bfloat16",
      "config": {"model_type": "llama", "num_layers": 4, "hidden": 64, "heads": 4, "vocab": 128},
      "params": [
        {"path": "model.embed_tokens.weight", "shape": [128, 64]},
        {"path": "model.layers.0.w", "shape": [64, 64]},
        {"path": "model.layers.1.w", "shape": [64, 64]},
        {"path": "model.layers.2.w", "shape": [64, 64]},
        {"path": "model.layers.3.w", "shape": [64, 64]},
        {"path": "model.norm.weight", "shape": [64]},
        {"path": "lm_head.weight", "shape": [128, 64]}]})";
    return file.string();
  }();
  return path;
}

// Two H100s on one host, one mesh axis `pp` of 2, every parameter replicated (each device holds
// whole tensors), AdamW without master weights, bf16 gradients, micro-batch 2 x 16 tokens, full
// recompute (2sbh = 2 * 16 * 2 * 64 = 4096 bytes per layer and micro-batch), no data parallelism.
Scenario tinyPipeline() {
  Scenario s;
  s.topology = parseTopology("h100:1x2");
  s.mesh.axes = {{"pp", 2, 1}};
  s.model = {};
  s.model.path = tinyModelPath();
  s.rules = {};
  s.rules.rules = {{".*", Json::array()}};
  s.training.micro_batch = 2;
  s.training.seq_len = 16;
  s.training.recompute = Recompute::Full;
  s.training.batch_axes = {};
  s.training.seq_axes = {};
  s.pipeline = PipelineConfig{};
  s.pipeline->axis = "pp";
  return s;
}

const Diagnostic* findDiagnostic(const Analysis& a, const std::string& subject) {
  for (const auto& d : a.diagnostics)
    if (d.section == DiagnosticSection::Pipeline && d.subject == subject) return &d;
  return nullptr;
}

// Bytes of parameters, gradients and AdamW state for `elements` bf16 elements: 2 + 2 + 8.
double staticBytes(double elements) { return 12.0 * elements; }

// Seconds of one jaxpp unit (F of one rank's even share of the layers, one micro-batch): one
// device's compute, HBM and exposed communication time without the optimizer (under a pipeline
// already its rank's share of the layers) over M micro-batches of 3 units each (F 1 + B 2).
// One unit: the layers' work of one micro-batch on a rank's even share of the layers (the step's
// per-rank figures less the output projection and loss, which only the last stage runs).
double unitSeconds(const Analysis& a) {
  const StepEstimate& st = a.step;
  const double m = static_cast<double>(a.pipeline->microbatches);
  const double head = m * (st.head_fwd_s + st.head_bwd_s) / static_cast<double>(a.pipeline->rank_count);
  return (st.compute_s + st.hbm_s - st.optimizer_s + st.exposed_comm_s - head) / (3.0 * m);
}

} // namespace

TEST_CASE("the pipeline section round-trips and its errors name the field", "[pipeline][scenario]") {
  Scenario s = defaultScenario();
  CHECK_FALSE(scenarioToJson(s).contains("pipeline")); // without the section nothing is written
  s.pipeline = PipelineConfig{"pp", PipelineScheduleKind::DualPipeV, 8, 16, {4, 4, 4, 4, 4, 4, 4, 4}, false};
  CHECK(scenarioFromJson(scenarioToJson(s)) == s);
  s.pipeline = PipelineConfig{};
  const Json j = scenarioToJson(s);
  CHECK(j["pipeline"] == Json::parse(R"({"axis": "pp", "schedule": "Std1F1B"})"));
  CHECK(scenarioFromJson(j) == s);

  auto bad = [](const char* section) {
    return scenarioFromJson(Json::parse(std::string(R"({"pipeline": )") + section + "}"));
  };
  CHECK_THROWS_WITH(bad(R"("pp")"), Catch::StartsWith("pipeline must be an object"));
  CHECK_THROWS_WITH(bad(R"({"schedule": "OneFOneB"})"),
                    "pipeline.schedule must be one of GPipe, Std1F1B, Eager1F1B, ZeroBubble, Interleaved1F1B, "
                    "KimiK2, DualPipeV, got \"OneFOneB\"");
  CHECK_THROWS_WITH(bad(R"({"schedule": "InterleavedGPipe"})"), Catch::Contains("which jaxpp does not export"));
  CHECK_THROWS_WITH(bad(R"({"microbatches": 0})"), "pipeline.microbatches must be a positive integer, got 0");
  CHECK_THROWS_WITH(bad(R"({"num_stages": 2.5})"), "pipeline.num_stages must be a positive integer, got 2.5");
  CHECK_THROWS_WITH(bad(R"({"layers_per_stage": [4, -1]})"),
                    "pipeline.layers_per_stage[1] must be a non-negative integer, got -1");
  CHECK_THROWS_WITH(bad(R"({"axis": ""})"), "pipeline.axis must be a non-empty string, got \"\"");
  CHECK_THROWS_WITH(bad(R"({"fuse": true})"), Catch::StartsWith("unknown key 'fuse' in pipeline"));
}

TEST_CASE("the default layer split gives the remainder to the stages before the last", "[pipeline]") {
  CHECK(pipelineLayerSplit(32, 4) == std::vector<std::int64_t>{8, 8, 8, 8});
  CHECK(pipelineLayerSplit(30, 4) == std::vector<std::int64_t>{7, 8, 8, 7});
  CHECK(pipelineLayerSplit(126, 16) == std::vector<std::int64_t>{7, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 7});
  CHECK(pipelineLayerSplit(5, 2) == std::vector<std::int64_t>{3, 2});
  CHECK(pipelineLayerSplit(3, 4) == std::vector<std::int64_t>{1, 1, 1, 0});
  CHECK_THROWS_AS(pipelineLayerSplit(4, 0), Error);
}

TEST_CASE("memory per rank of an uneven split under Std1F1B, worked by hand", "[pipeline][memory]") {
  Scenario s = tinyPipeline();
  s.pipeline->schedule = PipelineScheduleKind::Std1F1B;
  s.pipeline->microbatches = 4;
  s.pipeline->layers_per_stage = {1, 3};
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  const PipelineAnalysis& p = *a.pipeline;
  INFO(p.error);
  REQUIRE(p.error.empty());
  CHECK(p.rank_count == 2);
  CHECK(p.num_stages == 2);
  CHECK(p.stage_to_rank == std::vector<int>{0, 1});
  REQUIRE(p.has_memory);
  REQUIRE(p.ranks.size() == 2);

  // Rank 0: the embedding and layer 0 = 8192 + 4096 elements. Rank 1: layers 1-3, the final
  // norm and the head = 3 * 4096 + 64 + 8192 elements.
  CHECK(p.ranks[0].layers == 1);
  CHECK(p.ranks[1].layers == 3);
  CHECK(p.ranks[0].holds_embedding);
  CHECK_FALSE(p.ranks[0].holds_head);
  CHECK(p.ranks[1].holds_head);
  CHECK(p.ranks[0].param_bytes == 2.0 * 12288);
  CHECK(p.ranks[1].param_bytes == 2.0 * 20544);
  CHECK(p.ranks[0].staticBytes() == staticBytes(12288));
  CHECK(p.ranks[1].staticBytes() == staticBytes(20544));

  // Activations. Std1F1B with S = 2 warms rank 0 up with two forwards, so it holds two
  // micro-batches of its one layer: 2 * 4096. Rank 1 runs F then B: one micro-batch of three
  // layers (3 * 4096) plus the output layer: the final norm's and head's inputs (4sbh = 8192)
  // and the fp32 logits (4sbv = 4 * 32 * 128 = 16384).
  CHECK(p.ranks[0].peak_in_flight == 2);
  CHECK(p.ranks[1].peak_in_flight == 1);
  CHECK(p.layer_activation_bytes == 4096);
  CHECK(p.output_activation_bytes == 24576);
  // On top, the backward's moment (full recompute, h = 64): a re-run layer holds what `none`
  // keeps, 34sbh, instead of its 2sbh input: 32sbh = 16 * 4096 = 65536, larger on rank 1 than the
  // loss's gradient beside the logits (generic framework: 8 more bytes per logit, 8 * 4096 = 32768).
  CHECK(p.ranks[0].transient_bytes == 65536);
  CHECK(p.ranks[1].transient_bytes == 65536);
  CHECK(p.ranks[0].activation_bytes == 8192 + 65536);
  CHECK(p.ranks[1].activation_bytes == 3 * 4096 + 24576 + 65536);
  CHECK(p.ranks[0].totalBytes() == 147456 + 8192 + 65536);
  CHECK(p.ranks[1].totalBytes() == 246528 + 36864 + 65536);
  CHECK(p.worst_rank == 1);
  CHECK(p.hbm_bytes == Approx(80e9));

  // Every device shows its rank's figures.
  REQUIRE(a.memory.per_device.size() == 2);
  for (const auto& rank : p.ranks)
    for (int pos : rank.device_positions)
      CHECK(a.memory.per_device[static_cast<std::size_t>(pos)].total() == rank.totalBytes());
  CHECK(a.memory.max_bytes == 283392 + 65536);

  // The timeline: stage 0 has one layer of a rank's even share of two (F 0.5, B 1), stage 1
  // three (F 1.5, B 3). Rank 1's F1.0 waits for rank 0's F0.0 (ends 0.5), so rank 1 starts at 0.5.
  REQUIRE(p.scheduled);
  CHECK(p.time_unit == PipelineTimeUnit::Seconds);
  // The last stage also runs the output projection and the loss: hf with each F, hb with each B.
  const double u = unitSeconds(a), hf = a.step.head_fwd_s, hb = a.step.head_bwd_s;
  REQUIRE(u > 0);
  REQUIRE(hf > 0);
  REQUIRE(hb > 0);
  CHECK(p.ranks[1].busy == Approx(4 * 4.5 * u + 4 * (hf + hb)));
  CHECK(p.ranks[0].busy == Approx(4 * 1.5 * u));
  // The activation curve of rank 1 steps up at each F's end and down at each B's end.
  const auto& curve = p.ranks[1].activation_profile;
  REQUIRE(curve.size() >= 3);
  CHECK(curve[1].time == Approx(2.0 * u + hf)); // F(1, 0) runs 0.5 .. 2.0 units + the head
  CHECK(curve[1].activation_bytes == 36864);
  CHECK(curve[2].time == Approx(5.0 * u + hf + hb)); // B(1, 0) runs 3 units + the head's backward
  CHECK(curve[2].activation_bytes == 0);
}

TEST_CASE("DualPipeV's V puts both ends of the network on rank 0, worked by hand", "[pipeline][memory]") {
  Scenario s = tinyPipeline();
  s.pipeline->schedule = PipelineScheduleKind::DualPipeV;
  s.pipeline->microbatches = 4;
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  const PipelineAnalysis& p = *a.pipeline;
  INFO(p.error);
  REQUIRE(p.error.empty());
  // Four stages (twice the axis) of one layer each; rank 0 holds stages 0 and 3, rank 1 stages 1, 2.
  CHECK(p.num_stages == 4);
  CHECK(p.layers_per_stage == std::vector<std::int64_t>{1, 1, 1, 1});
  CHECK(p.stage_to_rank == std::vector<int>{0, 1, 1, 0});
  CHECK(p.ranks[0].stages == std::vector<int>{0, 3});
  CHECK(p.ranks[1].stages == std::vector<int>{1, 2});
  CHECK(p.ranks[0].holds_embedding);
  CHECK(p.ranks[0].holds_head);
  CHECK_FALSE(p.ranks[1].holds_embedding);
  CHECK_FALSE(p.ranks[1].holds_head);
  // Rank 0: embedding + layers 0 and 3 + norm + head = 8192 + 2 * 4096 + 64 + 8192 elements;
  // rank 1: layers 1 and 2.
  CHECK(p.ranks[0].staticBytes() == staticBytes(24640));
  CHECK(p.ranks[1].staticBytes() == staticBytes(8192));
  CHECK(p.worst_rank == 0);

  // Activations. Every task here is half a unit (one layer of a rank's even share of two). By
  // DeepSeek's DualPipeV recipe rank 0 (r = 0, D = 2) runs (D - r - 1) * 2 = 2 forwards of its
  // first stage, then r + 1 = 1 pair F0 F1 (its second stage is stage 3), then D - r - 1 = 1 round
  // of B1 W1 F1, then the main loop's fused [F0 + B1] with B split into I and W:
  //   F0.0 F0.1 | F0.2 F3.0 | I3.0 W3.0 F3.1 | [F0.3 + I3.1 + W3.1] ...
  // A stage-0 pair holds one layer (4096 bytes); a stage-3 pair also the output layer (4096 +
  // 24576 = 28672). The peak comes at the end of F0.3 inside the fused unit, before W3.1 frees
  // micro-batch 1 of stage 3: four stage-0 pairs and one stage-3 pair, 4 * 4096 + 28672 = 45056.
  const auto& tl = p.timeline;
  std::vector<std::string> rank0;
  for (const auto& ev : tl.events) {
    if (ev.rank != 0) continue;
    std::string unit;
    for (const auto& t : tl.members(ev)) {
      if (!unit.empty()) unit += '+';
      unit += taskTypeName(t.type);
      unit += std::to_string(t.stage) + "." + std::to_string(t.microbatch);
    }
    rank0.push_back(unit);
    if (rank0.size() == 8) break;
  }
  CHECK(rank0 == std::vector<std::string>{"FWD0.0", "FWD0.1", "FWD0.2", "FWD3.0", "BWD_I3.0", "BWD_W3.0", "FWD3.1",
                                          "FWD0.3+BWD_I3.1+BWD_W3.1"});
  // Plus the backward's moment, 32sbh = 65536 on both ranks (a re-run layer, larger than the
  // loss's gradient of 32768 on rank 0, which runs the last stage).
  CHECK(p.ranks[0].activation_bytes == 4 * 4096 + 28672 + 65536);
  // F0.3 ends after eight half-unit tasks, three of them on stage 3 with the head: F3.0 and F3.1
  // (hf each), I3.0 and W3.0 (half of hb each).
  CHECK(p.ranks[0].peak_time == Approx(4.0 * unitSeconds(a) + 2 * a.step.head_fwd_s + a.step.head_bwd_s));
  // Rank 1 (r = 1) starts with r + 1 = 2 pairs F1 F2 (its stages 1 and 2) and then F1.2 before its
  // first backward: five one-layer pairs, 5 * 4096.
  CHECK(p.ranks[1].activation_bytes == 5 * 4096 + 65536);
  CHECK(p.ranks[0].totalBytes() == staticBytes(24640) + 45056 + 65536);
  CHECK(p.ranks[1].totalBytes() == staticBytes(8192) + 20480 + 65536);
}

TEST_CASE("bad pipeline input is an error naming the field, and the rest of the analysis shows", "[pipeline]") {
  auto check = [](const Scenario& s, const std::string& field, const std::string& message) {
    const Analysis a = analyze(s);
    REQUIRE(a.pipeline);
    CHECK(a.pipeline->error == message);
    const Diagnostic* d = findDiagnostic(a, field);
    REQUIRE(d);
    CHECK(d->severity == Diagnostic::Severity::Error);
    CHECK(d->message == message);
    // The mesh, the parameter table and the memory estimate are still there.
    CHECK(a.mesh.devices.size() == 2);
    CHECK(a.params.size() == 7);
    CHECK(a.memory.per_device.size() == 2);
    CHECK(a.memory.max_bytes > 0);
    return a;
  };
  {
    Scenario s = tinyPipeline();
    s.pipeline->schedule = PipelineScheduleKind::Interleaved1F1B;
    s.pipeline->num_stages = 3;
    check(s, "pipeline.num_stages",
          "pipeline.num_stages is 3, but Interleaved1F1B places stage s on rank s % 2, so the stage count must be a "
          "multiple of the size of axis 'pp' (2)");
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->schedule = PipelineScheduleKind::DualPipeV;
    s.pipeline->num_stages = 2;
    check(s, "pipeline.num_stages",
          "pipeline.num_stages is 2, but DualPipeV places two stages on every rank (a V), so it needs exactly twice "
          "the size of axis 'pp' (2): 4");
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->schedule = PipelineScheduleKind::ZeroBubble;
    s.pipeline->microbatches = 1;
    check(s, "pipeline.microbatches",
          "pipeline.microbatches is 1, but ZeroBubble needs at least as many micro-batches as stages (2)");
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->schedule = PipelineScheduleKind::DualPipeV;
    s.pipeline->microbatches = 3;
    check(s, "pipeline.microbatches",
          "pipeline.microbatches is 3, but DualPipeV needs at least as many micro-batches as stages (4)");
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->axis = "stage";
    const Analysis a = check(s, "pipeline.axis",
                             "pipeline.axis 'stage' is not an axis of the mesh (pp); add it to the mesh or name one "
                             "of these");
    CHECK_FALSE(a.pipeline->scheduled);
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->layers_per_stage = {1, 2};
    const Analysis a =
        check(s, "pipeline.layers_per_stage", "pipeline.layers_per_stage sums to 3 layers but the model has 4");
    // The schedule still runs (timed as an even split); memory per rank needs the right layers.
    CHECK(a.pipeline->scheduled);
    CHECK_FALSE(a.pipeline->has_memory);
  }
  {
    Scenario s = tinyPipeline();
    s.pipeline->layers_per_stage = {4};
    check(s, "pipeline.layers_per_stage", "pipeline.layers_per_stage has 1 entries but there are 2 stages");
  }
}

TEST_CASE("without a pipeline section the analysis is unchanged", "[pipeline]") {
  Scenario s = tinyPipeline();
  s.pipeline.reset();
  const Analysis a = analyze(s);
  CHECK_FALSE(a.pipeline);
  CHECK_FALSE(analysisToJson(a).contains("pipeline"));
  // Every device holds the whole model: 12 bytes per element of 8192 + 4 * 4096 + 64 + 8192 =
  // 32832 elements, plus one micro-batch's activations of all layers (4 * 4096) and the larger of
  // the backward's two moments: the output layer (24576) with the loss's gradient (32768), or
  // the last layer re-run under full recompute (32sbh = 65536; the output layer is freed by then).
  for (const auto& d : a.memory.per_device) CHECK(d.total() == staticBytes(32832) + 4 * 4096 + 65536);
}

TEST_CASE("many straddling processes: the first four are named, the rest counted once", "[pipeline]") {
  // Eight hosts of eight GPUs with pp inside each host: all eight processes straddle both groups.
  Scenario s = tinyPipeline();
  s.topology = parseTopology("h100:8x8");
  s.mesh.axes = {{"dp", 8, 1}, {"pp", 2, 1}, {"tp", 4, 1}};
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  int named = 0;
  for (const auto& d : a.diagnostics)
    if (d.message.find(" holds devices of pipeline groups ") != std::string::npos) ++named;
  CHECK(named == 4);
  CHECK(findDiagnostic(a, "process 3"));
  CHECK_FALSE(findDiagnostic(a, "process 4"));
  const Diagnostic* rest = findDiagnostic(a, "processes");
  REQUIRE(rest);
  CHECK(rest->message == "4 more processes (8 of 8 in all) hold devices of several pipeline groups along 'pp'");
}

TEST_CASE("a process holding devices of two pipeline groups is named", "[pipeline]") {
  // Two hosts of eight GPUs (each host its own NVLink domain); the mesh (dp 2, pp 2, tp 4) runs
  // pp inside each host, so both processes hold devices of both groups: jaxpp's MpmdMesh refuses.
  Scenario s = tinyPipeline();
  s.topology = parseTopology("h100:2x8");
  s.mesh.axes = {{"dp", 2, 1}, {"pp", 2, 1}, {"tp", 4, 1}};
  Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  const Diagnostic* d0 = findDiagnostic(a, "process 0");
  const Diagnostic* d1 = findDiagnostic(a, "process 1");
  REQUIRE(d0);
  REQUIRE(d1);
  CHECK(d0->severity == Diagnostic::Severity::Error);
  CHECK_THAT(d0->message, Catch::StartsWith("process 0 holds devices of pipeline groups 0 and 1 along 'pp'"));
  CHECK_THAT(d0->message, Catch::Contains("Process 0 found in two mpmd indices: 0 1"));
  CHECK(a.pipeline->scheduled); // the rest still runs
  // Inside a host the hand-over goes over NVLink.
  REQUIRE(a.pipeline->transfers.size() == 1);
  CHECK(a.pipeline->transfers[0].slowest_link == "nvlink");
  CHECK_FALSE(a.pipeline->transfers[0].crosses_hosts);

  // pp across the hosts: each process lies in one group, and the hand-over crosses the network.
  s.mesh.axes = {{"pp", 2, 1}, {"tp", 8, 1}};
  a = analyze(s);
  CHECK_FALSE(findDiagnostic(a, "process 0"));
  CHECK_FALSE(findDiagnostic(a, "process 1"));
  REQUIRE(a.pipeline);
  CHECK(a.pipeline->error.empty());
  REQUIRE(a.pipeline->transfers.size() == 1);
  CHECK(a.pipeline->transfers[0].crosses_hosts);
  CHECK(a.pipeline->transfers[0].slowest_link == "network");
  // One micro-batch's [b, s, h] in 16 bits per device: 2 * 16 * 64 * 2 bytes (tensor
  // parallelism keeps a whole copy on every device of the group).
  CHECK(a.pipeline->transfers[0].bytes == 4096);
  CHECK(a.pipeline->transfers[0].seconds > 0);

  // Under Megatron's sequence parallelism each tensor rank sends its s / t rows
  // (get_tensor_shapes): 4096 / 8 = 512 bytes, over the same link, so less time. (The rules
  // must split the layers over tp for it to be a tensor axis.)
  s.rules = RulesChoice{"fsdp-tp", {}};
  a = analyze(s);
  REQUIRE(a.pipeline);
  REQUIRE(a.pipeline->transfers.size() == 1);
  CHECK(a.pipeline->transfers[0].bytes == 4096);
  const double whole = a.pipeline->transfers[0].seconds;
  s.training.framework = Framework::Megatron;
  s.training.sequence_parallel = true;
  a = analyze(s);
  REQUIRE(a.pipeline);
  REQUIRE(a.pipeline->transfers.size() == 1);
  CHECK(a.pipeline->transfers[0].bytes == 512);
  CHECK(a.pipeline->transfers[0].seconds < whole);
}

TEST_CASE("the analysis JSON's pipeline object", "[pipeline]") {
  Scenario s = tinyPipeline();
  s.pipeline->microbatches = 4;
  s.pipeline->layers_per_stage = {1, 3};
  const Json j = analysisToJson(analyze(s))["pipeline"];
  CHECK(j["schedule"] == "Std1F1B");
  CHECK(j["num_stages"] == 2);
  CHECK(j["microbatches"] == 4);
  CHECK(j["stage_to_rank"] == Json::array({0, 1}));
  CHECK(j["time_unit"] == "s"); // the step estimate gives seconds
  CHECK(j["makespan_s"] == j["makespan"]);
  CHECK(j["makespan"].get<double>() > 0);
  CHECK(j["bubble_fraction"]["per_rank"].size() == 2);
  CHECK(j["bubble_fraction"]["overall"].get<double>() ==
        Approx((j["bubble_fraction"]["per_rank"][0].get<double>() + j["bubble_fraction"]["per_rank"][1].get<double>()) /
               2));
  CHECK(j["peak_in_flight"] == Json::array({2, 1}));
  REQUIRE(j["per_rank"].size() == 2);
  CHECK(j["per_rank"][1]["rank"] == 1);
  CHECK(j["per_rank"][1]["layers"] == 3);
  CHECK(j["per_rank"][1]["param_bytes"] == 2.0 * 20544);
  CHECK(j["per_rank"][1]["activation_bytes"] == 36864 + 65536);
  CHECK(j["per_rank"][1]["transient_bytes"] == 65536);
  CHECK(j["per_rank"][1]["total_bytes"] == 283392 + 65536);
  CHECK(j["error"].is_null());
}

TEST_CASE("under a pipeline the step is the schedule's makespan plus the optimizer and exposed communication",
          "[pipeline][step]") {
  Scenario s = tinyPipeline();
  s.pipeline->microbatches = 4;
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  REQUIRE(a.pipeline->scheduled);
  REQUIRE(a.step.estimated);
  const PipelineAnalysis& p = *a.pipeline;
  // Std1F1B, 2 stages of 2 layers each (one unit each F, two each B), M = 4; the last stage also
  // runs the head (hf forward, hb backward, h = hf + hb), so rank 1 sets the pace: F0.0 (1 unit),
  // four of rank 1's F + B (3 units + h each), the last B0 (2 units): 15 units + 4h.
  const double u = unitSeconds(a), h = a.step.head_fwd_s + a.step.head_bwd_s;
  CHECK(p.makespan == Approx(15 * u + 4 * h));
  // Plus the hand-over between the two ranks, once each way in the fill and the drain.
  REQUIRE(p.transfers.size() == 1);
  CHECK(p.transfers[0].seconds > 0);
  CHECK(a.step.time_s == Approx(p.makespan + a.step.optimizer_s + 2 * p.transfers[0].seconds));
  // One device runs its rank's half of the layers: its compute is half of what the same mesh
  // without a pipeline computes for the same 4 micro-batches (every device all layers).
  Scenario flat = s;
  flat.pipeline.reset();
  flat.training.microbatches = 4;
  const Analysis spmd = analyze(flat);
  REQUIRE(spmd.step.estimated);
  CHECK(a.step.compute_s == Approx(spmd.step.compute_s / 2));
  CHECK(a.step.optimizer_s == Approx(spmd.step.optimizer_s / 2));
  CHECK(a.step.exposed_comm_s == Approx(spmd.step.exposed_comm_s / 2));
  CHECK(a.step.model_flops == Approx(spmd.step.model_flops));
  double segments = 0, bubble = 0;
  for (const auto& seg : a.step.segments) {
    segments += seg.seconds;
    if (seg.kind == StepPart::Bubble) bubble = seg.seconds;
  }
  CHECK(segments == Approx(a.step.time_s));
  // A device's work is its rank's average: (12 + 12) units and the last stage's 4h over 2 ranks.
  CHECK(bubble == Approx(15 * u + 4 * h - 12 * u - 2 * h));
  // The pipeline axis splits the layers: no "repeats the same work" note for it.
  for (const auto& note : a.step.notes) CHECK(note.find("axis 'pp'") == std::string::npos);
  // Nor is it an idle axis (the Step and Memory docks would offer to add it to the batch axes).
  CHECK(std::find(a.step.idle_axes.begin(), a.step.idle_axes.end(), "pp") == a.step.idle_axes.end());
  // The bubble: rank 0 is busy 12 units, rank 1 12 units + 4h, of 15 units + 4h each.
  CHECK(p.bubble_overall == Approx((2 * (15 * u + 4 * h) - 24 * u - 4 * h) / (2 * (15 * u + 4 * h))));
  CHECK(a.step.summary.find("bubbles") != std::string::npos);
  // The step engine priced M = 4 micro-batches: tokens per step are 4 micro-batches' worth.
  CHECK(a.step.tokens_per_step == Approx(4.0 * static_cast<double>(s.training.micro_batch * s.training.seq_len)));

  // Serving has no step estimate: the schedule stays in jaxpp's task units.
  Scenario serving = s;
  serving.training.workload = Workload::Serving;
  const Analysis b = analyze(serving);
  REQUIRE(b.pipeline);
  CHECK(b.pipeline->time_unit == PipelineTimeUnit::Task);
  CHECK(b.pipeline->makespan == Approx(15));
}
