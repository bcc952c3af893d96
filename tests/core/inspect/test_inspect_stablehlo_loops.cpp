// SPDX-License-Identifier: Apache-2.0
// Trip counts of StableHLO while loops. The modules are written for these tests in the form JAX
// prints for `shard_map` around `lax.fori_loop` / `lax.scan` (a ring of ppermutes, as ring attention
// runs): a counter carried from a constant, compared in the cond, advanced in the body. Each
// expected count is the length of the range the loop's text walks, worked by hand.
#include "shardscope/inspect/inspect.hpp"

#include <catch2/catch.hpp>

#include <string>

using namespace shardscope;

namespace {

// A ring over cp=4: four 1x1024x128 bf16 blocks (256 KiB per device), one collective_permute per
// iteration. `before`: ops before the while at the manual computation's level; `carried`: the
// while's operands after the counter and the block; `cond`, `step`: the cond's ops (ending in its
// return) and the body's counter update (ending in the value returned first).
std::string ringModule(const std::string& before, const std::string& carried, const std::string& carriedTypes,
                       const std::string& cond, const std::string& step, const std::string& extraReturned = "",
                       const std::string& extraTypes = "") {
  return R"(module @jit_ring attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["cp"=4]>
  func.func public @main(%arg0: tensor<4x1024x128xbf16> {sdy.sharding = #sdy.sharding<@mesh, [{"cp"}, {}, {}]>}) -> (tensor<4x1024x128xbf16> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"cp"}, {}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"cp"}, {}, {}]>] out_shardings=[<@mesh, [{"cp"}, {}, {}]>] manual_axes={"cp"} (%arg1: tensor<1x1024x128xbf16>) {
)" + before +
         R"(      %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1)" + carried +
         R"() : tensor<i32>, tensor<1x1024x128xbf16>)" + carriedTypes + R"(
       cond {
)" + cond +
         R"(      } do {
        %2 = "stablehlo.collective_permute"(%iterArg_0) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<1x1024x128xbf16>) -> tensor<1x1024x128xbf16>
)" + step +
         R"(        stablehlo.return %3, %2)" + extraReturned + R"( : tensor<i32>, tensor<1x1024x128xbf16>)" +
         extraTypes + R"(
      }
      sdy.return %1#1 : tensor<1x1024x128xbf16>
    } : (tensor<4x1024x128xbf16>) -> tensor<4x1024x128xbf16>
    return %0 : tensor<4x1024x128xbf16>
  }
}
)";
}

const std::string kFromZero = "      %c = stablehlo.constant dense<0> : tensor<i32>\n";
const std::string kPlusOne = "        %c_2 = stablehlo.constant dense<1> : tensor<i32>\n"
                             "        %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>\n";

std::string condAgainst(const std::string& direction, int limit, bool counterFirst = true) {
  const std::string lhs = counterFirst ? "%iterArg" : "%c_1", rhs = counterFirst ? "%c_1" : "%iterArg";
  return "        %c_1 = stablehlo.constant dense<" + std::to_string(limit) +
         "> : tensor<i32>\n"
         "        %2 = stablehlo.compare  " +
         direction + ", " + lhs + ", " + rhs +
         ",  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>\n"
         "        stablehlo.return %2 : tensor<i1>\n";
}

const InspectCollective& onlyCollective(const InspectResult& r) {
  REQUIRE(r.collectives.size() == 1);
  return r.collectives[0];
}

InspectResult read(const std::string& text) {
  InspectOptions options;
  options.source_name = "ring.mlir";
  return inspectText(text, options);
}

} // namespace

TEST_CASE("inspect stablehlo loops: fori_loop(0, 3) of a ppermute runs the ring 3 times") {
  const InspectResult r = read(ringModule(kFromZero, "", "", condAgainst("LT", 3), kPlusOne));
  const InspectCollective& c = onlyCollective(r);
  CHECK(c.op == InspectCollectiveOp::CollectivePermute);
  CHECK(c.trip_count == 3); // i = 0, 1, 2
  CHECK(c.bytes_per_device == 1024 * 128 * 2);
  CHECK(c.axes == std::optional<std::vector<std::string>>{{"cp"}});
  CHECK(c.note.find("counted once") == std::string::npos);
}

