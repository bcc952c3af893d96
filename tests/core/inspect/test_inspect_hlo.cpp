// SPDX-License-Identifier: Apache-2.0
// The HLO reader on XLA's own test modules (tests/data/inspect, Apache-2.0). Every expected value
// is worked by hand from the module text: bytes = elements x element size, the ring convention of
// docs/inspect.md for the bytes each device sends, the mesh axes from the groups' device ids.
#include "inspect_test_util.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::inspect_test;

TEST_CASE("inspect hlo: an all-reduce inside a fusion, TPU tiled layouts, memory space S(1)") {
  const InspectResult r = inspectData("h01_tpu_tiled_allreduce_in_fusion.hlo", meshOf({"data", "model"}, {2, 4}));
  CHECK(r.kind == InspectKind::Hlo);
  CHECK(r.module == "LoopFusionAllReduce");
  REQUIRE(r.arguments.size() == 4);
  // p0 bf16[2,8192,6144]: 100,663,296 elements x 2 bytes; tiles (8,128) divide 8192 and 6144.
  CHECK(r.arguments[0].shape == Shape{2, 8192, 6144});
  CHECK(r.arguments[0].dtype == "bfloat16");
  CHECK(r.arguments[0].bytes_per_device == 201326592);
  CHECK(r.arguments[0].padded_bytes_per_device == 201326592);
  CHECK(r.arguments[1].bytes_per_device == 32768);    // bf16[2,8192]
  CHECK(r.arguments[2].bytes_per_device == 50331648); // bf16[1,2,2048,6144]
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.op == InspectCollectiveOp::AllReduce);
  CHECK(c.computation == "fused_computation");
  CHECK_FALSE(c.async);
  CHECK(c.shape == Shape{1, 2, 2048, 6144});
  CHECK(c.group_size == 8);
  CHECK(c.buffer_bytes == 50331648);
  CHECK(c.bytes_per_device == 88080384); // 2 x 7/8 x 50,331,648
  CHECK(c.trip_count == 1);
  // One group of all 8 devices spans both axes of data=2, model=4.
  CHECK(c.axes == Axes{{"data", "model"}});
  // ROOT is a tuple: the first element lives in memory space S(1).
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].memory_kind == "S(1)");
  CHECK(r.results[1].memory_kind == "device");
}

TEST_CASE("inspect hlo: async all-gather-start/done pairs count once, from the start's result element") {
  const InspectResult r = inspectData("h02_async_allgather_overlapped.hlo");
  REQUIRE(r.collectives.size() == 2);
  for (const auto& c : r.collectives) {
    CHECK(c.op == InspectCollectiveOp::AllGather);
    CHECK(c.async);
    CHECK(c.shape == Shape{16, 256, 256}); // element {1} of (f32[8,256,256], f32[16,256,256])
    CHECK(c.dtype == "float32");
    CHECK(c.buffer_bytes == 4194304);
    CHECK(c.bytes_per_device == 2097152); // 1/2 of the gathered 4 MiB
    CHECK(c.group_size == 2);
    CHECK_FALSE(c.channel_id);
    CHECK_FALSE(c.axes); // no mesh given
  }
  CHECK(r.collectives[0].name == "ag-start");
  CHECK(r.collectives[0].op_name == "ag0");
  CHECK(r.collectives[1].op_name == "ag1");
  CHECK(r.local_shapes); // is_scheduled=true
  // Two convolutions f32[16,256,256] of kernel f32[16,64,256] (0io: o = 256): each output element
  // sums 16 x 64 terms: 2 x 1,048,576 x 1,024 = 2^31 each.
  CHECK(r.flop_ops == 2);
  REQUIRE(r.flops_per_device);
  CHECK(*r.flops_per_device == Approx(4294967296.0));
  REQUIRE(r.arguments.size() == 4);
  CHECK(r.arguments[2].bytes_per_device == 4194304);

  const InspectResult onMesh = inspectData("h02_async_allgather_overlapped.hlo", meshOf({"x"}, {2}));
  CHECK(onMesh.collectives[0].axes == Axes{{"x"}});
}

TEST_CASE("inspect hlo: a combined collective-permute-start moves along one axis") {
  const InspectResult r = inspectData("h03_combined_collective_permute_start.hlo", meshOf({"a", "b"}, {3, 2}));
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.op == InspectCollectiveOp::CollectivePermute);
  CHECK(c.async);
  CHECK(c.channel_id == 0);
  CHECK(c.arrays == 4);
  CHECK(c.buffer_bytes == 4096); // four f32[2,128]
  CHECK(c.bytes_per_device == 4096);
  CHECK(c.group_size == 6); // devices 0..5
  CHECK(c.group_count == 4);
  // d = 2a + b: 0->2, 2->4, 1->3, 3->5 keep b and add 1 to a.
  CHECK(c.axes == Axes{{"a"}});
}

