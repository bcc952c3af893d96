// SPDX-License-Identifier: Apache-2.0
// Per-axis ring figures on meshes built by hand, and the cost models with numbers worked by hand.
#include "shardscope/cost/collectives.hpp"
#include "shardscope/mesh/mesh_string.hpp"

#include "core/cost/comm_test_support.hpp"

#include <catch2/catch.hpp>

#include <map>

using namespace shardscope;
using namespace shardscope::testing;

namespace {
std::shared_ptr<const LinkGraph> graphOf(const std::string& topology) {
  return cachedLinkGraph(parseTopology(topology));
}
} // namespace

TEST_CASE("JAX's v5e 4x4 16-ring closes on physical links", "[comm]") {
  auto g = graphOf("v5e:4x4"); // no wraparound: the ring must snake
  const std::vector<int> order{0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4}; // _TRAY_4x4_RING_ORDER
  const auto r = axisReport(*g, ringMeshXFastest(g->devices(), order), 0, true);
  CHECK(r.ring_closed);
  CHECK(r.max_hops == 1);
  CHECK(r.mean_hops == Approx(1.0));
  CHECK(r.max_link_load == 1);
  CHECK(r.group_count == 1);
  CHECK(r.crosses_hosts); // a v5e host holds 4x2 chips
  CHECK_FALSE(r.crosses_slices);
  CHECK(r.physical_axes == 2);
  CHECK(r.physical_extent_sum == 8);
  // Plain x-fastest order is not a ring: row ends jump back.
  std::vector<int> iota(16);
  for (int i = 0; i < 16; ++i) iota[static_cast<std::size_t>(i)] = i;
  const auto plain = axisReport(*g, ringMeshXFastest(g->devices(), iota), 0, true);
  CHECK_FALSE(plain.ring_closed);
  CHECK(plain.max_hops == 6); // (3,3) -> (0,0)
}

TEST_CASE("v3 tray ring on 2x2 chips with 2 cores closes", "[comm]") {
  auto g = graphOf("v3:2x2");
  REQUIRE(g->devices().size() == 8);
  const std::vector<int> order{0, 1, 2, 3, 6, 7, 4, 5}; // _TRAY_RING_ORDER over list positions
  const auto r = axisReport(
      *g, handMesh(g->devices(), {8}, {"x"}, [&](const auto& i) { return order[static_cast<std::size_t>(i[0])]; }), 0,
      true);
  CHECK(r.ring_closed);
  CHECK(r.max_hops == 1);
  CHECK(r.mean_hops == Approx(0.5)); // four core-to-core steps on one chip, four chip-to-chip hops
  REQUIRE(r.groups.size() == 1);
  CHECK(r.groups[0].hops == std::vector<int>{0, 1, 0, 1, 0, 1, 0, 1});
}

TEST_CASE("the v5e tray 'ring' on a 2x4 slice is not a ring (jax-mesh-utils §9 item 2)", "[comm]") {
  const std::vector<int> order{0, 1, 2, 3, 7, 6, 5, 4}; // _V5E_TRAY_RING_ORDER
  auto wide = graphOf("v5e:4x2");
  const auto ok = axisReport(*wide, ringMeshXFastest(wide->devices(), order), 0, true);
  CHECK(ok.ring_closed);
  CHECK(ok.max_hops == 1);
  auto tall = graphOf("v5e:2x4");
  const auto bad = axisReport(*tall, ringMeshXFastest(tall->devices(), order), 0, true);
  CHECK_FALSE(bad.ring_closed);
  REQUIRE(bad.groups.size() == 1);
  // (0,0)(1,0)(0,1)(1,1)(1,3)(0,3)(1,2)(0,2): every other step is 2 hops.
  CHECK(bad.groups[0].hops == std::vector<int>{1, 2, 1, 2, 1, 2, 1, 2});
  CHECK(bad.max_hops == 2);
  CHECK(bad.mean_hops == Approx(1.5));
}