TEST_CASE("inspect stablehlo loops: each comparison and step gives the range's length") {
  struct Case {
    std::string init, direction;
    int limit;
    int step;
    bool counterFirst;
    std::int64_t trips;
  };
  const Case cases[] = {
      {"0", "LT", 8, 1, true, 8},  // 0..7
      {"1", "LE", 4, 1, true, 4},  // 1..4
      {"0", "LT", 7, 2, true, 4},  // 0, 2, 4, 6
      {"5", "GT", 0, -1, true, 5}, // 5..1
      {"5", "GE", 0, -1, true, 6}, // 5..0
      {"0", "GT", 6, 1, false, 6}, // 6 > i: i = 0..5
      {"0", "NE", 6, 2, true, 3},  // 0, 2, 4
      {"3", "LT", 3, 1, true, 0},  // never
      {"-2", "LT", 2, 1, true, 4}, // -2..1
  };
  for (const auto& k : cases) {
    const std::string before = "      %c = stablehlo.constant dense<" + k.init + "> : tensor<i32>\n";
    const std::string step =
        k.step > 0 ? "        %c_2 = stablehlo.constant dense<" + std::to_string(k.step) +
                         "> : tensor<i32>\n        %3 = stablehlo.add %iterArg, %c_2 : tensor<i32>\n"
                   : "        %c_2 = stablehlo.constant dense<" + std::to_string(-k.step) +
                         "> : tensor<i32>\n        %3 = stablehlo.subtract %iterArg, %c_2 : tensor<i32>\n";
    INFO(k.init << " " << k.direction << " " << k.limit << " step " << k.step);
    const InspectResult r = read(ringModule(before, "", "", condAgainst(k.direction, k.limit, k.counterFirst), step));
    const InspectCollective& c = onlyCollective(r);
    CHECK(c.trip_count == k.trips);
    CHECK((c.note.find("never runs") != std::string::npos) == (k.trips == 0));
  }
}

TEST_CASE("inspect stablehlo loops: a limit carried through the loop unchanged, constants outside the cond") {
  // fori_loop with the bound carried: compare LT %iterArg, %iterArg_3 where the body returns %iterArg_3.
  const std::string before = kFromZero + "      %c_5 = stablehlo.constant dense<5> : tensor<i32>\n";
  const std::string cond = "        %2 = stablehlo.compare  LT, %iterArg, %iterArg_3,  SIGNED : (tensor<i32>, "
                           "tensor<i32>) -> tensor<i1>\n        stablehlo.return %2 : tensor<i1>\n";
  const InspectResult r =
      read(ringModule(before, ", %iterArg_3 = %c_5", ", tensor<i32>", cond, kPlusOne, ", %iterArg_3", ", tensor<i32>"));
  CHECK(onlyCollective(r).trip_count == 5);
  // The same bound changed by the body is no bound: counted once, and said.
  const std::string bump = kPlusOne + "        %4 = stablehlo.add %iterArg_3, %c_2 : tensor<i32>\n";
  const InspectResult moving =
      read(ringModule(before, ", %iterArg_3 = %c_5", ", tensor<i32>", cond, bump, ", %4", ", tensor<i32>"));
  CHECK(onlyCollective(moving).trip_count == 1);
  CHECK(onlyCollective(moving).note.find("counted once") != std::string::npos);
}

TEST_CASE("inspect stablehlo loops: a data-dependent exit is counted once and says so") {
  // while i < 8 and not done: the cond returns an `and`, not the comparison.
  const std::string cond = "        %c_1 = stablehlo.constant dense<8> : tensor<i32>\n"
                           "        %2 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) "
                           "-> tensor<i1>\n"
                           "        %5 = stablehlo.and %2, %iterArg_4 : tensor<i1>\n"
                           "        stablehlo.return %5 : tensor<i1>\n";
  const std::string before = kFromZero + "      %t = stablehlo.constant dense<true> : tensor<i1>\n";
  const InspectResult r =
      read(ringModule(before, ", %iterArg_4 = %t", ", tensor<i1>", cond, kPlusOne, ", %iterArg_4", ", tensor<i1>"));
  CHECK(onlyCollective(r).trip_count == 1);
  CHECK(onlyCollective(r).note.find("inside a stablehlo.while loop that does not count a constant range") !=
        std::string::npos);
  // A counter that starts at an argument, not a constant: no count either.
  const std::string fromArg = R"(      %c = stablehlo.convert %arg1 : (tensor<1x1024x128xbf16>) -> tensor<i32>
)";
  const InspectResult r2 = read(ringModule(fromArg, "", "", condAgainst("LT", 3), kPlusOne));
  CHECK(onlyCollective(r2).trip_count == 1);
  CHECK(onlyCollective(r2).note.find("counted once") != std::string::npos);
}