TEST_CASE("inspect hlo: a reduce-scatter in a while body runs known_trip_count times") {
  const InspectResult r = inspectData("h04_while_reduce_scatter_trip_count.hlo", meshOf({"data", "model"}, {2, 4}));
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.op == InspectCollectiveOp::ReduceScatter);
  CHECK(c.computation == "body");
  CHECK(c.channel_id == 3);
  CHECK(c.shape == Shape{512});
  CHECK(c.buffer_bytes == 8192);     // the input bf16[4096]
  CHECK(c.bytes_per_device == 7168); // 7/8 x 8,192
  CHECK(c.group_size == 8);
  CHECK(c.trip_count == 10);
  CHECK(c.axes == Axes{{"data", "model"}});
  const auto totals = inspectAxisTotals(r);
  REQUIRE(totals.size() == 1);
  CHECK(totals[0].executions == 10);
  CHECK(totals[0].bytes_per_device == 71680); // 10 x 7,168
  REQUIRE(r.arguments.size() == 2);
  CHECK(r.arguments[0].bytes_per_device == 1024);
  CHECK(r.arguments[1].bytes_per_device == 8192);
}

TEST_CASE("inspect hlo: a pre-partitioning module's shardings, a tuple sharding, dot FLOPs") {
  const InspectResult r = inspectData("h05_tuple_sharding_spmd_input.hlo", meshOf({"x"}, {2}));
  CHECK_FALSE(r.local_shapes);
  REQUIRE(r.arguments.size() == 2);
  CHECK(r.arguments[0].name == "Arg_1.2");
  CHECK(r.arguments[0].sharding == "{devices=[2,1]0,1}");
  CHECK(r.arguments[0].spec == Spec{{{"x"}, {}}});
  CHECK(r.arguments[0].bytes == 16384);           // f32[32,128]
  CHECK(r.arguments[0].bytes_per_device == 8192); // rows [0,16) or [16,32)
  CHECK(r.arguments[1].bytes_per_device == 256);  // f32[4,32] -> 2x32
  REQUIRE(r.results.size() == 2);
  CHECK(r.results[0].bytes_per_device == 8192);
  CHECK(r.results[0].spec == Spec{{{"x"}, {}}});
  CHECK(r.results[1].bytes_per_device == 4); // f32[] replicated
  CHECK(r.results[1].replicated_axes == std::vector<std::string>{"x"});
  // dot.0: 2 x (4x128) x 32 = 32,768; dot.2: 2 x (32x128) x 4 = 32,768; global, over 2 devices.
  CHECK(r.flop_ops == 2);
  REQUIRE(r.flops_per_device);
  CHECK(*r.flops_per_device == Approx(32768.0));
}

TEST_CASE("inspect hlo: iota groups that fit no order of the mesh are never named as axes") {
  const InspectResult r = inspectData("h06_iota_replica_groups_all_gather.hlo", meshOf({"a", "b"}, {6, 5}));
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.group_size == 10);
  CHECK(c.group_count == 3);
  CHECK(c.buffer_bytes == 163840);     // f32[128,320]
  CHECK(c.bytes_per_device == 147456); // 9/10 of it
  CHECK_FALSE(c.axes);
  bool flagged = false;
  for (const auto& f : r.flags) flagged = flagged || f.kind == "device_order_mismatch";
  CHECK(flagged);
}

TEST_CASE("inspect hlo: groups over an axis and part of another name no whole axis") {
  const InspectResult r = inspectData("h07_iota_replica_groups_all_to_all.hlo", meshOf({"a", "b"}, {4, 8}));
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.op == InspectCollectiveOp::AllToAll);
  CHECK(c.group_size == 8);
  CHECK(c.bytes_per_device == 14336); // 7/8 x 16,384
  // {0,8,16,24,1,9,17,25}: all of a, and b in {0,1}: the sub-axis b:(4)2, not b.
  CHECK_FALSE(c.axes);
  CHECK(c.note.find("b:(4)2") != std::string::npos);
  for (const auto& f : r.flags) CHECK(f.kind != "device_order_mismatch");
}