TEST_CASE("link load by hand on v5e rows", "[comm]") {
  SECTION("open 4x4: each row ring goes out and comes back along the same links") {
    auto g = graphOf("v5e:4x4");
    const auto m = handMesh(g->devices(), {4, 4}, {"y", "x"},
                            [&](const auto& i) { return positionOf(g->devices(), int(i[1]), int(i[0])); });
    const auto r = axisReport(*g, m, 1);
    CHECK_FALSE(r.ring_closed);
    CHECK(r.group_count == 4);
    CHECK(r.max_hops == 3);
    CHECK(r.mean_hops == Approx(1.5)); // (1 + 1 + 1 + 3) / 4
    CHECK(r.max_link_load == 2);       // forward once, closing route once
    CHECK(r.max_directed_link_load == 1);
    CHECK(r.ring_bandwidth == Approx(4.5e10));      // one direction per link is free
    CHECK(r.bidi_ring_bandwidth == Approx(4.5e10)); // 2 x 4.5e10 / 2
    CHECK(r.step_latency == Approx(3e-6));
  }
  SECTION("16x16 torus, x split 4 (outer) x 4 (inner)") {
    auto g = graphOf("v5e:16x16");
    const auto m = handMesh(g->devices(), {4, 4, 16}, {"a", "b", "y"},
                            [&](const auto& i) { return positionOf(g->devices(), int(4 * i[0] + i[1]), int(i[2])); });
    const auto outer = axisReport(*g, m, 0);
    CHECK(outer.group_count == 64);
    CHECK_FALSE(outer.ring_closed);
    CHECK(outer.max_hops == 4); // stride 4, wrap closes 12 -> 0 in 4 hops
    CHECK(outer.mean_hops == Approx(4.0));
    CHECK(outer.max_link_load == 4); // the 4 groups of a row each cross every link once
    CHECK(outer.max_directed_link_load == 4);
    CHECK(outer.ring_bandwidth == Approx(4.5e10 / 4));
    const auto inner = axisReport(*g, m, 1);
    CHECK_FALSE(inner.ring_closed);
    CHECK(inner.max_hops == 3);
    CHECK(inner.max_link_load == 2);
    CHECK(inner.max_directed_link_load == 1);
    const auto y = axisReport(*g, m, 2);
    CHECK(y.ring_closed); // whole wrapped axis
    CHECK(y.max_link_load == 1);
    CHECK(y.physical_axes == 1);
    CHECK(y.physical_extent_sum == 16);
  }
}

