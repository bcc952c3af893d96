// SPDX-License-Identifier: Apache-2.0
// The physical links as a graph (../shared/spec/anchors-hardware-memory-comm.md §1.2, §3.3, §5):
// nodes are chips (every core of a chip maps to the same node), edges are ICI torus links, the
// board, group and global links of a Boardfly system (TPU 8i, docs/hardware.md), or the
// all-to-all links of a GPU domain (an NVLink switch, or MI300X's full mesh of Infinity Fabric).
// Traffic that leaves a slice (TPU, DCN) or a switch domain (GPU, network) goes through the chip's
// uplink to a shared fabric; uplinks are links too, so routes and link loads count them, but the
// fabric is not a graph node (it would make every pair of chips two hops apart through DCN, which
// is not how XLA routes ICI traffic).
#pragma once

#include "shardscope/base/enum_names.hpp"
#include "shardscope/hardware/device.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/topology.hpp"

#include <array>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

// Classes of links, slowest-first is not implied; `linkClassName` gives the text form.
enum class LinkClass { Ici, NvLink, Dcn, Network };
inline constexpr std::array<std::pair<std::string_view, LinkClass>, 4> kLinkClassNames{{
    {"ici", LinkClass::Ici},
    {"nvlink", LinkClass::NvLink},
    {"dcn", LinkClass::Dcn},
    {"network", LinkClass::Network},
}};
std::string_view linkClassName(LinkClass linkClass); // the name in kLinkClassNames

// Every number here is a default from hardware.hpp the user may edit. Bandwidths are one direction,
// one link, bytes/s; latencies are seconds per hop.
struct LinkParams {
  double ici_bandwidth = 0; // TPU torus or Boardfly link, NVLink per GPU, or one MI300X Infinity Fabric link
  double ici_latency = 0;
  double uplink_bandwidth = 0; // DCN (TPU) or network NIC (GPU) share per chip
  double uplink_latency = 0;
  // Forces wraparound per axis (x, y, z) instead of the generation's rule.
  std::optional<std::array<bool, 3>> wrap;
  // k x k x 2k tori: wrap links of the two short axes are offset by +k along the long axis
  // (hardware-memory-comm spec §1.2; the exact TPU wiring is model-level and needs validation).
  bool twisted = false;
  // GPUs per NVLink switch domain; 0 = the chip's host block (8 for H100 HGX, 72 for GB200 NVL72).
  int nvlink_domain = 0;

  bool operator==(const LinkParams&) const = default;
};

// Plausible ranges of the link figures a user may set (workspace `links`, eval `link_params`):
// bandwidth from 1 MB/s to 100 TB/s per link one way (published links run from a few GB/s of DCN
// share to 900 GB/s of NVLink; the GUI's editor goes to 100 TB/s), latency from 0 to 1 s per hop.
// A figure outside them is a typo: 1e-300 B/s makes every collective time overflow to infinity.
inline constexpr double kMinLinkBandwidth = 1e6;
inline constexpr double kMaxLinkBandwidth = 1e14;
inline constexpr double kMaxLinkLatency = 1.0;

// The chip's published defaults.
LinkParams defaultLinkParams(const ChipSpec& chip);

struct Link {
  int a = 0;  // node at one end
  int b = -1; // node at the other end; -1 = the fabric (an uplink)
  LinkClass link_class = LinkClass::Ici;
  bool wrap = false; // a torus wraparound (or twisted wraparound) link
  // Torus axis (0, 1, 2) of an ICI link; on Boardfly the level: 0 board, 1 group, 2 global; -1 for
  // NVLink links and uplinks.
  int dim = -1;
  double bandwidth = 0;
  double latency = 0;
};

struct ChipNode {
  // TPU chip coordinates (Boardfly: chip on its board, board, group); GPUs: {rank in domain, 0, 0}
  std::array<int, 3> coords{0, 0, 0};
  int slice = 0;  // TPU slice (Boardfly: pod), GPU NVLink domain
  int host = 0;   // process_index of the devices on this chip
  int board = -1; // Boardfly: the chip's board within its group (-1 elsewhere)
  int group = -1; // Boardfly: the board's group within the pod (-1 elsewhere)
};

class LinkGraphImpl;

class LinkGraph {
public:
  LinkGraph(const DeviceList& devices, const TopologySpec& spec, const LinkParams& params);
  ~LinkGraph();
  LinkGraph(const LinkGraph&) = delete;
  LinkGraph& operator=(const LinkGraph&) = delete;

  Platform platform() const { return platform_; }
  Fabric fabric() const { return fabric_; } // how a slice/domain is wired (chips.hpp)
  const TopologySpec& spec() const { return spec_; }
  const LinkParams& params() const { return params_; }
  // Chips per slice along x, y, z (TPU; Boardfly: chips per board, boards per group, groups); GPUs:
  // {domain size, 1, 1}.
  const std::array<int, 3>& dims() const { return dims_; }
  // Whether each axis has its wraparound links (only meaningful on TPU tori).
  const std::array<bool, 3>& wrap() const { return wrap_; }
  bool twisted() const { return twisted_; }
  int slices() const { return slices_; } // TPU slices or GPU switch domains

