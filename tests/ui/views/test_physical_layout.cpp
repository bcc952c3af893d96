// SPDX-License-Identifier: Apache-2.0
#include "ui_test_app.hpp"

#include "views/physical_layout.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::ui;

TEST_CASE("a v4 4x4x8 slice is eight 4x4 panels with one cell per chip", "[ui][layout]") {
  test::app();
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x8"));
  const PhysicalLayout layout = PhysicalLayout::build(devices, 1.6);
  REQUIRE(layout.kind() == PhysicalLayout::Kind::Torus);
  CHECK(layout.panels().size() == 8);
  CHECK(layout.dims() == std::array<int, 3>{4, 4, 8});
  CHECK(layout.wraps() == std::array<bool, 3>{true, true, true}); // a full 4x4x4 cube and more
  CHECK(layout.hostOutlines().size() == 32);                      // 2x2x1 chips per host
  for (int pos = 0; pos < 128; ++pos) {
    const QRectF r = layout.deviceRect(pos);
    REQUIRE_FALSE(r.isNull());
    CHECK(layout.hitTest(r.center()) == pos);
    const auto& c = *devices[static_cast<std::size_t>(pos)].coords;
    CHECK(layout.panels()[static_cast<std::size_t>(layout.devicePanel(pos))].title == QString("z = %1").arg(c[2]));
  }
  CHECK(layout.hitTest(QPointF(-5, -5)) == -1);
}

TEST_CASE("ring hop labels come from core's link graph, wraparound included", "[ui][layout]") {
  test::app();
  // The view labels ring links with the Analysis' link graph; check the figures it will show.
  const Analysis analysis = analyze(defaultScenario());
  REQUIRE(analysis.links);
  const DeviceList& devices = analysis.mesh.devices;
  const LinkGraph& graph = *analysis.links;
  auto at = [&](int x, int y, int z) {
    for (const Device& d : devices)
      if (*d.coords == std::array<int, 3>{x, y, z}) return graph.nodeOfDevice(d.id);
    return -1;
  };
  CHECK(graph.hops(at(0, 0, 0), at(0, 0, 0)) == 0);
  CHECK(graph.hops(at(0, 0, 0), at(1, 0, 0)) == 1);
  CHECK(graph.hops(at(0, 0, 0), at(3, 0, 0)) == 1); // x wraps
  CHECK(graph.hops(at(0, 0, 0), at(2, 2, 4)) == 2 + 2 + 4);
  CHECK(graph.hops(at(0, 0, 0), at(0, 0, 7)) == 1); // z wraps

  // A 2x2x1 part has no wraparound, and the layout knows it too.
  const DeviceList small = makeDevices(parseTopology("v4:2x2x1"));
  const PhysicalLayout smallLayout = PhysicalLayout::build(small, 1.6);
  CHECK(smallLayout.wraps() == std::array<bool, 3>{false, false, false});
}

TEST_CASE("v3 chips show two cores side by side and multi-slice pods one block per slice", "[ui][layout]") {
  test::app();
  const DeviceList v3 = makeDevices(parseTopology("v3:4x4"));
  const PhysicalLayout layout = PhysicalLayout::build(v3, 1.6);
  CHECK(layout.cores() == 2);
  CHECK(layout.panels().size() == 1);
  for (std::size_t i = 0; i < v3.size(); ++i) {
    const QRectF r = layout.deviceRect(static_cast<int>(i));
    CHECK(r.width() < r.height()); // half a chip wide
    CHECK(layout.hitTest(r.center()) == static_cast<int>(i));
  }
  TopologySpec spec = parseTopology("v5e:4x4");
  spec.slices = 2;
  const DeviceList pod = makeDevices(spec);
  const PhysicalLayout podLayout = PhysicalLayout::build(pod, 1.6);
  REQUIRE(podLayout.slices().size() == 2);
  CHECK_FALSE(podLayout.slices()[0].rect.intersects(podLayout.slices()[1].rect));
}

TEST_CASE("GPU clusters are drawn as hosts of GPUs", "[ui][layout]") {
  test::app();
  const DeviceList gpus = makeDevices(parseTopology("h100:4x8"));
  const PhysicalLayout layout = PhysicalLayout::build(gpus, 1.6);
  REQUIRE(layout.kind() == PhysicalLayout::Kind::GpuHosts);
  CHECK(layout.panels().size() == 4);
  CHECK(layout.panels()[0].cols * layout.panels()[0].rows == 8);
  CHECK(layout.panels()[0].title.startsWith("host "));
}

TEST_CASE("a v5p full pod lays out all 8960 chips without overlap of panels", "[ui][layout]") {
  test::app();
  const DeviceList devices = makeDevices(parseTopology("v5p:16x20x28"));
  const PhysicalLayout layout = PhysicalLayout::build(devices, 1.6);
  CHECK(layout.panels().size() == 28);
  for (std::size_t a = 0; a < layout.panels().size(); ++a)
    for (std::size_t b = a + 1; b < layout.panels().size(); ++b)
      CHECK_FALSE(layout.panels()[a].rect.intersects(layout.panels()[b].rect));
  CHECK(layout.hitTest(layout.deviceRect(8959).center()) == 8959);
}

TEST_CASE("the physical view draws the wraparound links the analysis' link graph has", "[ui][layout]") {
  test::app();
  // A v4 4x4x8 slice wraps every axis by the generation's rule; a link graph built with other
  // wraparound (link parameters' wrap, as eval's link_params sets it) is what the view must draw.
  const TopologySpec spec = parseTopology("v4:4x4x8");
  LinkParams params = defaultLinkParams(*findChip("v4"));
  params.wrap = std::array<bool, 3>{false, true, false};
  const DeviceList devices = makeDevices(spec);
  const LinkGraph graph(devices, spec, params);
  REQUIRE(graph.wrap() == std::array<bool, 3>{false, true, false});
  const PhysicalLayout layout = PhysicalLayout::build(devices, 1.6, &graph.wrap());
  CHECK(layout.wraps() == std::array<bool, 3>{false, true, false});
  CHECK(PhysicalLayout::build(devices, 1.6).wraps() == std::array<bool, 3>{true, true, true});
}

TEST_CASE("a Boardfly system is drawn a panel per group and a row per board", "[ui][layout][boardfly]") {
  test::app();
  // TPU 8i, 64 chips: 4 chips per board x 8 boards x 2 groups (docs/hardware.md, "Boardfly").
  const DeviceList devices = makeDevices(parseTopology("8i:64"));
  const PhysicalLayout layout = PhysicalLayout::build(devices, 1.6);
  REQUIRE(layout.kind() == PhysicalLayout::Kind::Torus);
  CHECK(layout.boardfly());
  REQUIRE(layout.panels().size() == 2);
  CHECK(layout.panels()[0].title == "group 0");
  CHECK(layout.panels()[1].title == "group 1");
  CHECK(layout.panels()[0].cols == 4); // chips on a board
  CHECK(layout.panels()[0].rows == 8); // boards in a group
  CHECK_FALSE(PhysicalLayout::build(makeDevices(parseTopology("v4:4x4x8")), 1.6).boardfly());
}