TEST_CASE("axes that cross slices go over DCN, GPU hosts over the network", "[comm]") {
  auto g = graphOf("v4:2x2:slices=2");
  const auto& d = g->devices();
  const auto m = handMesh(d, {2, 4}, {"dcn", "ici"}, [&](const auto& i) { return int(i[0] * 4 + i[1]); });
  const auto dcn = axisReport(*g, m, 0);
  CHECK(dcn.crosses_slices);
  CHECK(dcn.uses_fabric);
  CHECK(dcn.slowest_link == LinkClass::Dcn);
  CHECK(dcn.max_hops == 2);
  CHECK_FALSE(dcn.ring_closed);
  CHECK(dcn.max_link_load == 2); // each uplink carries the pair up and the pair back down
  CHECK(dcn.max_directed_link_load == 1);
  CHECK(dcn.ring_bandwidth == Approx(6.25e9));
  CHECK(dcn.step_latency == Approx(20e-6));
  const auto ici = axisReport(*g, m, 1);
  CHECK_FALSE(ici.crosses_slices);
  CHECK_FALSE(ici.crosses_hosts); // a 2x2 slice is one host
  CHECK(ici.slowest_link == LinkClass::Ici);
  // List order (0,0)(1,0)(0,1)(1,1) is x-major, not a ring (jax-mesh-utils §9 item 16): hops 1, 2, 1, 2.
  CHECK_FALSE(ici.ring_closed);
  CHECK(ici.max_hops == 2);
  CHECK(ici.mean_hops == Approx(1.5));

  // v5e's DCN share is half v5p's: 6.4 Tb/s per 256-chip pod (Google Cloud's v5e page) is
  // 25 Gb/s = 3.125 GB/s per chip.
  auto e = graphOf("v5e:2x2:slices=2");
  const auto em = handMesh(e->devices(), {2, 4}, {"dcn", "ici"}, [&](const auto& i) { return int(i[0] * 4 + i[1]); });
  CHECK(axisReport(*e, em, 0).ring_bandwidth == Approx(3.125e9));

  auto h = graphOf("h100:2x8");
  const auto gm = handMesh(h->devices(), {2, 8}, {"dp", "tp"}, [&](const auto& i) { return int(i[0] * 8 + i[1]); });
  const auto tp = axisReport(*h, gm, 1);
  CHECK(tp.ring_closed);
  CHECK(tp.slowest_link == LinkClass::NvLink);
  CHECK(tp.max_link_load == 1);
  CHECK(tp.ring_bandwidth == Approx(450e9));
  const auto dp = axisReport(*h, gm, 0);
  CHECK(dp.crosses_hosts);
  CHECK(dp.slowest_link == LinkClass::Network);
  CHECK(dp.ring_bandwidth == Approx(50e9)); // one member per host: one NIC each way

  // NCCL runs a ring over hosts as several channels, each entering and leaving a host through a
  // different member's NIC: with k members of the group on every host the ring crosses the
  // network at k x 50 GB/s. dp 4 x tp 4 on two hosts of 8: members t, t+4 on host 0, t+8, t+12
  // on host 1, two per host: 100 GB/s. dp 16 alone: eight per host, 400 GB/s.
  const auto two = handMesh(h->devices(), {4, 4}, {"dp", "tp"}, [&](const auto& i) { return int(i[0] * 4 + i[1]); });
  CHECK(axisReport(*h, two, 0).ring_bandwidth == Approx(100e9));
  CHECK(axisReport(*h, two, 1).ring_bandwidth == Approx(450e9)); // inside a host: NVLink as before
  const auto all = handMesh(h->devices(), {16}, {"dp"}, [&](const auto& i) { return int(i[0]); });
  CHECK(axisReport(*h, all, 0).ring_bandwidth == Approx(400e9));
  // Three members on host 0 and one on host 1: the host with one NIC bounds the ring.
  const int uneven[] = {0, 1, 2, 8, 3, 4, 5, 9, 6, 7, 10, 11, 12, 13, 14, 15};
  const auto lopsided =
      handMesh(h->devices(), {4, 4}, {"tp", "dp"}, [&](const auto& i) { return uneven[i[0] * 4 + i[1]]; });
  CHECK(axisReport(*h, lopsided, 1).ring_bandwidth == Approx(50e9));
}

TEST_CASE("mesh devices must be in the topology", "[comm]") {
  auto g = graphOf("v4:2x2");
  auto devices = g->devices();
  devices[0].id = 77;
  const auto m = handMesh(devices, {4}, {"x"}, [](const auto& i) { return int(i[0]); });
  CHECK_THROWS_WITH(axisReport(*g, m, 0), Catch::Contains("device id 77"));
  CHECK_THROWS_WITH(axisReport(*g, m, 1), Catch::Contains("axis index 1"));
}

