// SPDX-License-Identifier: Apache-2.0
// The physical link graph: wrap rules, diameters, BFS against the closed torus distance, routes.
#include "shardscope/hardware/link_graph.hpp"

#include <catch2/catch.hpp>

#include <cstdlib>
#include <deque>
#include <random>

using namespace shardscope;

namespace {
std::shared_ptr<const LinkGraph> graphOf(const std::string& topology, std::optional<std::array<bool, 3>> wrap = {},
                                         bool twisted = false) {
  const auto spec = parseTopology(topology);
  auto params = defaultLinkParams(*findChip(spec.chip));
  params.wrap = wrap;
  params.twisted = twisted;
  return cachedLinkGraph(spec, params);
}

// Σ min(|Δ|, k−|Δ|) on wrapped axes, |Δ| on open ones (hardware-memory-comm spec §3.3), from device coordinates.
int closedForm(const Device& a, const Device& b, std::array<int, 3> dims, std::array<bool, 3> wrap) {
  int h = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const int delta = std::abs((*a.coords)[d] - (*b.coords)[d]);
    h += wrap[d] ? std::min(delta, dims[d] - delta) : delta;
  }
  return h;
}
} // namespace

TEST_CASE("wrap rules per generation", "[links]") {
  using W = std::array<bool, 3>;
  CHECK(defaultWrap(*findChip("v4"), {4, 4, 8}) == W{true, true, true});
  CHECK(defaultWrap(*findChip("v4"), {4, 4, 4}) == W{true, true, true});
  CHECK(defaultWrap(*findChip("v4"), {2, 4, 4}) == W{false, false, false});
  CHECK(defaultWrap(*findChip("v5p"), {16, 20, 28}) == W{true, true, true});
  CHECK(defaultWrap(*findChip("v5e"), {8, 16, 1}) == W{false, true, false}); // MaxText v5e-128
  CHECK(defaultWrap(*findChip("v5e"), {16, 16, 1}) == W{true, true, false});
  CHECK(defaultWrap(*findChip("v6e"), {4, 4, 1}) == W{false, false, false});
  CHECK(defaultWrap(*findChip("v3"), {4, 4, 1}) == W{false, false, false});
  CHECK(twistableShape({4, 4, 8}));
  CHECK(twistableShape({8, 16, 8}));
  CHECK_FALSE(twistableShape({4, 8, 8}));
}

TEST_CASE("4x4x8 diameter: 8 hops as a torus, 13 as a mesh", "[links]") {
  auto torus = graphOf("v4:4x4x8");
  CHECK(torus->wrap() == std::array<bool, 3>{true, true, true});
  CHECK(torus->nodeCount() == 128);
  CHECK(torus->localLinkCount() == 128 * 3);
  CHECK(torus->iciDiameter() == 8);
  CHECK(torus->diameter() == 8);
  auto mesh = graphOf("v4:4x4x8", std::array<bool, 3>{false, false, false});
  CHECK(mesh->localLinkCount() == 3 * 4 * 8 + 4 * 3 * 8 + 4 * 4 * 7);
  CHECK(mesh->iciDiameter() == 13);
  // The closed-form diameter agrees with the largest BFS eccentricity.
  int bfsTorus = 0, bfsMesh = 0;
  for (int s = 0; s < 128; ++s) {
    for (int d : torus->bfsHops(s)) bfsTorus = std::max(bfsTorus, d);
    for (int d : mesh->bfsHops(s)) bfsMesh = std::max(bfsMesh, d);
  }
  CHECK(bfsTorus == 8);
  CHECK(bfsMesh == 13);
}

TEST_CASE("BFS hops equal the closed torus distance on random pairs", "[links]") {
  std::mt19937 rng(12345);
  for (const char* topo : {"v4:4x4x8", "v4:2x4x4", "v5e:8x16", "v5e:16x16", "v5p:4x8x12", "v6e:4x4", "v3:4x4"}) {
    INFO(topo);
    auto g = graphOf(topo);
    const auto& devs = g->devices();
    const auto dims = g->dims();
    const auto wrap = g->wrap();
    std::uniform_int_distribution<std::size_t> pick(0, devs.size() - 1);
    for (int trial = 0; trial < 40; ++trial) {
      const auto& a = devs[pick(rng)];
      const auto& b = devs[pick(rng)];
      const int na = g->nodeOfDevice(a.id), nb = g->nodeOfDevice(b.id);
      const int expected = closedForm(a, b, dims, wrap);
      CHECK(g->bfsHops(na)[static_cast<std::size_t>(nb)] == expected);
      CHECK(g->hops(na, nb) == expected);
      // The route has that many links and walks from a to b.
      std::vector<std::pair<int, int>> route;
      g->route(na, nb, route);
      REQUIRE(route.size() == static_cast<std::size_t>(expected));
      int at = na;
      for (auto [id, dir] : route) {
        const auto& link = g->links()[static_cast<std::size_t>(id)];
        REQUIRE((dir > 0 ? link.a : link.b) == at);
        at = dir > 0 ? link.b : link.a;
      }
      CHECK(at == nb);
    }
  }
}

