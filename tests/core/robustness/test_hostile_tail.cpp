// SPDX-License-Identifier: Apache-2.0
// Hostile inputs to the newer workspace fields (issue "the tail"): each is refused with one message
// naming the field, or noted, instead of printing a wrong figure with exit 0.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/base/errors.hpp"

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