TEST_CASE("alpha-beta and TPU-form collective times by hand", "[comm]") {
  RingCostInputs in;
  in.p = 4;
  in.step_latency = 1e-6;
  in.ring_bandwidth = 4.5e10;
  in.bidi_ring_bandwidth = 9e10;
  in.physical_axes = 1;
  in.physical_extent_sum = 4;
  in.ring_closed = true;
  const double n = 1e8;
  const double ag = 3e-6 + 0.75 * n / 4.5e10;
  CHECK(collectiveTime(Collective::AllGather, n, in).alpha_beta == Approx(ag));
  CHECK(collectiveTime(Collective::ReduceScatter, n, in).alpha_beta == Approx(ag));
  CHECK(collectiveTime(Collective::AllReduce, n, in).alpha_beta == Approx(2 * ag));
  // All-to-all through a switch: each rank sends (p-1)/p of its own quarter of the n bytes.
  CHECK(collectiveTime(Collective::AllToAll, n, in).alpha_beta == Approx(3e-6 + 0.75 * n / 4 / 4.5e10));
  CHECK(collectiveTime(Collective::AllGather, n, in).tpu_form == Approx(n / 9e10));
  CHECK(collectiveTime(Collective::AllReduce, n, in).tpu_form == Approx(2 * n / 9e10));
  CHECK(collectiveTime(Collective::AllToAll, n, in).tpu_form == Approx(n / 9e10 / 4));
  // Latency-bound: 1 kB is below T_min * |X| / 2.
  CHECK(collectiveTime(Collective::AllGather, 1e3, in).tpu_form == Approx(2e-6));
  // The one price: the torus form inside a TPU slice, alpha-beta elsewhere.
  CHECK(collectiveTime(Collective::AllGather, n, in).seconds == Approx(ag));
  in.torus = true;
  CHECK(collectiveTime(Collective::AllGather, n, in).seconds == Approx(n / 9e10));
  CHECK(collectiveSeconds(Collective::AllReduce, n, in) == Approx(2 * n / 9e10));
  // An open ring passes (p-1) shards one way (the book's no-wraparound case), latency (p-1) hops.
  in.ring_closed = false;
  const double open = 0.75 * n / 4.5e10;
  CHECK(collectiveTime(Collective::AllGather, n, in).tpu_form == Approx(open));
  CHECK(collectiveTime(Collective::AllToAll, n, in).tpu_form == Approx(open / 2));
  CHECK(collectiveTime(Collective::AllGather, 1e3, in).tpu_form == Approx(3e-6));
  // Whole wrapped physical axes: both directions of every axis at once (V / (W n_axes)).
  in.wraps = true;
  in.physical_axes = 2;
  in.physical_extent_sum = 8;
  CHECK(collectiveTime(Collective::AllGather, n, in).tpu_form == Approx(n / 9e10 / 2));
  CHECK(collectiveTime(Collective::AllGather, 1e3, in).tpu_form == Approx(4e-6));
  in.p = 1;
  CHECK(collectiveTime(Collective::AllReduce, n, in).alpha_beta == 0);
  CHECK_THROWS_WITH(collectiveTime(Collective::AllGather, -1, in), Catch::Contains("bytes"));
}

TEST_CASE("scaling-book v5e example: a whole wrapped 16-axis all-gathers at V/W", "[comm]") {
  auto g = graphOf("v5e:16x16");
  const auto m = handMesh(g->devices(), {16, 16}, {"y", "x"},
                          [&](const auto& i) { return positionOf(g->devices(), int(i[1]), int(i[0])); });
  const auto x = axisReport(*g, m, 1);
  REQUIRE(x.ring_closed);
  CHECK(x.torus);
  CHECK(x.wraps);
  const double V = 34e6;
  CHECK(collectiveTime(Collective::AllGather, V, x).seconds == Approx(V / 9e10));
  CHECK(collectiveTime(Collective::AllGather, V, x).tpu_form == Approx(V / 9e10)); // ~378 us
  CHECK(collectiveTime(Collective::AllGather, V, x).alpha_beta == Approx(15e-6 + 15.0 / 16 * V / 4.5e10));
  // FSDP over x: 2 all-gathers of the parameters and 1 reduce-scatter of the gradients per layer.
  const auto f = fsdpCommCost(x, 1e8, 2e8, 10);
  const double ag = 15e-6 + 15.0 / 16 * 1e8 / 4.5e10, rs = 15e-6 + 15.0 / 16 * 2e8 / 4.5e10;
  CHECK(f.layer_all_gather_seconds == Approx(ag));
  CHECK(f.layer_reduce_scatter_seconds == Approx(rs));
  CHECK(f.bytes_received_per_device_all_gather == Approx(15.0 / 16 * 1e8));
  CHECK(f.step_seconds == Approx(10 * (2 * ag + rs)));
  CHECK(f.step_bytes_per_device == Approx(10 * 15.0 / 16 * (2 * 1e8 + 2e8)));
  CHECK_THROWS_WITH(fsdpCommCost(x, 1e8, 2e8, -1), Catch::Contains("layers"));
  CHECK(f.step_seconds_tpu_form == Approx(10 * (2 * 1e8 / 9e10 + 2e8 / 9e10)));
}