TEST_CASE("inspect hlo: an older collective-permute-start tuple with context scalars") {
  const InspectResult r = inspectData("h08_collective_permute_start_done.hlo", meshOf({"x"}, {4}));
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.async);
  CHECK(c.arrays == 1);
  CHECK(c.buffer_bytes == 16384); // f32[128,32], the u32[] context left out
  CHECK(c.group_size == 4);
  CHECK(c.axes == Axes{{"x"}});
}

TEST_CASE("inspect hlo: indented text and groups broken over lines") {
  const InspectResult r = inspectData("h09_multiline_replica_groups.hlo", meshOf({"x", "y"}, {2, 16}));
  CHECK(r.num_devices == 32);
  REQUIRE(r.collectives.size() == 1);
  const InspectCollective& c = r.collectives[0];
  CHECK(c.channel_id == 1);
  CHECK(c.group_size == 16);
  CHECK(c.bytes_per_device == 7680); // 15/16 x 8,192
  CHECK(c.axes == Axes{{"y"}});
  const InspectResult three = inspectData("h09_multiline_replica_groups.hlo", meshOf({"x", "y", "z"}, {2, 4, 4}));
  CHECK(three.collectives[0].axes == Axes{{"y", "z"}});
}

TEST_CASE("inspect hlo: malformed text gives one error with its line and column") {
  InspectOptions options;
  options.source_name = "bad.hlo";
  const std::string text = "HloModule m\n\nENTRY e {\n  p = f32[8 parameter(0)\n}\n";
  CHECK_THROWS_WITH(inspectText(text, options), Catch::StartsWith("bad.hlo:4:"));
  const std::string unclosed = "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n";
  CHECK_THROWS_WITH(inspectText(unclosed, options), Catch::StartsWith("bad.hlo:"));
  // A number past its bound is refused where it stands, never overflowed (a fuzz finding).
  const std::string huge = "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n"
                           "  ROOT a = f32[8] all-reduce(p), channel_id=20444444444444444444, to_apply=e\n}\n";
  CHECK_THROWS_WITH(inspectText(huge, options), Catch::StartsWith("bad.hlo:4:") && Catch::Contains("below"));
}

TEST_CASE("inspect hlo: unknown opcodes are skipped and counted") {
  const std::string text = "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n  a = f32[8] frobnicate(p)\n"
                           "  ROOT b = f32[8] frobnicate(a), foo={1,2}\n}\n";
  const InspectResult r = inspectText(text);
  REQUIRE(r.skipped_ops.size() == 1);
  CHECK(r.skipped_ops[0].op == "frobnicate");
  CHECK(r.skipped_ops[0].count == 2);
}

TEST_CASE("inspect hlo: a large all-gather over every device of a two-axis mesh is flagged") {
  // 64 MiB gathered whole over 8 devices (d = 4 data + model): bf16[4096,8192].
  const std::string text = "HloModule m, num_partitions=8\nENTRY e {\n  p = bf16[512,8192] parameter(0)\n"
                           "  ROOT ag = bf16[4096,8192] all-gather(p), channel_id=1, replica_groups=[1,8]<=[8],"
                           " dimensions={0}, use_global_device_ids=true\n}\n";
  InspectOptions options;
  options.mesh = meshOf({"data", "model"}, {2, 4});
  const InspectResult r = inspectText(text, options);
  REQUIRE(r.collectives.size() == 1);
  CHECK(r.collectives[0].axes == Axes{{"data", "model"}});
  REQUIRE(r.flags.size() == 1);
  CHECK(r.flags[0].kind == "involuntary_full_rematerialization");
  CHECK(r.flags[0].subject == "ag");
}

TEST_CASE("inspect hlo: iota groups cannot expand without end") {
  // Five distinct spellings of one group of 2^24 devices: more than 2^26 ids in all is refused.
  std::string text = "HloModule m\nENTRY e {\n  p = f32[8] parameter(0)\n";
  const char* groups[] = {"[1,16777216]<=[16777216]", "[1, 16777216]<=[16777216]", "[1,16777216]<=[4096,4096]",
                          "[1,16777216]<=[4096,4096]T(1,0)", "[1,16777216]<=[2,8388608]"};
  for (int i = 0; i < 5; ++i)
    text += "  a" + std::to_string(i) + " = f32[8] all-reduce(p), replica_groups=" + groups[i] + ", to_apply=add\n";
  text += "  ROOT r = f32[8] add(p, p)\n}\n";
  CHECK_THROWS_WITH(inspectText(text), Catch::Contains("more than 67108864 devices"));
}
