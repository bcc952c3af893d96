// SPDX-License-Identifier: Apache-2.0
// The scaling book's worked collective examples (../shared/spec/step-time.md §3; the book's
// sharding.md) through the one cost form the step estimate, the CLI and the GUI use: axis reports
// on hand-built meshes, then collectiveSeconds. The book rounds its answers; each check says which
// array size the book's figure comes from.
#include "shardscope/cost/collectives.hpp"

#include "core/cost/comm_test_support.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::testing;

namespace {

std::shared_ptr<const LinkGraph> graphOf(const std::string& topology, std::optional<std::array<bool, 3>> wrap = {}) {
  const TopologySpec spec = parseTopology(topology);
  LinkParams params = defaultLinkParams(*findChip(spec.chip));
  params.wrap = wrap;
  return cachedLinkGraph(spec, params);
}

double seconds(Collective kind, double bytes, const AxisReport& axis) {
  return collectiveSeconds(kind, bytes, ringCostInputs(axis));
}

} // namespace

TEST_CASE("scaling book: AllGather over Y of a v5e {X:8, Y:4} mesh, without and with wraparound", "[step][comm]") {
  // v5e wraps only axes of 16: the Y ring of 4 is open, so each shard takes 3 one-way hops.
  const auto g = graphOf("v5e:8x4");
  const auto mesh = handMesh(g->devices(), {8, 4}, {"X", "Y"},
                             [&](const auto& i) { return positionOf(g->devices(), int(i[0]), int(i[1])); });
  const auto y = axisReport(*g, mesh, 1);
  CHECK(y.torus);
  CHECK_FALSE(y.wraps);
  CHECK_FALSE(y.ring_closed);
  const double V = 2048.0 * 8192 * 2; // bf16[2048, 8192], 8.4 MB per shard
  // 3 hops x 8.4e6 / 4.5e10 = 560 us in the book.
  CHECK(seconds(Collective::AllGather, V, y) == Approx(3 * (V / 4) / 4.5e10));
  CHECK(seconds(Collective::AllGather, V, y) == Approx(560e-6).epsilon(0.002));
  // bf16[256, 256] is latency-bound: 3 hops x 1 us.
  CHECK(seconds(Collective::AllGather, 256.0 * 256 * 2, y) == Approx(3e-6));

  // With wraparound links the ring closes and both directions carry half: V / 9e10, 377 us for
  // the book's 34 MB.
  const auto wrapped = graphOf("v5e:8x4", std::array<bool, 3>{true, true, false});
  const auto yw = axisReport(*wrapped, mesh, 1);
  CHECK(yw.wraps);
  CHECK(seconds(Collective::AllGather, 34e6, yw) == Approx(34e6 / 9e10));
  CHECK(seconds(Collective::AllGather, 34e6, yw) == Approx(377e-6).epsilon(0.003));
}

