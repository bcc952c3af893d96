// SPDX-License-Identifier: Apache-2.0
// The inspected program beside the workspace it is placed on: arguments matched to parameters by
// their pytree names, silent replication flagged, and the program's own step estimate (its dot
// FLOPs at the chip's calibrated peak, its priced collectives) beside the workspace model's.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/inspect/inspect_pricing.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <string>

using namespace shardscope;

namespace {

// One v4 2x2x1 slice, fsdp over its 4 chips; one MaxText-named weight [1024, 4096] split on its
// first dimension over fsdp; and a second "kernel" elsewhere, so the last identifier alone matches
// two parameters.
Scenario workspace() {
  Scenario s = defaultScenario();
  s.topology = parseTopology("v4:2x2x1");
  s.mesh.axes = {{"fsdp", 4, 1, AxisType::Explicit}};
  s.model = {};
  s.model.preset.clear();
  s.model.inline_params = Json::parse(R"([
    {"path": "params/decoder/mlp/wi/kernel", "shape": [1024, 4096], "dtype": "bfloat16"},
    {"path": "params/decoder/mlp/wo/kernel", "shape": [4096, 1024], "dtype": "bfloat16"}])");
  // One layer of width 1024 with an MLP of 4096 (no gate), a 1024-token vocabulary: the step
  // estimate runs on it.
  s.model.inline_architecture = Json::parse(R"({"model_type": "llama", "num_layers": 1, "hidden": 1024,
    "heads": 8, "head_dim": 128, "ffn": 4096, "vocab": 1024})");
  s.rules = RulesChoice{
      "", {{"wi/kernel$", Json::parse(R"(["fsdp", null])")}, {"wo/kernel$", Json::parse(R"([null, "fsdp"])")}}};
  s.training.batch_axes = {"fsdp"};
  return s;
}

const InspectArgument& argument(const InspectResult& r, const std::string& name) {
  const auto it = std::find_if(r.arguments.begin(), r.arguments.end(), [&](const auto& a) { return a.name == name; });
  REQUIRE(it != r.arguments.end());
  return *it;
}

} // namespace

TEST_CASE("inspect on a workspace: arguments are matched to its parameters by their pytree names",
          "[inspect][workspace]") {
  // JAX's lowered text names arguments after their pytree paths (jax.arg_info). The weight is
  // replicated here, its Adam moment split like the workspace's.
  const std::string text = R"(module @jit_train_step {
  func.func public @main(
      %arg0: tensor<1024x4096xbf16> {jax.arg_info = "state.params['params']['decoder']['mlp']['wi']['kernel']", mhlo.sharding = "{replicated}"},
      %arg1: tensor<1024x4096xf32> {jax.arg_info = "state.opt_state[0].mu['params']['decoder']['mlp']['wi']['kernel']", mhlo.sharding = "{devices=[4,1]<=[4]}"},
      %arg2: tensor<4096x1024xbf16> {jax.arg_info = "kernel", mhlo.sharding = "{replicated}"},
      %arg3: tensor<2xui32> {jax.arg_info = "rng", mhlo.sharding = "{replicated}"}) -> (tensor<2xui32>) {
    return %arg3 : tensor<2xui32>
  }
})";
  const InspectResult r = inspectOnScenario(text, {}, workspace());
  const InspectArgument& weight = argument(r, "state.params['params']['decoder']['mlp']['wi']['kernel']");
  CHECK(weight.workspace_param == "params/decoder/mlp/wi/kernel");
  CHECK(weight.workspace_spec == "P('fsdp', None)");
  const InspectArgument& moment = argument(r, "state.opt_state[0].mu['params']['decoder']['mlp']['wi']['kernel']");
  CHECK(moment.workspace_param == "params/decoder/mlp/wi/kernel");
  // "kernel" alone could be either weight; "rng" is none.
  CHECK(argument(r, "kernel").workspace_param.empty());
  CHECK(argument(r, "rng").workspace_param.empty());
  // The weight is whole on every device where the workspace splits it 4 ways; the moment is not
  // flagged (it is split over fsdp as the workspace splits it).
  REQUIRE(r.flags.size() == 1);
  CHECK(r.flags[0].kind == "replicated_where_workspace_shards");
  CHECK(r.flags[0].subject == weight.name);
  CHECK(r.flags[0].message.find("is replicated over fsdp, which the workspace shards it on (P('fsdp', None)): 4x "
                                "its bytes per device") != std::string::npos);
  REQUIRE(r.estimate);
}