TEST_CASE("cores of one chip share a node", "[links]") {
  auto g = graphOf("v3:2x2"); // 2 cores per chip
  REQUIRE(g->devices().size() == 8);
  CHECK(g->nodeCount() == 4);
  const auto& d = g->devices();
  CHECK(g->nodeOfDevice(d[0].id) == g->nodeOfDevice(d[1].id));
  CHECK(g->hops(g->nodeOfDevice(d[0].id), g->nodeOfDevice(d[1].id)) == 0);
  CHECK(g->nodeOfDevice(999) == -1);
  // Hosts come from process_index.
  auto v4 = graphOf("v4:4x4x4");
  CHECK(v4->nodes()[0].host == 0); // chip (0,0,0)
  CHECK(v4->nodes()[2].host == 1); // chip (2,0,0): next 2x2x1 host along x
}

TEST_CASE("twisted 4x4x8 torus: twisted wrap links and a shorter diameter", "[links]") {
  auto g = graphOf("v4:4x4x8", {}, true);
  CHECK(g->twisted());
  // Wrap link of x from (3,1,2) lands on (0,1,6): offset +4 along z.
  const int X = 4, Y = 4;
  auto node = [&](int x, int y, int z) { return x + X * (y + Y * z); };
  bool found = false;
  for (const auto& l : g->links())
    if (l.a == node(3, 1, 2) && l.wrap &&
        g->nodes()[static_cast<std::size_t>(l.b)].coords == std::array<int, 3>{0, 1, 6})
      found = true;
  CHECK(found);
  // Every chip still has 6 links.
  std::vector<int> degree(g->nodeCount(), 0);
  for (const auto& l : g->links()) {
    ++degree[static_cast<std::size_t>(l.a)];
    ++degree[static_cast<std::size_t>(l.b)];
  }
  for (int d : degree) CHECK(d == 6);
  // Independent BFS over the neighbour rule written out here.
  auto neighbours = [&](std::array<int, 3> c) {
    std::vector<std::array<int, 3>> out;
    for (int a = 0; a < 3; ++a)
      for (int s : {-1, +1}) {
        auto n = c;
        const int k = a == 2 ? 8 : 4;
        n[static_cast<std::size_t>(a)] += s;
        if (n[static_cast<std::size_t>(a)] < 0 || n[static_cast<std::size_t>(a)] >= k) {
          n[static_cast<std::size_t>(a)] = (n[static_cast<std::size_t>(a)] + k) % k;
          if (a != 2) n[2] = (n[2] + 4) % 8; // +4 and -4 coincide modulo 8
        }
        out.push_back(n);
      }
    return out;
  };
  int diameter = 0;
  for (int s = 0; s < 128; ++s) {
    std::vector<int> dist(128, -1);
    std::deque<int> queue{s};
    dist[static_cast<std::size_t>(s)] = 0;
    while (!queue.empty()) {
      const int u = queue.front();
      queue.pop_front();
      for (auto n : neighbours({u % 4, u / 4 % 4, u / 16})) {
        const int v = node(n[0], n[1], n[2]);
        if (dist[static_cast<std::size_t>(v)] < 0) {
          dist[static_cast<std::size_t>(v)] = dist[static_cast<std::size_t>(u)] + 1;
          queue.push_back(v);
        }
      }
    }
    const auto got = g->bfsHops(s);
    for (int t = 0; t < 128; ++t) REQUIRE(got[static_cast<std::size_t>(t)] == dist[static_cast<std::size_t>(t)]);
    for (int d : dist) diameter = std::max(diameter, d);
  }
  CHECK(g->iciDiameter() == diameter);
  CHECK(diameter < 8);
  // hops() and route() translate one BFS tree; they must agree with a BFS from every chip.
  std::vector<std::pair<int, int>> route;
  for (int a = 0; a < 128; ++a) {
    const auto dist = g->bfsHops(a);
    for (int b = 0; b < 128; ++b) {
      REQUIRE(g->hops(a, b) == dist[static_cast<std::size_t>(b)]);
      route.clear();
      g->route(a, b, route);
      REQUIRE(route.size() == static_cast<std::size_t>(dist[static_cast<std::size_t>(b)]));
      int at = a;
      for (auto [id, dir] : route) {
        const auto& link = g->links()[static_cast<std::size_t>(id)];
        REQUIRE((dir > 0 ? link.a : link.b) == at);
        at = dir > 0 ? link.b : link.a;
      }
      REQUIRE(at == b);
    }
  }
  CHECK_THROWS_WITH(graphOf("v4:4x8x8", {}, true), Catch::Contains("k x k x 2k"));
}

