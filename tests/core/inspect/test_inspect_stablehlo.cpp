// SPDX-License-Identifier: Apache-2.0
// The StableHLO reader on JAX's lowered modules and Shardy's and XLA's lit tests
// (tests/data/inspect, Apache-2.0). Expected values are worked by hand from Shardy's semantics:
// a dimension's block is ceil(size / product of its axes), sub-axis "x":(m)k is the middle factor
// of x seen as [m, k, n/(m k)], device i is position i of the mesh.
#include "inspect_test_util.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::inspect_test;

namespace {

const InspectArgument& argumentOf(const InspectResult& r, const std::string& function, std::int64_t index,
                                  bool result = false) {
  for (const auto& a : result ? r.results : r.arguments)
    if (a.function == function && a.index == index) return a;
  FAIL("no argument " << index << " of " << function);
  throw std::logic_error("unreachable");
}

const InspectCollective& collectiveIn(const InspectResult& r, const std::string& function) {
  for (const auto& c : r.collectives)
    if (c.computation == function) return c;
  FAIL("no collective in " << function);
  throw std::logic_error("unreachable");
}

} // namespace

TEST_CASE("inspect stablehlo: JAX's shard_map + ppermute lowering with Shardy") {
  const InspectResult r = inspectData("s01_jax_shard_map_ppermute.mlir");
  CHECK(r.kind == InspectKind::StableHlo);
  CHECK(r.module == "jit_func");
  CHECK(r.num_devices == 2);
  REQUIRE(r.meshes.size() == 1);
  CHECK(r.meshes[0].name == "mesh");
  CHECK(r.meshes[0].axes == std::vector<InspectAxis>{{"a", 2}});
  REQUIRE(r.arguments.size() == 1);
  const InspectArgument& x = r.arguments[0];
  CHECK(x.name == "x"); // loc("x")
  CHECK(x.shape == Shape{2, 4});
  CHECK(x.dtype == "float32");
  CHECK(x.sharding == "#sdy.sharding<@mesh, [{\"a\"}, {}]>");
  CHECK(x.spec == Spec{{{"a"}, {}}});
  CHECK(x.bytes == 32);
  CHECK(x.bytes_per_device == 16); // 1x4 f32
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].name == "result"); // jax.result_info
  CHECK(r.results[0].bytes_per_device == 16);
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.op == InspectCollectiveOp::CollectivePermute);
  CHECK(c.channel_id == 1);
  CHECK(c.shape == Shape{1, 4}); // local, inside the manual computation
  CHECK(c.buffer_bytes == 16);
  CHECK(c.bytes_per_device == 16);
  CHECK(c.group_size == 2);
  CHECK(c.axes == Axes{{"a"}}); // 0 -> 1, 1 -> 0 along a
}

TEST_CASE("inspect stablehlo: an argument without a sharding, a sharding_constraint, callsite locations") {
  const InspectResult r = inspectData("s02_jax_sharding_constraint_shard_map.mlir");
  REQUIRE(r.arguments.size() == 1);
  CHECK(r.arguments[0].name == "x");
  CHECK(r.arguments[0].sharding.empty());
  CHECK_FALSE(r.arguments[0].spec);
  CHECK(r.arguments[0].bytes_per_device == 32);
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].bytes_per_device == 16);
  CHECK(r.collectives[0].axes == Axes{{"a"}});
  // %0 = sdy.sharding_constraint %arg0 <@mesh, [{"a"}, {}]> : tensor<2x4xf32>: rows over a.
  REQUIRE(r.constraints.size() == 1);
  CHECK(r.constraints[0].op == "sdy.sharding_constraint");
  CHECK(r.constraints[0].name == "%0");
  CHECK(r.constraints[0].spec == Spec{{{"a"}, {}}});
  CHECK(r.constraints[0].bytes_per_device == 16);
}

TEST_CASE("inspect stablehlo: memory kinds and an axis of size one") {
  const InspectResult r = inspectData("s03_jax_memory_kinds_sdy.mlir");
  REQUIRE(r.arguments.size() == 2);
  CHECK(r.arguments[0].name == "x");
  CHECK(r.arguments[0].memory_kind == "device");
  CHECK(r.arguments[1].name == "y");
  CHECK(r.arguments[1].memory_kind == "pinned_host");
  CHECK(r.arguments[1].spec == Spec{{{"a"}}});
  CHECK(r.arguments[1].bytes_per_device == 4);
  CHECK(r.collectives.empty());
}

TEST_CASE("inspect stablehlo: the Shardy round-trip form in frontend attributes") {
  const InspectResult r = inspectData("s04_jax_sdy_frontend_attr_roundtrip.mlir");
  REQUIRE(r.meshes.size() == 1);
  CHECK(r.meshes[0].name == "mesh");
  CHECK(r.meshes[0].axes == std::vector<InspectAxis>{{"a", 1}});
  REQUIRE(r.arguments.size() == 2);
  CHECK(r.arguments[0].name == "x");
  CHECK(r.arguments[0].sharding == "#sdy.sharding<@mesh, [{\"a\"}]>"); // \22 unescaped
  CHECK(r.arguments[0].spec == Spec{{{"a"}}});
  CHECK(r.arguments[0].bytes_per_device == 4);
  CHECK(r.arguments[1].memory_kind == "pinned_host");
}

