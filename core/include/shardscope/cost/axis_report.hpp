// SPDX-License-Identifier: Apache-2.0
// What one logical mesh axis does on the physical links (hardware-memory-comm spec §3.3): the device groups
// that talk along it, each group's ring in mesh order, whether that ring closes on physical
// links, how stretched it is (dilation) and how much the groups' rings collide on links when they
// all run at once (link load, a.k.a. congestion).
#pragma once

#include "shardscope/hardware/link_graph.hpp"
#include "shardscope/mesh/named_mesh.hpp"

#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace shardscope {

// One group of devices that differ only in the axis' coordinate, in mesh order.
struct RingGroup {
  std::vector<std::int64_t> device_ids;
  std::vector<int> hops;    // hops[i]: ring neighbours i -> i+1, the last entry last -> first
  bool ring_closed = false; // every neighbour pair (closing pair included) is <= 1 hop
  int max_hops = 0;
  double mean_hops = 0;
  bool crosses_hosts = false;
  bool crosses_slices = false;
};

struct AxisReport {
  std::string axis;
  int axis_index = 0;
  std::int64_t size = 1; // devices per group (p)
  std::int64_t group_count = 0;
  std::vector<RingGroup> groups; // empty when not requested
  bool ring_closed = false;      // every group's ring closes
  int max_hops = 0;              // dilation: max over all groups
  double mean_hops = 0;          // dilation: mean over all ring neighbour pairs
  // Link load with every group of the axis running its ring at once, neighbour pairs routed on
  // shortest paths (see LinkGraph::route). `max_link_load`: ring edges through the busiest link
  // in either direction (what a bidirectional ring sees per direction); `max_directed_link_load`:
  // ring edges through the busiest link in one direction (a unidirectional ring).
  int max_link_load = 0;
  int max_directed_link_load = 0;
  bool crosses_hosts = false;
  bool crosses_slices = false;             // devices of different slice_index in one group
  bool uses_fabric = false;                // some neighbour pair goes through DCN / the network
  LinkClass slowest_link = LinkClass::Ici; // slowest class among the links the rings use
  bool uses_links = false;                 // false when no ring needs a link (p == 1, or all on one chip)
  // Per-rank bandwidth (bytes/s) a unidirectional ring gets: min over used links of
  // bandwidth / directed load. Bidirectional: min over used links of 2 * bandwidth / load.
  double ring_bandwidth = 0;
  double bidi_ring_bandwidth = 0;
  double step_latency = 0; // the slowest neighbour route's summed link latency (seconds)
  // The latency of the p - 1 steps of the ring, each step on its own route (NCCL's ring model:
  // the steps inside an NVLink domain at its latency, the ones that cross the network at the
  // network's): the slowest group's sum over its p routes x (p - 1) / p. (p - 1) x step_latency
  // when every step's route is alike; less when only some steps leave the domain.
  double ring_latency = 0;
  // All-to-all priced pair by pair (Boardfly, where the links a rank's messages cross are not its
  // ring's): every ordered pair of devices of every group routed on its shortest path at once, each
  // pair carrying one chunk (a rank's buffer / p). `a2a_max_link_load`: chunks through the busiest
  // link in one direction; `a2a_bandwidth`: min over used links of bandwidth / that load (chunks
  // cross at it: an all-to-all of V bytes takes a2a_latency + V / p^2 / a2a_bandwidth);
  // `a2a_latency`: the slowest pair route's summed link latency. Off (`a2a_pairwise` false) on tori
  // and GPU domains, whose closed forms price it, and for axes of more than kMaxPairwiseRoutes pairs.
  bool a2a_pairwise = false;
  double a2a_max_link_load = 0;
  double a2a_bandwidth = 0;
  double a2a_latency = 0;
  // MI300X's full mesh: the fewest direct links a member drives at once to the other members of
  // its group in its domain (members there - 1), as RCCL spreads a ring over them; the scale-up
  // links' bandwidth counts that many times. 1 on every other fabric.
  int mesh_fanout = 1;
  // TPU form inputs (hardware-memory-comm spec §3.2): physical axes a group spans and the sum of its extents on them
  // (max over groups); 0/p for groups that leave their slice or on GPUs.
  int physical_axes = 0;
  int physical_extent_sum = 0;
  // TPU: every group stays in its slice, so its rings run on the torus (the scaling-book form
  // prices them); false on GPUs and for groups that cross DCN.
  bool torus = false;
  // TPU: every group spans each physical axis it touches whole, and each of those axes has its
  // wraparound links: the torus rings close whatever order the mesh lists the devices in, and a
  // group over n such axes gathers over all n at once (hardware-memory-comm spec §3.2).
  bool wraps = false;
  // TPU in one slice: per physical dimension (x, y, z), the most distinct coordinates a group
  // spans (0 where no group spans it), and whether every group spanning it takes it whole with its
  // wraparound; and the raw one-way bandwidth of the slowest link the rings use. These price a
  // collective stage by stage along the physical dimensions (collectives.hpp).
  std::array<int, 3> extents{0, 0, 0};
  std::array<bool, 3> extent_wraps{false, false, false};
  double link_bandwidth = 0;
  // TPU groups that span slices with each slice's devices consecutive in the group, as
  // create_hybrid_device_mesh lays a DCN x ICI axis out: the in-slice level (its ICI rings, one per
  // slice) then the across-slice level (the devices at one in-slice position, over DCN). XLA's
  // multi-slice collectives cross the levels one after the other, the DCN level carrying 1 / (the
  // in-slice size) of the bytes (collectives.hpp). Empty for every other axis.
  std::vector<AxisReport> levels;
  // The devices of each group in one slice when the axis runs in two levels; 0 otherwise.
  std::int64_t inSlice() const { return levels.empty() ? 0 : levels.front().size; }
};

// The most device pairs an axis' pairwise all-to-all routes (its groups' chip pairs); beyond it
// the all-to-all keeps the ring price.
inline constexpr std::int64_t kMaxPairwiseRoutes = std::int64_t{1} << 24;

// Report for axis `axisIndex` of `mesh`. Every mesh device must be in the graph (by id).
// `keepGroups` keeps per-group detail (costly for large meshes only in memory).
AxisReport axisReport(const LinkGraph& graph, const Mesh& mesh, int axisIndex, bool keepGroups = false);
// All axes, in mesh order.
std::vector<AxisReport> axisReports(const LinkGraph& graph, const Mesh& mesh, bool keepGroups = false);

} // namespace shardscope
