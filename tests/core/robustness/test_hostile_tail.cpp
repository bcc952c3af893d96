// SPDX-License-Identifier: Apache-2.0
// Hostile inputs to the newer workspace fields (issue "the tail"): each is refused with one message
// naming the field, or noted, instead of printing a wrong figure with exit 0.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace shardscope;

namespace {

std::string refusal(const std::string& text) {
  try {
    (void)scenarioFromJson(Json::parse(text));
  } catch (const Error& e) {
    return e.what();
  }
  return "(accepted)";
}

} // namespace

TEST_CASE("hostile tail: calibration values outside their physical range are refused", "[hostile][step]") {
  // 5e-324 once printed "step -nan us"; 1e-300 a step of 1e300 seconds.
  CHECK(refusal(R"({"performance": {"flops_fraction": 5e-324}})") ==
        "performance.flops_fraction must be a number between 0.01 and 1, got 5e-324");
  CHECK(refusal(R"({"performance": {"link_fraction": 1e-300}})") ==
        "performance.link_fraction must be a number between 0.01 and 1, got 1e-300");
  CHECK(refusal(R"({"performance": {"hop_latency": 1e-12}})") ==
        "performance.hop_latency must be a number between 1e-09 and 0.001, got 1e-12");
  CHECK(refusal(R"({"performance": {"flops_fraction": 0.01, "hop_latency": 0.001}})") == "(accepted)");
}

TEST_CASE("hostile tail: one axis in both batch_axes and seq_axes is refused", "[hostile]") {
  CHECK(refusal(R"({"training": {"batch_axes": ["dp", "fsdp"], "seq_axes": ["fsdp"]}})") ==
        "training.seq_axes lists 'fsdp', which training.batch_axes lists too: an axis splits the batch or the "
        "sequence, not both");
}

TEST_CASE("hostile tail: fuse_steady_state on a schedule that cannot fuse is refused", "[hostile][pipeline]") {
  CHECK(refusal(R"({"pipeline": {"schedule": "Std1F1B", "fuse_steady_state": true}})") ==
        "pipeline.fuse_steady_state applies only to Interleaved1F1B and KimiK2, not Std1F1B");
  CHECK(refusal(R"({"pipeline": {"schedule": "Interleaved1F1B", "fuse_steady_state": true}})") == "(accepted)");
}

TEST_CASE("hostile tail: sequence parallelism without a tensor axis says it does nothing", "[hostile]") {
  Scenario s = defaultScenario();
  s.mesh.axes = {{"fsdp", -1, 1}};
  s.rules = RulesChoice{"fsdp", {}};
  s.training.batch_axes = {"fsdp"};
  s.training.sequence_parallel = true;
  const Analysis a = analyze(s);
  bool noted = false;
  for (const auto& d : a.diagnostics)
    noted = noted || d.message.find("training.sequence_parallel has no effect") != std::string::npos;
  CHECK(noted);
}

TEST_CASE("hostile tail: unknown request fields are refused by our ops and noted by the reference ops",
          "[hostile][eval]") {
  // Our own ops: a misspelt option is an error naming it.
  const Json params = evalRequest(Json::parse(R"({"op": "model_params", "preset": "gpt2", "include_param": false})"));
  CHECK(params["ok"] == false);
  CHECK(params["error"]["message"] ==
        "model_params: unknown field 'include_param' (known: op, preset, hf_config, model, name, include_params)");
  const Json memory = evalRequest(Json::parse(R"({"op": "memory_estimate", "preset": "gpt2", "seqlen": 4096})"));
  CHECK(memory["ok"] == false);
  CHECK(memory["error"]["message"].get<std::string>().rfind("memory_estimate: unknown field 'seqlen' (known: op, ",
                                                            0) == 0);

  // The reference ops answer as the reference does and say what they ignored.
  const Json mesh = evalRequest(Json::parse(
      R"({"op": "make_mesh", "axis_sizes": [2], "axis_names": ["x"], "axis_size": 4,
          "devices": [{"id": 0, "platform": "cpu", "device_kind": "cpu", "coords": null, "core_on_chip": 0,
                       "process_index": 0, "slice_index": 0},
                      {"id": 1, "platform": "cpu", "device_kind": "cpu", "coords": null, "core_on_chip": 0,
                       "process_index": 0, "slice_index": 0}]})"));
  REQUIRE(mesh["ok"] == true);
  CHECK(mesh["result"]["device_ids"] == Json::parse("[0, 1]"));
  REQUIRE(mesh["warnings"].size() == 1);
  CHECK(mesh["warnings"][0].get<std::string>().rfind("make_mesh: unknown field 'axis_size' (known: ", 0) == 0);
  const Json schedule = evalRequest(Json::parse(
      R"({"op": "pipeline_schedule", "schedule": "GPipe", "num_stages": 2, "num_microbatches": 2, "mpmd_dim": null,
          "num_stage": 4})"));
  REQUIRE(schedule["ok"] == true);
  bool noted = false;
  for (const auto& w : schedule["warnings"])
    noted = noted || w.get<std::string>().rfind("pipeline_schedule: unknown field 'num_stage'", 0) == 0;
  CHECK(noted);
}

TEST_CASE("hostile tail: eval counts past 2^40 are refused, not overflowed", "[hostile][eval]") {
  // 2^63 - 1 concurrent sequences once overflowed into "batch and context must not be negative".
  const Json a = evalRequest(Json::parse(
      R"({"op": "memory_estimate", "preset": "gpt2", "workload": "serving", "serve_batch": 9223372036854775807})"));
  CHECK(a["ok"] == false);
  CHECK(a["error"]["message"] == "field 'serve_batch' must be at most 1099511627776, got 9223372036854775807");
  const Json b = evalRequest(Json::parse(
      R"({"op": "memory_estimate", "preset": "gpt2", "workload": "serving", "serve_batch": 1099511627776})"));
  CHECK(b["ok"] == true);
}