TEST_CASE("inspect on a workspace: the compiled program's step from its FLOPs and collectives",
          "[inspect][workspace]") {
  // A partitioned module on the 4 devices: each multiplies its [64, 1024] rows by the whole
  // [1024, 4096] weight and all-reduces a [64, 4096] bf16 result over all four (the fsdp axis).
  const std::string text = R"(HloModule step, is_scheduled=true, num_partitions=4

add {
  a = bf16[] parameter(0)
  b = bf16[] parameter(1)
  ROOT s = bf16[] add(a, b)
}

ENTRY main {
  p0 = bf16[64,1024]{1,0} parameter(0)
  p1 = bf16[1024,4096]{1,0} parameter(1)
  d = bf16[64,4096]{1,0} dot(p0, p1), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT ar = bf16[64,4096]{1,0} all-reduce(d), channel_id=1, replica_groups={{0,1,2,3}}, use_global_device_ids=true, to_apply=add
})";
  const Scenario s = workspace();
  const InspectResult r = inspectOnScenario(text, {}, s);
  REQUIRE(r.flops_per_device);
  CHECK(*r.flops_per_device == Approx(2.0 * 64 * 4096 * 1024)); // 536,870,912
  REQUIRE(r.estimate);
  const InspectEstimate& e = *r.estimate;
  // v4: 275 TFLOP/s bf16, flops_fraction 0.60 (the chip's default).
  CHECK(e.compute_s == Approx(2.0 * 64 * 4096 * 1024 / (275e12 * 0.60)));
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].axes == std::optional<std::vector<std::string>>{{"fsdp"}});
  CHECK(r.collectives[0].time_s > 0);
  CHECK(e.comm_s == Approx(r.collectives[0].time_s));
  CHECK(e.serial_s == Approx(e.compute_s + e.comm_s));
  CHECK(e.overlapped_s == Approx(std::max(e.compute_s, e.comm_s)));
  // Per axis: the program's all-reduce over fsdp, 2 x 3/4 x 512 KiB sent per device.
  const auto fsdp = std::find_if(e.axes.begin(), e.axes.end(), [](const auto& a) { return a.axis == "fsdp"; });
  REQUIRE(fsdp != e.axes.end());
  CHECK(fsdp->compiled_bytes_per_device == Approx(2 * 0.75 * 64 * 4096 * 2));
  CHECK(fsdp->compiled_time_s == Approx(r.collectives[0].time_s));
  // The workspace model's step, beside it, from its own analysis of the workspace.
  const Analysis a = analyze(s);
  for (const auto& d : a.diagnostics) INFO(d.message);
  INFO((a.step.not_estimated.empty() ? std::string() : a.step.not_estimated.front()));
  REQUIRE(a.step.estimated);
  REQUIRE(e.workspace_step_s);
  CHECK(*e.workspace_step_s == Approx(a.step.time_s));
  CHECK(*e.workspace_compute_s == Approx(a.step.compute_s));
  REQUIRE(a.step.per_axis.size() == 1);
  CHECK(fsdp->predicted_bytes_per_device == Approx(a.step.per_axis[0].bytes));
  CHECK(fsdp->predicted_time_s == Approx(a.step.per_axis[0].seconds));
  CHECK(fsdp->predicted_bytes_per_device > 0);
}