TEST_CASE("scaling book: v4 4x4x4 with mesh {X:4, Y:4, Z:4}, B = 1024, D = 4096", "[step][comm]") {
  const auto g = graphOf("v4:4x4x4"); // a full cube: every axis wraps
  const double B = 1024, D = 4096;
  const auto xyz = handMesh(g->devices(), {4, 4, 4}, {"X", "Y", "Z"},
                            [&](const auto& i) { return positionOf(g->devices(), int(i[0]), int(i[1]), int(i[2])); });
  const auto x = axisReport(*g, xyz, 0);
  const auto z = axisReport(*g, xyz, 2);
  REQUIRE(x.wraps);
  REQUIRE(z.wraps);
  // AllGather_X of [B_X, D_Y]: 2BD/Y bytes gathered at 9e10 B/s bidirectional = 23 us.
  CHECK(seconds(Collective::AllGather, 2 * B * D / 4, x) == Approx(2 * B * D / 4 / 9e10));
  CHECK(seconds(Collective::AllGather, 2 * B * D / 4, x) == Approx(23e-6).epsilon(0.02));
  // AllReduce_Z of the unreduced 2BD bytes: 2 x 2BD / 9e10 = 4BD / 9e10, 186 us (the book says 190).
  CHECK(seconds(Collective::AllReduce, 2 * B * D, z) == Approx(4 * B * D / 9e10));
  CHECK(seconds(Collective::AllReduce, 2 * B * D, z) == Approx(190e-6).epsilon(0.025));

  // AllGather over X and Y together: one logical axis of 16 over two whole wrapped physical axes
  // moves 2BD at 2 x 9e10 = 46 us; the latency floor is 4 hops (4 us).
  const auto xy = handMesh(g->devices(), {16, 4}, {"XY", "Z"}, [&](const auto& i) {
    return positionOf(g->devices(), int(i[0] % 4), int(i[0] / 4), int(i[1]));
  });
  const auto both = axisReport(*g, xy, 0);
  CHECK(both.wraps);
  CHECK(both.physical_axes == 2);
  CHECK(seconds(Collective::AllGather, 2 * B * D, both) == Approx(2 * B * D / (2 * 9e10)));
  CHECK(seconds(Collective::AllGather, 2 * B * D, both) == Approx(46e-6).epsilon(0.02));
  CHECK(seconds(Collective::AllGather, 256, both) == Approx(4e-6));
  // All-to-all: on one ring the book's AllGather / 4; on the 4x4 plane each of the 16 buffers
  // travels 1 + 1 hops on average over 4 link directions: (V/16) x 8 / (4 x 2 x 9e10).
  CHECK(seconds(Collective::AllToAll, 2 * B * D, z) == Approx(2 * B * D / 9e10 / 4));
  CHECK(seconds(Collective::AllToAll, 2 * B * D, both) == Approx(2 * B * D / 16 * 8 / (4 * 2 * 9e10)));
}

TEST_CASE("an axis that splits a wrapped physical axis runs an open ring", "[step][comm]") {
  // tp = 4 inside the 16-long wrapped x axis of a v5e 16x16: a segment, not a ring.
  const auto g = graphOf("v5e:16x16");
  const auto mesh = handMesh(g->devices(), {4, 16, 4}, {"a", "y", "tp"},
                             [&](const auto& i) { return positionOf(g->devices(), int(i[0] * 4 + i[2]), int(i[1])); });
  const auto tp = axisReport(*g, mesh, 2);
  CHECK(tp.torus);
  CHECK_FALSE(tp.wraps);
  CHECK_FALSE(tp.ring_closed);
  CHECK(seconds(Collective::AllGather, 1e8, tp) == Approx(0.75 * 1e8 / 4.5e10));
}

TEST_CASE("GPUs and DCN axes use the alpha-beta ring", "[step][comm]") {
  // 8 H100 in one NVLink domain: the book's AllGather of bf16[1024, 16384] at 450 GB/s one way is
  // about 65 us of bandwidth, plus 7 steps of 2 us latency in the alpha-beta form.
  const auto h = graphOf("h100:1x8");
  const auto tp = axisReport(*h, handMesh(h->devices(), {8}, {"tp"}, [](const auto& i) { return int(i[0]); }), 0);
  CHECK_FALSE(tp.torus);
  const double V = 1024.0 * 16384 * 2;
  CHECK(seconds(Collective::AllGather, V, tp) == Approx(7 * 2e-6 + 7.0 / 8 * V / 450e9));
  // Two v4 slices: the axis across them goes through DCN (6.25 GB/s per chip), alpha-beta.
  const auto dcn = graphOf("v4:2x2x1:slices=2");
  const auto& devices = dcn->devices();
  const auto mesh = handMesh(devices, {2, 4}, {"dp", "fsdp"}, [&](const auto& i) {
    return positionOf(devices, int(i[1] % 2), int(i[1] / 2), 0, 0, int(i[0]));
  });
  const auto dp = axisReport(*dcn, mesh, 0);
  CHECK(dp.crosses_slices);
  CHECK_FALSE(dp.torus);
  CHECK(seconds(Collective::AllReduce, 1e9, dp) == Approx(2 * (dp.step_latency + 0.5 * 1e9 / dp.ring_bandwidth)));
  CHECK(dp.ring_bandwidth == Approx(6.25e9));
}
