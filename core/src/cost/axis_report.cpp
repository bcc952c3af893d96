// SPDX-License-Identifier: Apache-2.0
// Per-axis ring analysis: walk every group of the axis, measure its neighbour hops, route every
// neighbour pair and count link usage per direction. Linear in devices x route length, so the
// 8960-chip v5p pod stays within a few milliseconds.
#include "shardscope/cost/axis_report.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/mesh/axis_groups.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace shardscope {

namespace {

// Devices per slice in the groups of axis `axis` when every group lists each slice's devices
// consecutively and the same number of them (create_hybrid_device_mesh puts the DCN part of an
// axis outside its ICI part), with at least two slices and two devices per slice; 0 otherwise.
std::int64_t inSliceRun(const Mesh& mesh, std::size_t axis) {
  const AxisGroups along(mesh.shape(), axis);
  const std::int64_t p = along.size();
  const auto& cells = mesh.grid.data();
  auto sliceAt = [&](std::int64_t g, std::int64_t j) {
    const auto cell = static_cast<std::size_t>(along.cell(g, j));
    return mesh.devices[static_cast<std::size_t>(cells[cell])].slice_index.value_or(0);
  };
  std::int64_t run = 1;
  while (run < p && sliceAt(0, run) == sliceAt(0, 0)) ++run;
  if (run < 2 || run >= p || p % run != 0) return 0;
  for (std::int64_t g = 0; g < along.count(); ++g)
    for (std::int64_t j = 0; j < p; ++j) {
      const int block = sliceAt(g, j - j % run);
      if (sliceAt(g, j) != block) return 0;
      if (j % run == 0 && j > 0 && block == sliceAt(g, j - run)) return 0;
    }
  return run;
}

// An axis over slices: its in-slice and across-slice levels, each the report of one half of the
// axis split in two (DCN outside, ICI inside), for the hierarchical price (collectives.hpp); empty
// when the groups do not hold each slice's devices in a row.
std::vector<AxisReport> sliceLevels(const LinkGraph& graph, const Mesh& mesh, const AxisReport& r) {
  const auto a = static_cast<std::size_t>(r.axis_index);
  const std::int64_t run = inSliceRun(mesh, a);
  if (run == 0) return {};
  Mesh split = mesh;
  Shape splitShape = mesh.shape();
  splitShape[a] = r.size / run;
  splitShape.insert(splitShape.begin() + static_cast<std::ptrdiff_t>(a) + 1, run);
  split.grid = mesh.grid.reshape(std::move(splitShape));
  if (split.axis_names.size() > a) {
    split.axis_names[a] = r.axis + " across slices";
    split.axis_names.insert(split.axis_names.begin() + static_cast<std::ptrdiff_t>(a) + 1, r.axis + " in slice");
  }
  return {axisReport(graph, split, r.axis_index + 1, false), axisReport(graph, split, r.axis_index, false)};
}

// The ring's link figures from the loads its routes put on each link: the load maxima, the
// bandwidths B and W, the slowest link. `nicsPerCrossing` is the fewest members a GPU group has on
// any host it spans (int max when no group leaves its host); on a full mesh the scale-up links
// count r.mesh_fanout times (a member drives that many direct links at once).
void linkFigures(const LinkGraph& graph, const std::vector<int>& loadPlus, const std::vector<int>& loadMinus,
                 int nicsPerCrossing, AxisReport& r) {
  const auto& links = graph.links();
  const bool tpu = graph.platform() == Platform::Tpu;
  double ringBw = std::numeric_limits<double>::infinity(), bidiBw = ringBw, slowest = ringBw;
  for (std::size_t id = 0; id < links.size(); ++id) {
    const int plus = loadPlus[id], minus = loadMinus[id];
    if (plus == 0 && minus == 0) continue;
    r.uses_links = true;
    const auto& link = links[id];
    r.max_link_load = std::max(r.max_link_load, plus + minus);
    r.max_directed_link_load = std::max({r.max_directed_link_load, plus, minus});
    const bool nic =
        !tpu && link.link_class == LinkClass::Network && nicsPerCrossing != std::numeric_limits<int>::max();
    const double fanout = link.link_class == LinkClass::NvLink ? r.mesh_fanout : 1;
    const double bandwidth = nic ? link.bandwidth * nicsPerCrossing : link.bandwidth * fanout;
    ringBw = std::min(ringBw, bandwidth / std::max(plus, minus));
    bidiBw = std::min(bidiBw, 2.0 * link.bandwidth * fanout / (plus + minus));
    if (link.bandwidth < slowest) {
      slowest = link.bandwidth;
      r.slowest_link = link.link_class;
      r.link_bandwidth = link.bandwidth;
    }
  }
  if (r.uses_links) {
    r.ring_bandwidth = ringBw;
    r.bidi_ring_bandwidth = bidiBw;
  } else if (!tpu) {
    r.slowest_link = LinkClass::NvLink;
  }
}

// Boardfly: every ordered pair of chips of every group routed at once, a pair of chips carrying
// (members on the one) x (members on the other) chunks; the busiest link in one direction sets the
// all-to-all's bandwidth (AxisReport::a2a_*). Skipped beyond kMaxPairwiseRoutes chip pairs.
void pairwiseFigures(const LinkGraph& graph, const std::vector<int>& nodeOfCell, const AxisGroups& along,
                     AxisReport& r) {
  // Each group's chips with their member counts, gathered once.
  std::vector<std::vector<std::pair<int, int>>> groups;
  groups.reserve(static_cast<std::size_t>(along.count()));
  std::int64_t pairs = 0;
  std::vector<int> nodes;
  for (std::int64_t g = 0; g < along.count(); ++g) {
    nodes.clear();
    for (std::int64_t j = 0; j < along.size(); ++j)
      nodes.push_back(nodeOfCell[static_cast<std::size_t>(along.cell(g, j))]);
    std::sort(nodes.begin(), nodes.end());
    std::vector<std::pair<int, int>> counted;
    for (int node : nodes) {
      if (!counted.empty() && counted.back().first == node)
        ++counted.back().second;
      else
        counted.emplace_back(node, 1);
    }
    const auto k = static_cast<std::int64_t>(counted.size());
    pairs += k * (k - 1);
    if (pairs > kMaxPairwiseRoutes) return;
    groups.push_back(std::move(counted));
  }
  const auto& links = graph.links();
  std::vector<double> plus(links.size(), 0.0), minus(links.size(), 0.0);
  std::vector<std::pair<int, int>> route;
  double latency = 0;
  for (const auto& group : groups)
    for (const auto& [a, ma] : group)
      for (const auto& [b, mb] : group) {
        if (a == b) continue;
        route.clear();
        graph.route(a, b, route);
        const double chunks = static_cast<double>(ma) * mb;
        double routeLatency = 0;
        for (auto [id, dir] : route) {
          (dir > 0 ? plus : minus)[static_cast<std::size_t>(id)] += chunks;
          routeLatency += links[static_cast<std::size_t>(id)].latency;
        }
        latency = std::max(latency, routeLatency);
      }
  double bandwidth = std::numeric_limits<double>::infinity();
  for (std::size_t id = 0; id < links.size(); ++id) {
    const double load = std::max(plus[id], minus[id]);
    if (load <= 0) continue;
    r.a2a_max_link_load = std::max(r.a2a_max_link_load, load);
    bandwidth = std::min(bandwidth, links[id].bandwidth / load);
  }
  r.a2a_pairwise = true;
  r.a2a_bandwidth = std::isfinite(bandwidth) ? bandwidth : 0.0; // 0: every pair shares a chip
  r.a2a_latency = latency;
}

} // namespace