TEST_CASE("inspect stablehlo loops: nested loops multiply, and names reused across regions resolve as written") {
  // An outer scan of 4 steps whose body holds the ring loop of 3: 12 permutes. Both conds define
  // %c_1 and both bodies %c_2 with other values, as MLIR's printer reuses names in sibling regions.
  const std::string text =
      R"(module @jit_nested attributes {mhlo.num_partitions = 4 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["cp"=4]>
  func.func public @main(%arg0: tensor<4x8xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"cp"}, {}]>}) -> tensor<4x8xf32> {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"cp"}, {}]>] out_shardings=[<@mesh, [{"cp"}, {}]>] manual_axes={"cp"} (%arg1: tensor<1x8xf32>) {
      %c = stablehlo.constant dense<0> : tensor<i32>
      %1:2 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg1) : tensor<i32>, tensor<1x8xf32>
       cond {
        %c_1 = stablehlo.constant dense<4> : tensor<i32>
        %2 = stablehlo.compare  LT, %iterArg, %c_1,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
        stablehlo.return %2 : tensor<i1>
      } do {
        %c_1 = stablehlo.constant dense<0> : tensor<i32>
        %2:2 = stablehlo.while(%iterArg_5 = %c_1, %iterArg_6 = %iterArg_0) : tensor<i32>, tensor<1x8xf32>
         cond {
          %c_3 = stablehlo.constant dense<3> : tensor<i32>
          %4 = stablehlo.compare  LT, %iterArg_5, %c_3,  SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
          stablehlo.return %4 : tensor<i1>
        } do {
          %4 = "stablehlo.collective_permute"(%iterArg_6) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, source_target_pairs = dense<[[0, 1], [1, 2], [2, 3], [3, 0]]> : tensor<4x2xi64>}> : (tensor<1x8xf32>) -> tensor<1x8xf32>
          %c_3 = stablehlo.constant dense<1> : tensor<i32>
          %5 = stablehlo.add %iterArg_5, %c_3 : tensor<i32>
          stablehlo.return %5, %4 : tensor<i32>, tensor<1x8xf32>
        }
        %3 = "stablehlo.all_reduce"(%2#1) <{channel_handle = #stablehlo.channel_handle<handle = 2, type = 1>, replica_groups = dense<[[0, 1, 2, 3]]> : tensor<1x4xi64>, use_global_device_ids}> ({
        ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
          %6 = stablehlo.add %arg2, %arg3 : tensor<f32>
          stablehlo.return %6 : tensor<f32>
        }) : (tensor<1x8xf32>) -> tensor<1x8xf32>
        %c_2 = stablehlo.constant dense<1> : tensor<i32>
        %7 = stablehlo.add %iterArg, %c_2 : tensor<i32>
        stablehlo.return %7, %3 : tensor<i32>, tensor<1x8xf32>
      }
      sdy.return %1#1 : tensor<1x8xf32>
    } : (tensor<4x8xf32>) -> tensor<4x8xf32>
    return %0 : tensor<4x8xf32>
  }
}
)";
  const InspectResult r = read(text);
  REQUIRE(r.collectives.size() == 2);
  CHECK(r.collectives[0].op == InspectCollectiveOp::CollectivePermute);
  CHECK(r.collectives[0].trip_count == 12); // 4 x 3
  CHECK(r.collectives[1].op == InspectCollectiveOp::AllReduce);
  CHECK(r.collectives[1].trip_count == 4); // the all-reduce's own region does not end the outer body
  CHECK(r.collectives[1].axes == std::optional<std::vector<std::string>>{{"cp"}});
}
