// SPDX-License-Identifier: Apache-2.0
// Boardfly (TPU 8i, docs/hardware.md): chips on boards, boards in groups, groups joined all-to-all.
// The 1,024-chip system's diameter and hop histogram against the research notes' own BFS of the
// same wiring, the 8x8x16 torus it is compared with, minimal routes, and collectives priced on it
// by hand (an all-to-all whose cross-group traffic all rides one global cable).
#include "shardscope/base/errors.hpp"
#include "shardscope/cost/collectives.hpp"
#include "shardscope/hardware/link_graph.hpp"

#include "core/cost/comm_test_support.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <random>

using namespace shardscope;
using namespace shardscope::testing;

namespace {
std::shared_ptr<const LinkGraph> graphOf(const std::string& topology) {
  return cachedLinkGraph(parseTopology(topology));
}

// One axis over every device, in list order.
Mesh wholeAxis(const DeviceList& devices, const char* name = "ep") {
  return handMesh(devices, {static_cast<std::int64_t>(devices.size())}, {name},
                  [](const std::vector<std::int64_t>& i) { return static_cast<int>(i[0]); });
}
} // namespace

TEST_CASE("Boardfly topology strings: a chip count or boards x groups", "[boardfly][topology]") {
  CHECK(parseTopology("8i:1024").shape == std::array<int, 3>{4, 8, 32});
  CHECK(parseTopology("8i:64").shape == std::array<int, 3>{4, 8, 2});
  CHECK(parseTopology("8i:12").shape == std::array<int, 3>{4, 3, 1});
  CHECK(parseTopology("8i:2").shape == std::array<int, 3>{2, 1, 1});
  CHECK(parseTopology("TPU8i:4x8x32").shape == std::array<int, 3>{4, 8, 32});
  CHECK(formatTopology(parseTopology("8i:4x8x32")) == "8i:1024");
  CHECK_THROWS_WITH(parseTopology("8i:1000"), Catch::Contains("1000 chips is no Boardfly system"));
  CHECK_THROWS_WITH(parseTopology("8i:2048"), Catch::Contains("8i:1024:slices=2"));
  CHECK_THROWS_WITH(parseTopology("8i:2x2x1"), Catch::Contains("boards are whole once there are several"));
  CHECK_THROWS_WITH(parseTopology("8i:4x8x33"), Catch::Contains("at most 4 chips per board, 8 boards per group"));
  CHECK_THROWS_WITH(parseTopology("8i:4x1x8"), Catch::Contains("8 groups need 7 global links per group"));
  TopologySpec bad = parseTopology("8i:64");
  bad.shape = {64, 1, 1};
  CHECK_THROWS_WITH(makeDevices(bad), Catch::Contains("at most 4 chips per board"));

  // Devices: coords (chip on board, board, group), one board per host, both TensorCores.
  const DeviceList d = makeDevices(parseTopology("8i:1024"));
  REQUIRE(d.size() == 2048);
  CHECK(d[0].device_kind == "TPU8i");
  CHECK(d[1].core_on_chip == 1);
  CHECK(d[2].coords == std::array<int, 3>{1, 0, 0});
  CHECK(d[8].coords == std::array<int, 3>{0, 1, 0});
  CHECK(d[8].process_index == 1); // the next board
  CHECK(d[64].coords == std::array<int, 3>{0, 0, 1});
  CHECK(d[2047].process_index == 255); // 256 boards
  CHECK(d[2047].id == 2047);
}

TEST_CASE("Boardfly: the 1,024-chip system has diameter 7, the 8x8x16 torus 16", "[boardfly][links]") {
  auto g = graphOf("8i:1024");
  CHECK(g->fabric() == Fabric::Boardfly);
  CHECK(g->nodeCount() == 1024);
  CHECK(g->dims() == std::array<int, 3>{4, 8, 32});
  CHECK(g->wrap() == std::array<bool, 3>{false, false, false});
  // Links by level: 6 per board x 256 boards, 28 per group x 32 groups, one per pair of groups.
  std::map<int, int> perLevel;
  std::vector<int> degree(1024, 0);
  for (const auto& link : g->links()) {
    ++perLevel[link.dim];
    ++degree[static_cast<std::size_t>(link.a)];
    ++degree[static_cast<std::size_t>(link.b)];
    CHECK(link.link_class == LinkClass::Ici);
    CHECK(link.bandwidth == 2e11);
  }
  CHECK(perLevel == std::map<int, int>{{0, 1536}, {1, 896}, {2, 496}});
  CHECK(g->localLinkCount() == 2928);
  CHECK(*std::max_element(degree.begin(), degree.end()) == 6); // 3 board + 2 group + 1 global ports
  CHECK(g->iciDiameter() == 7);
  CHECK(g->diameter() == 7);

  // The hop histogram of all ordered pairs: the research notes' BFS of the same wiring (boardfly.md).
  std::map<int, std::int64_t> histogram;
  for (int s = 0; s < 1024; ++s)
    for (int t = 0; t < 1024; ++t)
      if (s != t) ++histogram[g->hops(s, t)];
  CHECK(histogram == std::map<int, std::int64_t>{
                         {1, 5856}, {2, 20800}, {3, 65024}, {4, 179840}, {5, 393664}, {6, 338208}, {7, 44160}});
  // Boost.Graph's BFS agrees with the routing tables.
  for (int s : {0, 3, 31, 517, 1023}) {
    const auto bfs = g->bfsHops(s);
    for (int t = 0; t < 1024; ++t) CHECK(bfs[static_cast<std::size_t>(t)] == g->hops(s, t));
  }

  // The torus Google compares with: 4 + 4 + 8 hops.
  auto torus = graphOf("8t:8x8x16");
  CHECK(torus->nodeCount() == 1024);
  CHECK(torus->wrap() == std::array<bool, 3>{true, true, true});
  CHECK(torus->iciDiameter() == 16);
}