AxisReport axisReport(const LinkGraph& graph, const Mesh& mesh, int axisIndex, bool keepGroups) {
  const Shape& shape = mesh.shape();
  if (axisIndex < 0 || static_cast<std::size_t>(axisIndex) >= shape.size())
    throwValueError("axis_report: axis index " + std::to_string(axisIndex) + " outside the mesh's " +
                    std::to_string(shape.size()) + " axes");
  AxisReport r;
  r.axis_index = axisIndex;
  r.axis = static_cast<std::size_t>(axisIndex) < mesh.axis_names.size()
               ? mesh.axis_names[static_cast<std::size_t>(axisIndex)]
               : std::string{};
  const AxisGroups along(shape, static_cast<std::size_t>(axisIndex));
  const std::int64_t p = along.size();
  r.size = p;
  r.group_count = along.count();

  // Chip node and device of every grid cell, looked up once.
  const auto& cells = mesh.grid.data();
  std::vector<int> nodeOfCell(cells.size());
  for (std::size_t i = 0; i < cells.size(); ++i) {
    const int pos = cells[i];
    if (pos < 0 || static_cast<std::size_t>(pos) >= mesh.devices.size())
      throwValueError("axis_report: mesh grid entry " + std::to_string(pos) + " is not a position in its device list");
    const auto& dev = mesh.devices[static_cast<std::size_t>(pos)];
    nodeOfCell[i] = graph.nodeOfDevice(dev.id);
    if (nodeOfCell[i] < 0)
      throwValueError("axis_report: mesh device id " + std::to_string(dev.id) + " is not in the topology");
  }

  const auto& links = graph.links();
  const auto& nodes = graph.nodes();
  std::vector<int> loadPlus(links.size(), 0), loadMinus(links.size(), 0);
  std::vector<std::pair<int, int>> route;
  std::vector<char> seenCoord;
  const auto& dims = graph.dims();
  const bool tpu = graph.platform() == Platform::Tpu;
  // The torus forms apply to tori only; a Boardfly pod is priced on its routes (alpha-beta rings,
  // pairwise all-to-all) as GPU domains are.
  const bool torusGraph = tpu && graph.fabric() == Fabric::Torus;
  const bool fullMesh = graph.fabric() == Fabric::FullMesh;
  int fanout = std::numeric_limits<int>::max();
  double hopSum = 0;
  std::int64_t pairCount = 0;
  bool allClose = true;
  bool allInSlice = true, allWrap = p >= 2;
  std::array<bool, 3> dimWraps{true, true, true};
  r.step_latency = 0;
  // GPUs: a group's members in each NVLink domain, and the fewest of them in any domain the group
  // spans. NCCL runs a ring over nodes as several channels, each entering and leaving a node
  // through a different member's NIC, so the data crossing the network spreads over that many NICs.
  std::map<int, int> membersPerDomain;
  int nicsPerCrossing = std::numeric_limits<int>::max();

  for (std::int64_t gi = 0; gi < along.count(); ++gi) {
    RingGroup g;
    g.ring_closed = true;
    const std::int64_t firstCell = along.first(gi), stride = along.stride();
    auto cellAt = [&](std::int64_t j) { return static_cast<std::size_t>(firstCell + j * stride); };
    const auto& first = mesh.devices[static_cast<std::size_t>(cells[cellAt(0)])];
    int groupHopSum = 0;
    double groupLatency = 0;
    bool leavesSlice = false;
    if (!tpu) membersPerDomain.clear();
    for (std::int64_t j = 0; j < p; ++j) {
      const auto& dev = mesh.devices[static_cast<std::size_t>(cells[cellAt(j)])];
      if (!tpu) ++membersPerDomain[nodes[static_cast<std::size_t>(nodeOfCell[cellAt(j)])].slice];
      if (keepGroups) g.device_ids.push_back(dev.id);
      if (dev.process_index != first.process_index) g.crosses_hosts = true;
      if (dev.slice_index.value_or(0) != first.slice_index.value_or(0)) g.crosses_slices = true;
      if (p < 2) continue;
      // Routes are shortest paths, their length the hop count; a ring of two uses its pair both ways.
      const int a = nodeOfCell[cellAt(j)], b = nodeOfCell[cellAt((j + 1) % p)];
      route.clear();
      graph.route(a, b, route);
      const int h = static_cast<int>(route.size());
      if (keepGroups) g.hops.push_back(h);
      if (h > 1) g.ring_closed = false;
      g.max_hops = std::max(g.max_hops, h);
      groupHopSum += h;
      double latency = 0;
      for (auto [id, dir] : route) {
        (dir > 0 ? loadPlus : loadMinus)[static_cast<std::size_t>(id)]++;
        latency += links[static_cast<std::size_t>(id)].latency;
        if (links[static_cast<std::size_t>(id)].b < 0) r.uses_fabric = true;
      }
      r.step_latency = std::max(r.step_latency, latency);
      groupLatency += latency;
      if (nodes[static_cast<std::size_t>(a)].slice != nodes[static_cast<std::size_t>(b)].slice) leavesSlice = true;
    }
    if (!tpu && membersPerDomain.size() > 1)
      for (const auto& [domain, members] : membersPerDomain) nicsPerCrossing = std::min(nicsPerCrossing, members);
    if (fullMesh)
      for (const auto& [domain, members] : membersPerDomain)
        if (members > 1) fanout = std::min(fanout, members - 1);
    if (p >= 2) g.mean_hops = static_cast<double>(groupHopSum) / static_cast<double>(p);
    if (p >= 2) r.ring_latency = std::max(r.ring_latency, groupLatency * (1 - 1.0 / static_cast<double>(p)));
    hopSum += groupHopSum;
    pairCount += p >= 2 ? p : 0;
    allClose = allClose && g.ring_closed;
    r.max_hops = std::max(r.max_hops, g.max_hops);
    r.crosses_hosts = r.crosses_hosts || g.crosses_hosts;
    r.crosses_slices = r.crosses_slices || g.crosses_slices;
    // Physical extent of the group, for the TPU form of the cost.
    if (torusGraph && !leavesSlice) {
      int axes = 0, extentSum = 0;
      for (std::size_t d = 0; d < 3; ++d) {
        seenCoord.assign(static_cast<std::size_t>(dims[d]), 0);
        int distinct = 0;
        for (std::int64_t j = 0; j < p; ++j) {
          const int c = nodes[static_cast<std::size_t>(nodeOfCell[cellAt(j)])].coords[d];
          if (!seenCoord[static_cast<std::size_t>(c)]) {
            seenCoord[static_cast<std::size_t>(c)] = 1;
            ++distinct;
          }
        }
        if (distinct > 1) {
          ++axes;
          extentSum += distinct;
          // A closed torus ring needs the whole wrapped physical axis.
          const bool whole = distinct == dims[d] && graph.wrap()[d];
          if (!whole) allWrap = false;
          if (r.extents[d] == 0) dimWraps[d] = whole;
          dimWraps[d] = dimWraps[d] && whole;
          r.extents[d] = std::max(r.extents[d], distinct);
        }
      }
      r.physical_axes = std::max(r.physical_axes, axes);
      r.physical_extent_sum = std::max(r.physical_extent_sum, extentSum);
    } else {
      allInSlice = false;
      r.physical_axes = std::max(r.physical_axes, p > 1 ? 1 : 0);
      r.physical_extent_sum = std::max<int>(r.physical_extent_sum, static_cast<int>(p > 1 ? p : 0));
    }
    if (keepGroups) r.groups.push_back(std::move(g));
  }
  r.torus = torusGraph && allInSlice;
  r.wraps = r.torus && allWrap;
  for (std::size_t d = 0; d < 3; ++d) r.extent_wraps[d] = r.torus && r.extents[d] > 1 && dimWraps[d];
  if (!r.torus) r.extents = {0, 0, 0};
  r.ring_closed = allClose && p >= 2;
  if (p < 2) r.ring_closed = true; // a single device needs no link: trivially a ring
  r.mean_hops = pairCount ? hopSum / static_cast<double>(pairCount) : 0.0;

  if (fullMesh && fanout != std::numeric_limits<int>::max()) r.mesh_fanout = fanout;
  linkFigures(graph, loadPlus, loadMinus, nicsPerCrossing, r);
  if (graph.fabric() == Fabric::Boardfly && p >= 2) pairwiseFigures(graph, nodeOfCell, along, r);
  if (tpu && r.crosses_slices) r.levels = sliceLevels(graph, mesh, r);
  return r;
}

std::vector<AxisReport> axisReports(const LinkGraph& graph, const Mesh& mesh, bool keepGroups) {
  std::vector<AxisReport> out;
  for (std::size_t a = 0; a < mesh.shape().size(); ++a)
    out.push_back(axisReport(graph, mesh, static_cast<int>(a), keepGroups));
  return out;
}

} // namespace shardscope