TEST_CASE("inspect stablehlo: the GSPMD form, jax.arg_info, no num_partitions") {
  const InspectResult noMesh = inspectData("s05_jax_gspmd_mhlo_sharding.mlir");
  REQUIRE(noMesh.arguments.size() == 1);
  CHECK(noMesh.arguments[0].name == "args[0]");
  CHECK(noMesh.arguments[0].sharding == "{replicated}");
  CHECK(noMesh.arguments[0].bytes_per_device == 32);
  CHECK(noMesh.num_devices == 2); // from the @Sharding custom calls' {devices=[2,1]0,1}
  REQUIRE(noMesh.collectives.size() == 1);
  CHECK(noMesh.collectives[0].computation == "wrapped");
  CHECK(noMesh.collectives[0].bytes_per_device == 16);
  CHECK_FALSE(noMesh.collectives[0].axes);

  const InspectResult r = inspectData("s05_jax_gspmd_mhlo_sharding.mlir", meshOf({"x"}, {2}));
  CHECK(r.arguments[0].spec == Spec{{{}, {}}});
  CHECK(r.arguments[0].replicated_axes == std::vector<std::string>{"x"});
  CHECK(r.collectives[0].axes == Axes{{"x"}});
}

TEST_CASE("inspect stablehlo: GSPMD tile assignments on XLA's imported mesh (import_shardings.mlir)") {
  const InspectResult r =
      inspectData("s06_xla_import_gspmd_shardings.mlir", meshOf({"_axis_0", "_axis_1", "_axis_2"}, {2, 4, 4}));
  // XLA's CHECK lines: [4,8]<=[8,4]T(1,0) is [{"_axis_2"}, {"_axis_0", "_axis_1"}].
  const auto& a0 = argumentOf(r, "non_trivial_common_mesh", 0);
  CHECK(a0.spec == Spec{{{"_axis_2"}, {"_axis_0", "_axis_1"}}});
  CHECK(a0.bytes_per_device == 8); // 8x8 f32 -> 2x1
  const auto& a1 = argumentOf(r, "non_trivial_common_mesh", 1);
  CHECK(a1.spec == Spec{{{}, {"_axis_0"}}});
  CHECK(a1.bytes_per_device == 128); // 8x4
  CHECK(a1.replicated_axes == std::vector<std::string>{"_axis_1", "_axis_2"});
  const auto& a2 = argumentOf(r, "non_trivial_common_mesh", 2);
  CHECK(a2.spec == Spec{{{"_axis_1"}, {"_axis_2"}}});
  CHECK(a2.bytes_per_device == 32); // 8x16 -> 2x4
  CHECK(a2.replicated_axes == std::vector<std::string>{"_axis_0"});
  const auto& m1 = argumentOf(r, "multiple_shardings", 1);
  CHECK(m1.spec == Spec{{{}, {"_axis_0", "_axis_2"}}});
  CHECK(m1.bytes_per_device == 32);
  const auto& m2 = argumentOf(r, "multiple_shardings", 2);
  CHECK(m2.spec == Spec{{{}, {"_axis_1"}}});
  CHECK(m2.bytes_per_device == 128);
  const auto& out = argumentOf(r, "multiple_shardings", 0, true);
  CHECK(out.spec == Spec{{{"_axis_0", "_axis_1"}, {"_axis_2"}}});
  CHECK(out.bytes_per_device == 16);
}

TEST_CASE("inspect stablehlo: Shardy's all-gathers over axes and sub-axes (sdy_all_gather.mlir)") {
  const InspectResult r = inspectData("s07_shardy_sdy_all_gather_to_stablehlo.mlir");
  REQUIRE(r.collectives.size() == 6);
  const auto& oneDim = collectiveIn(r, "one_dim");
  CHECK(oneDim.op == InspectCollectiveOp::AllGather);
  CHECK(oneDim.group_size == 4);
  CHECK(oneDim.axes == Axes{{"y"}});
  CHECK(oneDim.shape == Shape{4, 16}); // the result's block under [{"x"}, {}]
  CHECK(oneDim.buffer_bytes == 256);
  CHECK(oneDim.bytes_per_device == 192); // 3/4 x 256
  const auto& xy = collectiveIn(r, "one_dim_two_axes_xy");
  CHECK(xy.group_size == 8);
  CHECK(xy.axes == Axes{{"x", "y"}});
  CHECK(xy.bytes_per_device == 224); // 7/8 x 8x8 f32
  const auto& yx = collectiveIn(r, "one_dim_two_axes_yx");
  CHECK(yx.axes == Axes{{"x", "y"}}); // mesh order
  const auto& sub = collectiveIn(r, "one_dim_two_axes_subaxis");
  CHECK(sub.group_size == 4);
  CHECK_FALSE(sub.axes); // y:(2)2 is part of y, never y
  CHECK(sub.bytes_per_device == 192);
  CHECK(collectiveIn(r, "two_dims_yz").axes == Axes{{"y", "z"}});
  CHECK(collectiveIn(r, "two_dims_yx").axes == Axes{{"x", "y"}});
  // The arguments' blocks: [{"x", "y"}, {}] on x=2,y=4 cuts 8 rows into 8: 1x16 f32.
  CHECK(argumentOf(r, "one_dim", 0).bytes_per_device == 64);
  CHECK(argumentOf(r, "one_dim_two_axes_subaxis", 0).spec == Spec{{{"x", "y:(2)2"}, {"z"}}});
  CHECK(argumentOf(r, "one_dim_two_axes_subaxis", 0).bytes_per_device == 64); // 2x8 f32
}