TEST_CASE("Boardfly: board and group of every chip, and the wiring of ports", "[boardfly][links]") {
  auto g = graphOf("8i:1024");
  const auto& nodes = g->nodes();
  CHECK(nodes[0].board == 0);
  CHECK(nodes[0].group == 0);
  const int n = 2 + 4 * (5 + 8 * 17); // chip 2 of board 5 of group 17
  CHECK(nodes[static_cast<std::size_t>(n)].board == 5);
  CHECK(nodes[static_cast<std::size_t>(n)].group == 17);
  CHECK(nodes[static_cast<std::size_t>(n)].coords == std::array<int, 3>{2, 5, 17});
  const auto node = [](int c, int b, int grp) { return c + 4 * (b + 8 * grp); };
  // A board is fully connected; board 0's chip 0 holds its links to boards 1 and 2, chip 1 to 3 and 4.
  CHECK(g->hops(node(0, 0, 0), node(3, 0, 0)) == 1);
  CHECK(g->hops(node(0, 0, 0), node(0, 1, 0)) == 1);
  CHECK(g->hops(node(0, 0, 0), node(0, 2, 0)) == 1); // board 2 holds board 0 on chip 0: its peer 0
  CHECK(g->hops(node(0, 0, 0), node(1, 2, 0)) == 2); // another chip of board 2: one hop more
  CHECK(g->hops(node(1, 0, 0), node(0, 3, 0)) == 1); // board 3 is peer 2 of board 0: chip 2 / 2 = 1
  // Group 0's port j (chip j % 4 of board j / 4) goes to group j + 1, landing on its port 30 - j.
  CHECK(g->hops(node(0, 0, 0), node(2, 7, 1)) == 1);  // j = 0 -> group 1, port 30
  CHECK(g->hops(node(2, 7, 0), node(0, 0, 31)) == 1); // j = 30 -> group 31, port 0
  CHECK(g->hops(node(3, 7, 0), node(3, 7, 5)) > 1);   // port 31 is idle
  CHECK(g->devices().size() == 2048);
  CHECK(g->nodeOfDevice(1) == 0); // both TensorCores on one node
  // GPUs and tori have no boards.
  CHECK(graphOf("v4:2x2x1")->nodes()[0].board == -1);
}

TEST_CASE("Boardfly routes are shortest paths of contiguous links", "[boardfly][links]") {
  auto g = graphOf("8i:1024:slices=2");
  CHECK(g->slices() == 2);
  CHECK(g->diameter() == 7);
  std::mt19937 rng(2026);
  std::uniform_int_distribution<int> pick(0, 2047);
  std::vector<std::pair<int, int>> route;
  for (int trial = 0; trial < 400; ++trial) {
    const int a = pick(rng), b = pick(rng);
    route.clear();
    g->route(a, b, route);
    INFO(a << " -> " << b);
    CHECK(static_cast<int>(route.size()) == g->hops(a, b));
    if (g->nodes()[static_cast<std::size_t>(a)].slice != g->nodes()[static_cast<std::size_t>(b)].slice) {
      REQUIRE(route.size() == 2);
      CHECK(g->links()[static_cast<std::size_t>(route[0].first)].link_class == LinkClass::Dcn);
      continue;
    }
    int at = a;
    for (auto [id, dir] : route) {
      const auto& link = g->links()[static_cast<std::size_t>(id)];
      CHECK((dir > 0 ? link.a : link.b) == at);
      at = dir > 0 ? link.b : link.a;
    }
    CHECK(at == b);
  }
  LinkParams params = defaultLinkParams(*findChip("8i"));
  params.wrap = std::array<bool, 3>{true, true, true};
  const auto spec = parseTopology("8i:64");
  CHECK_THROWS_WITH(LinkGraph(makeDevices(spec), spec, params), Catch::Contains("Boardfly"));
}