  const std::vector<ChipNode>& nodes() const { return nodes_; }
  const std::vector<Link>& links() const { return links_; }
  std::size_t nodeCount() const { return nodes_.size(); }
  // Links inside slices/domains (ICI or NVLink), without uplinks.
  std::size_t localLinkCount() const { return localLinks_; }

  // The chip node of a device id, or -1 when the id is not in the graph's device list.
  int nodeOfDevice(std::int64_t deviceId) const;
  const DeviceList& devices() const { return devices_; }

  // Hops between two chips: 0 on the same chip, shortest path over ICI/NVLink inside a
  // slice/domain, 2 across the fabric (uplink, uplink).
  int hops(int nodeA, int nodeB) const;
  // Breadth-first search (Boost.Graph) over the ICI/NVLink links from one chip: hops to every
  // chip of the same slice/domain, -1 for chips only reachable through the fabric.
  std::vector<int> bfsHops(int source) const;
  // Link ids of one shortest route from a to b, with the direction each is crossed (+1 when
  // crossed from link.a to link.b; uplinks: +1 up, -1 down). Untwisted tori use dimension-order
  // routing (x, then y, then z, the shorter way round, ties towards +); twisted tori a BFS
  // shortest path (translated from one BFS tree, see twistBfs_); Boardfly a BFS shortest path from
  // the source's own tree (one per chip of a pod, built once).
  void route(int nodeA, int nodeB, std::vector<std::pair<int, int>>& out) const;
  // The largest hop count between two chips of one slice/domain (closed form on plain tori,
  // BFS from every chip on twisted ones and on Boardfly).
  int iciDiameter() const;
  // Largest hops() over all pairs: iciDiameter(), or 2 (through the fabric) if larger.
  int diameter() const;

private:
  friend class LinkGraphImpl;
  Platform platform_ = Platform::Tpu;
  Fabric fabric_ = Fabric::Torus;
  TopologySpec spec_;
  LinkParams params_;
  DeviceList devices_;
  std::array<int, 3> dims_{1, 1, 1};
  std::array<bool, 3> wrap_{false, false, false};
  bool twisted_ = false;
  int slices_ = 1;
  std::vector<ChipNode> nodes_;
  std::vector<Link> links_;
  std::size_t localLinks_ = 0;
  std::vector<int> plusLink_;  // TPU: node*3+dim -> link to the + neighbour, -1 when none
  std::vector<int> minusLink_; // TPU: node*3+dim -> link from the - neighbour, -1 when none
  // Twisted tori are Cayley graphs of Z^3 / <(k,0,-k)...>: every chip sees the same graph, so one
  // BFS tree from chip 0 (distance and the step reaching each chip from its parent) answers
  // hops and routes for any pair by translation, without a BFS per pair.
  std::vector<int> twistDist_;
  std::vector<int> twistParent_;
  std::vector<int> twistStep_; // dim * 2 + (1 when the step goes +)
  int longAxis_ = 2;
  // Boardfly: hops and the BFS tree of every chip of one pod (every pod is wired alike): entry
  // source * chips + target holds the hop count, and the pod-local link through which the target
  // is reached in the source's tree (-1 for the source itself).
  std::vector<std::uint8_t> boardflyDist_;
  std::vector<std::int32_t> boardflyVia_;
  std::size_t boardflyLinksPerPod_ = 0;
  std::vector<int> uplink_;     // node -> its uplink id
  std::vector<int> domainBase_; // GPU: first link id of each domain's all-to-all block
  std::vector<int> nodeByDeviceId_;
  std::unique_ptr<LinkGraphImpl> impl_; // the Boost.Graph adjacency list

  // The constructor's stages, in order.
  void placeTpuChips(const ChipSpec& chip);
  void addTorusLinks();
  void addBoardflyLinks(const ChipSpec& chip);
  void buildBoardflyRoutes();
  void addSwitchDomains(const ChipSpec& chip);
  void addUplinks();
  void buildSearchGraph();
  int addLink(int a, int b, LinkClass cls, bool wrap, double bandwidth, double latency, int dim = -1);

  int torusHops(int a, int b) const;
  int twistedOffset(int a, int b) const; // local index of b - a in the twisted quotient group
  int gpuLocalLink(int a, int b) const;
};

// Which axes of a TPU slice of `dims` chips wrap under the chip's rule (hardware-memory-comm spec §1.2).
std::array<bool, 3> defaultWrap(const ChipSpec& chip, const std::array<int, 3>& dims);
// Whether `dims` is a k x k x 2k shape (in any axis order) that may be twisted.
bool twistableShape(const std::array<int, 3>& dims);

// The graph of a topology, built once per (spec, params) and kept in a small cache (the GUI and
// the eval ops ask for the same few topologies again and again).
std::shared_ptr<const LinkGraph> cachedLinkGraph(const TopologySpec& spec, const LinkParams& params);
// Same, with the chip's default parameters.
std::shared_ptr<const LinkGraph> cachedLinkGraph(const TopologySpec& spec);

} // namespace shardscope