TEST_CASE("inspect stablehlo: every form of Shardy's tensor sharding (tensor_sharding_parse_print.mlir)") {
  const InspectResult r = inspectData("s08_shardy_tensor_sharding_parse_print.mlir");
  REQUIRE(r.meshes.size() == 3);
  CHECK(r.meshes[0].axes == std::vector<InspectAxis>{{"a", 2}, {"c", 2}, {"b", 4}, {"d", 2}});
  CHECK(r.meshes[2].isMaximal());
  const auto& prio = argumentOf(r, "sharding_with_priority", 0);
  CHECK(prio.spec == Spec{{{"a"}, {"b"}}});
  CHECK(prio.bytes_per_device == 32); // 4x2 f32
  CHECK(prio.replicated_axes == std::vector<std::string>{"c", "d"});
  const auto& dynamic = argumentOf(r, "dynamic_shaped_tensor_with_sharding", 0);
  CHECK(dynamic.shape == Shape{-1, -1});
  CHECK(dynamic.spec == Spec{{{}, {"a"}}});
  CHECK_FALSE(dynamic.bytes_per_device);
}

TEST_CASE("inspect stablehlo: manual computations of every shape parse (manual_computation_parse_print.mlir)") {
  const InspectResult r = inspectData("s09_shardy_manual_computation_parse_print.mlir");
  REQUIRE(r.meshes.size() == 3);
  CHECK(r.meshes[0].name == "meshA");
  CHECK(r.meshes[1].axes == std::vector<InspectAxis>{{"a", 4}});
}

TEST_CASE("inspect stablehlo: meshes: empty, maximal, explicit device ids (mesh_parse_print.mlir)") {
  const InspectResult r = inspectData("s10_shardy_mesh_parse_print.mlir");
  REQUIRE(r.meshes.size() == 10);
  CHECK(r.meshes[0].isEmpty());
  CHECK(r.meshes[2].isMaximal());
  CHECK(r.meshes[2].device_ids == std::vector<std::int64_t>{3});
  CHECK(r.meshes[6].device_ids == std::vector<std::int64_t>{1, 0});
  CHECK(r.meshes[9].deviceCount() == 4);
}

TEST_CASE("inspect stablehlo: sub-axes, open dimensions, replicated={} on a sharding of its own") {
  const std::string text = R"(module @m {
  sdy.mesh @mesh = <["data"=4, "model"=2, "x"=8]>
  func.func public @main(%arg0: tensor<64x32xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"data", ?}p1, {"x":(2)4}], replicated={"model"}>} loc("w"),
                         %arg1: tensor<10x6xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"data"}, {?}]>}) -> tensor<64x32xbf16> {
    %0 = sdy.reshard %arg0 <@mesh, [{"model"}, {}]> : tensor<64x32xbf16>
    return %0 : tensor<64x32xbf16>
  }
}
)";
  const InspectResult r = inspectText(text);
  REQUIRE(r.arguments.size() == 2);
  const auto& w = r.arguments[0];
  CHECK(w.name == "w");
  CHECK(w.spec == Spec{{{"data"}, {"x:(2)4"}}});
  // 64/4 = 16 rows, 32/4 = 8 columns of bf16: 256 bytes. x:(2)4 is the minor 4 of x=8, so x leaves
  // its major factor x:(1)2 replicated, beside model.
  CHECK(w.bytes_per_device == 256);
  CHECK(w.replicated_axes == std::vector<std::string>{"model", "x:(1)2"});
  // ceil(10/4) = 3 rows of 6 f32 (XLA pads the last block).
  CHECK(r.arguments[1].bytes_per_device == 72);
  CHECK(r.arguments[1].name == "%arg1");
  // The reshard: 64 rows over model=2, 32 columns of bf16.
  REQUIRE(r.constraints.size() == 1);
  CHECK(r.constraints[0].op == "sdy.reshard");
  CHECK(r.constraints[0].spec == Spec{{{"model"}, {}}});
  CHECK(r.constraints[0].bytes_per_device == 2048);
}

TEST_CASE("inspect stablehlo: malformed Shardy text gives its line and column") {
  InspectOptions options;
  options.source_name = "bad.mlir";
  const std::string text = "module {\n  sdy.mesh @mesh = <[\"a\"=2, \"b\"]>\n}\n";
  CHECK_THROWS_WITH(inspectText(text, options), Catch::StartsWith("bad.mlir:2:"));
}