TEST_CASE("twisted tori with the long axis first, and across slices", "[links]") {
  auto g = graphOf("v5p:16x8x8:slices=2", {}, true);
  REQUIRE(g->twisted());
  std::mt19937 rng(7);
  std::uniform_int_distribution<int> pick(0, static_cast<int>(g->nodeCount()) - 1);
  std::vector<std::pair<int, int>> route;
  for (int trial = 0; trial < 30; ++trial) {
    const int a = pick(rng), b = pick(rng);
    const auto dist = g->bfsHops(a);
    const int expected = dist[static_cast<std::size_t>(b)] < 0 ? 2 : dist[static_cast<std::size_t>(b)];
    CHECK(g->hops(a, b) == expected);
    route.clear();
    g->route(a, b, route);
    CHECK(route.size() == static_cast<std::size_t>(expected));
  }
  // The twist shortens the pod: 8x8x16 untwisted has diameter 4 + 4 + 8 = 16.
  CHECK(g->iciDiameter() < 16);

  // 2x2x4 (forced wrap): a twisted wrap on a length-2 axis is a real link, not a duplicate.
  auto tiny = graphOf("v4:2x2x4", std::array<bool, 3>{true, true, true}, true);
  std::vector<int> degree(tiny->nodeCount(), 0);
  for (const auto& l : tiny->links()) {
    ++degree[static_cast<std::size_t>(l.a)];
    ++degree[static_cast<std::size_t>(l.b)];
  }
  for (int d : degree) CHECK(d == 6);
  for (int a = 0; a < 16; ++a) {
    const auto dist = tiny->bfsHops(a);
    for (int b = 0; b < 16; ++b) {
      REQUIRE(tiny->hops(a, b) == dist[static_cast<std::size_t>(b)]);
      route.clear();
      tiny->route(a, b, route);
      REQUIRE(route.size() == static_cast<std::size_t>(dist[static_cast<std::size_t>(b)]));
    }
  }
}

TEST_CASE("slices joined by DCN, GPUs by NVLink domains and a network", "[links]") {
  auto g = graphOf("v4:4x4x4:slices=2");
  CHECK(g->nodeCount() == 128);
  CHECK(g->slices() == 2);
  CHECK(g->links().size() == g->localLinkCount() + 128); // one DCN uplink per chip
  CHECK(g->diameter() == 6);
  const int a = 0, b = 64 + 21;
  CHECK(g->hops(a, b) == 2);
  std::vector<std::pair<int, int>> route;
  g->route(a, b, route);
  REQUIRE(route.size() == 2);
  CHECK(g->links()[static_cast<std::size_t>(route[0].first)].link_class == LinkClass::Dcn);
  CHECK(g->bfsHops(a)[static_cast<std::size_t>(b)] == -1);

  auto h = graphOf("h100:4x8");
  CHECK(h->nodeCount() == 32);
  CHECK(h->localLinkCount() == 4 * 28);
  CHECK(h->links().size() == 4 * 28 + 32);
  CHECK(h->hops(0, 7) == 1);
  CHECK(h->hops(0, 8) == 2);
  CHECK(h->diameter() == 2);
  route.clear();
  h->route(13, 10, route);
  REQUIRE(route.size() == 1);
  const auto& l = h->links()[static_cast<std::size_t>(route[0].first)];
  CHECK(l.link_class == LinkClass::NvLink);
  CHECK(((l.a == 10 && l.b == 13 && route[0].second == -1)));

  auto nvl = cachedLinkGraph(parseTopology("gb200:18x4"));
  CHECK(nvl->slices() == 1); // one 72-GPU NVLink domain
  CHECK(nvl->localLinkCount() == 72 * 71 / 2);
  CHECK(nvl->diameter() == 1);
}

TEST_CASE("graphs are cached per topology and parameters", "[links]") {
  const auto spec = parseTopology("v5e:16x16");
  auto a = cachedLinkGraph(spec);
  auto b = cachedLinkGraph(spec);
  CHECK(a.get() == b.get());
  auto params = defaultLinkParams(*findChip("v5e"));
  params.ici_bandwidth *= 2;
  auto c = cachedLinkGraph(spec, params);
  CHECK(c.get() != a.get());
  CHECK(c->links()[0].bandwidth == Approx(2 * a->links()[0].bandwidth));
  params.ici_bandwidth = 0;
  CHECK_THROWS_WITH(cachedLinkGraph(spec, params), Catch::Contains("bandwidths must be positive"));
}

TEST_CASE("GPU switch domains are bounded and CPUs share one domain", "[links]") {
  auto spec = parseTopology("gb200:18x4");
  auto params = defaultLinkParams(*findChip("gb200"));
  params.nvlink_domain = 577;
  CHECK_THROWS_WITH(cachedLinkGraph(spec, params), Catch::Contains("nvlink_domain must be at most 576"));
  params.nvlink_domain = 576;
  auto big = parseTopology("gb200:8192x64"); // 524288 GPUs in domains of 576: 150M links
  CHECK_THROWS_WITH(LinkGraph(makeDevices(big), big, params), Catch::Contains("lower link_params.nvlink_domain"));
  params.nvlink_domain = 4;
  auto small = cachedLinkGraph(spec, params);
  CHECK(small->slices() == 18);
  CHECK(small->localLinkCount() == 18 * 6);
  auto cpu = cachedLinkGraph(parseTopology("cpu:8"));
  CHECK(cpu->slices() == 1);
  CHECK(cpu->diameter() == 1);
}