TEST_CASE("mesh axis strings", "[comm]") {
  auto a = parseMeshAxes("fsdp:-1,tp:4", 8960);
  CHECK(a.names == std::vector<std::string>{"fsdp", "tp"});
  CHECK(a.sizes == Shape{2240, 4});
  CHECK(parseMeshAxes("data:2,fsdp:2,tp:2", 8).sizes == Shape{2, 2, 2});
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:-1,tp:3", 8), Catch::Contains("do not divide"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:-1,tp:-1", 8), Catch::Contains("at most one axis"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:2,tp:2", 8), Catch::Contains("multiply to 4"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:2,fsdp:4", 8), Catch::Contains("appears twice"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp", 8), Catch::Contains("NAME:SIZE"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:x", 8), Catch::Contains("size of axis 'fsdp'"));
  CHECK_THROWS_WITH(parseMeshAxes("fsdp:0", 8), Catch::Contains("size of axis 'fsdp'"));
  CHECK_THROWS_WITH(parseMeshAxes(":4", 4), Catch::Contains("empty name"));
  CHECK_THROWS_WITH(parseMeshAxes("a:8,b:8,c:8,d:8", 8), Catch::Contains("more than 8"));
  CHECK_THROWS_WITH(parseMeshAxes("", 8), Catch::Contains("NAME:SIZE"));
}

TEST_CASE("an axis over slices runs its collectives in the slice, then across slices on the shard", "[comm]") {
  // v4 2x2, two slices: one 8-device axis, each slice's chips consecutive (create_hybrid_device_mesh's
  // DCN-outside-ICI order), each slice walked as the closed ring (0,0)(1,0)(1,1)(0,1).
  auto g = graphOf("v4:2x2:slices=2");
  const auto& d = g->devices();
  const std::array<std::array<int, 2>, 4> ring{{{0, 0}, {1, 0}, {1, 1}, {0, 1}}};
  const auto m = handMesh(d, {8}, {"fsdp"}, [&](const auto& i) {
    const auto k = static_cast<std::size_t>(i[0] % 4);
    return positionOf(d, ring[k][0], ring[k][1], 0, 0, static_cast<int>(i[0] / 4));
  });
  const auto r = axisReport(*g, m, 0);
  CHECK(r.crosses_slices);
  REQUIRE(r.levels.size() == 2);
  const AxisReport& slice = r.levels[0];
  const AxisReport& across = r.levels[1];
  CHECK(slice.size == 4);
  CHECK_FALSE(slice.crosses_slices);
  CHECK(slice.ring_closed);
  CHECK(slice.slowest_link == LinkClass::Ici);
  // Across: the two chips at one ring position, over DCN, as the 2-device DCN axis above.
  CHECK(across.size == 2);
  CHECK(across.group_count == 4);
  CHECK(across.slowest_link == LinkClass::Dcn);
  CHECK(across.ring_bandwidth == Approx(6.25e9));
  CHECK(across.step_latency == Approx(20e-6));

  // All-gather of 1 GB: in the slice the closed ring's V / W (W = 2 x 45 GB/s, both directions),
  // across the slices each chip's quarter of it, 250 MB, on the DCN pair: 20 us + 1/2 x 250 MB /
  // 6.25 GB/s = 20.02 ms.
  const double v = 1e9;
  const auto in = ringCostInputs(r);
  CHECK(collectiveSeconds(Collective::AllGather, v, in.levels[0]) == Approx(v / 9e10));
  CHECK(collectiveSeconds(Collective::AllGather, v, in) == Approx(v / 9e10 + 20e-6 + 0.5 * 2.5e8 / 6.25e9));
  CHECK(collectiveSeconds(Collective::ReduceScatter, v, in) == Approx(v / 9e10 + 20e-6 + 0.5 * 2.5e8 / 6.25e9));
  // All-reduce: reduce-scatter and all-gather in the slice around the all-reduce across slices.
  CHECK(collectiveSeconds(Collective::AllReduce, v, in) == Approx(2 * v / 9e10 + 2 * (20e-6 + 0.5 * 2.5e8 / 6.25e9)));
  RingCostInputs flat = in;
  flat.levels.clear();
  // The flat ring, for comparison: 7/8 of its 6 ICI steps of 1 us and 2 DCN steps of 20 us, and
  // 7/8 GB through the 6.25 GB/s uplink, 4.5x.
  CHECK(r.ring_latency == Approx(0.875 * (6 * 1e-6 + 2 * 20e-6)));
  CHECK(collectiveSeconds(Collective::AllGather, v, flat) == Approx(0.875 * 46e-6 + 0.875 * v / 6.25e9));

  // Slices interleaved in the axis (A B A B ...): no two levels to cross one after the other.
  const auto mixed = handMesh(d, {8}, {"fsdp"}, [&](const auto& i) {
    const auto k = static_cast<std::size_t>(i[0] / 2);
    return positionOf(d, ring[k][0], ring[k][1], 0, 0, static_cast<int>(i[0] % 2));
  });
  CHECK(axisReport(*g, mixed, 0).levels.empty());
  // An axis inside one slice has none either.
  CHECK(slice.levels.empty());
}