TEST_CASE("Boardfly all-to-all by hand: two groups share one global cable", "[boardfly][comm]") {
  // 8i:64 with one device per chip: two groups of 32 chips, one global link between them (group
  // 0's port 0, chip 0 of board 0, to group 1's port 0). Every one of the 32 x 32 ordered pairs
  // from group 0 to group 1 crosses it, one chunk each; nothing else carries as much.
  auto g = graphOf("8i:64:cores=1");
  REQUIRE(g->devices().size() == 64);
  CHECK(g->iciDiameter() == 7); // (3,7,g0) -> (0,0,g0) is 3 hops, the cable 1, then 3 again
  const AxisReport r = axisReport(*g, wholeAxis(g->devices()), 0);
  CHECK_FALSE(r.torus);
  REQUIRE(r.a2a_pairwise);
  CHECK(r.a2a_max_link_load == 1024);
  CHECK(r.a2a_bandwidth == Approx(2e11 / 1024));
  CHECK(r.a2a_latency == Approx(7e-6)); // the longest route: 7 hops of 1 us
  // An all-to-all of V = 64 buffers of 64 MiB: each pair's chunk is V / 64^2 = 1 MiB; 1024 of them
  // cross the cable at 200 GB/s: 1024 x 1 MiB / 2e11 = 5.369 ms, plus 7 us.
  const double V = 64.0 * 64 * 1024 * 1024;
  const double byHand = 7e-6 + 1024 * (1024.0 * 1024) / 2e11;
  CHECK(byHand == Approx(5.37571e-3).epsilon(1e-5));
  const CollectiveTime t = collectiveTime(Collective::AllToAll, V, r);
  CHECK(t.seconds == Approx(byHand));
  CHECK(t.alpha_beta == Approx(byHand));
  // Priced as through a switch at the ring's bandwidth it would look several times faster: the
  // cable carries a quarter of all chunks.
  RingCostInputs asSwitch = ringCostInputs(r);
  asSwitch.pairwise = false;
  CHECK(t.seconds > 4 * collectiveTime(Collective::AllToAll, V, asSwitch).seconds);
}

TEST_CASE("Boardfly collectives on one board by hand", "[boardfly][comm]") {
  // One board of 4 chips, fully connected. All-to-all with one device per chip: each ordered pair
  // has its own link direction, one chunk V / 16 each: 1 us + V / 16 / 200 GB/s.
  auto one = graphOf("8i:4:cores=1");
  const AxisReport r1 = axisReport(*one, wholeAxis(one->devices()), 0);
  REQUIRE(r1.a2a_pairwise);
  CHECK(r1.a2a_max_link_load == 1);
  const double V = 1024.0 * 1024 * 1024;
  CHECK(collectiveTime(Collective::AllToAll, V, r1).seconds == Approx(1e-6 + V / 16 / 2e11));
  // An all-gather is the alpha-beta ring (not the torus form): 0 -> 1 -> 2 -> 3 -> 0, one hop each.
  CHECK(r1.ring_closed);
  CHECK(r1.ring_bandwidth == Approx(2e11));
  CHECK(collectiveTime(Collective::AllGather, V, r1).seconds == Approx(3 * 1e-6 + 0.75 * V / 2e11));

  // With both TensorCores (8 devices): a pair of chips carries 2 x 2 chunks of V / 64 each way,
  // the same V / 16 per link; the core pairs of one chip cross no link.
  auto two = graphOf("8i:4");
  const AxisReport r2 = axisReport(*two, wholeAxis(two->devices()), 0);
  CHECK(r2.a2a_max_link_load == 4);
  CHECK(collectiveTime(Collective::AllToAll, V, r2).seconds == Approx(1e-6 + 4 * V / 64 / 2e11));
  // Two devices on one chip: nothing crosses a link.
  auto chip = graphOf("8i:1");
  const AxisReport r3 = axisReport(*chip, wholeAxis(chip->devices()), 0);
  CHECK(r3.a2a_pairwise);
  CHECK(collectiveTime(Collective::AllToAll, V, r3).seconds == 0);
}

TEST_CASE("MI300X: a full mesh whose rings drive every direct link", "[links][comm]") {
  auto g = graphOf("mi300x:2x8");
  CHECK(g->fabric() == Fabric::FullMesh);
  CHECK(g->localLinkCount() == 2 * 28);
  CHECK(g->links()[0].bandwidth == 64e9);
  // A ring over one platform's 8 GPUs: each member drives its 7 direct links, 7 x 64 GB/s.
  const AxisReport r =
      axisReport(*g,
                 handMesh(g->devices(), {2, 8}, {"dp", "tp"},
                          [](const std::vector<std::int64_t>& i) { return static_cast<int>(i[0] * 8 + i[1]); }),
                 1);
  CHECK(r.mesh_fanout == 7);
  CHECK(r.ring_bandwidth == Approx(7 * 64e9));
  // All-gather of V: every GPU receives V/8 from each of its 7 peers over its own link: V / (8 x 64 GB/s).
  const double V = 1e9;
  CHECK(collectiveTime(Collective::AllGather, V, r).seconds == Approx(7 * 2e-6 + V / 8 / 64e9));
  // The data-parallel axis (one GPU per platform) crosses the network at one NIC's 50 GB/s.
  const AxisReport dp =
      axisReport(*g,
                 handMesh(g->devices(), {2, 8}, {"dp", "tp"},
                          [](const std::vector<std::int64_t>& i) { return static_cast<int>(i[0] * 8 + i[1]); }),
                 0);
  CHECK(dp.mesh_fanout == 1);
  CHECK(dp.ring_bandwidth == Approx(50e9));
}