TEST_CASE("FSDP over H100 nodes: a ring pays the network latency on the steps that cross it only", "[comm]") {
  // One axis over the first N GPUs of 128 nodes of 8, in device order (pure FSDP). Per ring step:
  // NVLink 2 us, a step to the next node 2 x 10 us (NIC up, NIC down); 8 channels over 8 NICs.
  auto g = graphOf("h100:128x8");
  const auto axisOver = [&](std::int64_t n) {
    const auto m = handMesh(g->devices(), {n}, {"fsdp"}, [](const auto& i) { return int(i[0]); });
    return axisReport(*g, m, 0);
  };
  // 512 GPUs, 64 nodes: 448 NVLink steps and 64 network steps around the ring, 511 of 512 used.
  const auto r512 = axisOver(512);
  CHECK(r512.step_latency == Approx(20e-6));
  CHECK(r512.ring_latency == Approx((448 * 2e-6 + 64 * 20e-6) * 511.0 / 512.0)); // 2.17 ms, was 10.2 ms
  // Property: the same bytes per device on the same fabric never take less time on a larger group,
  // and doubling the group at most doubles the time (the (p-1) steps: no jump at a power of two):
  // every N a multiple of 8 up to 1024, 1 MiB (latency bound) and 128 MiB (bandwidth bound) per
  // device, all-gather and all-reduce.
  std::map<std::int64_t, RingCostInputs> rings;
  for (std::int64_t n = 8; n <= 1024; n += 8) rings[n] = ringCostInputs(axisOver(n));
  for (const double shard : {1048576.0, 134217728.0})
    for (const Collective c : {Collective::AllGather, Collective::AllReduce}) {
      const auto t = [&](std::int64_t n) { return collectiveSeconds(c, shard * static_cast<double>(n), rings[n]); };
      for (std::int64_t n = 16; n <= 1024; n += 8) {
        INFO("N " << n << " shard " << shard);
        CHECK(t(n) >= t(n - 8));
        if (2 * n <= 1024) CHECK(t(2 * n) <= 2.1 * t(n));
      }
    }
}
