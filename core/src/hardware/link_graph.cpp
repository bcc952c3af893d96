// SPDX-License-Identifier: Apache-2.0
// Building the link graph of a topology and answering hop/route questions on it. Closed
// forms (torus distance, dimension-order routes) serve the large untwisted tori quickly; the
// Boost.Graph adjacency list serves BFS (tests compare the two) and twisted tori, which have no
// closed form (hardware-memory-comm spec §3.3).
#include "shardscope/hardware/link_graph.hpp"

#include "shardscope/base/errors.hpp"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>

#include <algorithm>
#include <cstdlib>
#include <mutex>
#include <unordered_map>

namespace shardscope {

std::string_view linkClassName(LinkClass linkClass) { return nameOf(linkClass, kLinkClassNames); }

LinkParams defaultLinkParams(const ChipSpec& chip) {
  LinkParams p;
  p.ici_bandwidth = chip.ici_link_bandwidth;
  p.ici_latency = chip.ici_link_latency;
  p.uplink_bandwidth = chip.dcn_bandwidth_per_chip;
  p.uplink_latency = chip.dcn_latency;
  return p;
}

std::array<bool, 3> defaultWrap(const ChipSpec& chip, const std::array<int, 3>& dims) {
  std::array<bool, 3> wrap{false, false, false};
  switch (chip.wrap) {
  case WrapRule::FromFullCube: {
    // A slice made of whole 4x4x4 cubes gets its OCS wraparound on every axis; anything
    // smaller is a plain mesh (hardware-memory-comm spec §1.2).
    const bool wholeCubes = std::all_of(dims.begin(), dims.end(), [](int k) { return k >= 4 && k % 4 == 0; });
    wrap = {wholeCubes, wholeCubes, wholeCubes};
    break;
  }
  case WrapRule::OnLength16:
    for (int d = 0; d < 3; ++d) wrap[static_cast<std::size_t>(d)] = dims[static_cast<std::size_t>(d)] == 16;
    break;
  case WrapRule::Never:
  case WrapRule::Switch:
    break;
  }
  return wrap;
}

bool twistableShape(const std::array<int, 3>& dims) {
  auto s = dims;
  std::sort(s.begin(), s.end());
  return s[0] >= 2 && s[0] == s[1] && s[2] == 2 * s[0];
}

// The Boost.Graph view of the local (ICI/NVLink) links; each edge carries its link id.
using BoostGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS, boost::no_property,
                                         boost::property<boost::edge_index_t, int>>;

class LinkGraphImpl {
public:
  BoostGraph graph;
  std::unordered_map<std::int64_t, int> nodeOfId;
  int iciDiameter = 0;

  // Distances and BFS-tree parents from `source` over local links.
  void bfs(int source, std::vector<int>& dist, std::vector<int>* parent) const {
    const auto n = boost::num_vertices(graph);
    dist.assign(n, -1);
    dist[static_cast<std::size_t>(source)] = 0;
    std::vector<BoostGraph::vertex_descriptor> pred(n);
    for (std::size_t i = 0; i < n; ++i) pred[i] = i;
    auto distMap = boost::make_iterator_property_map(dist.begin(), boost::get(boost::vertex_index, graph));
    auto predMap = boost::make_iterator_property_map(pred.begin(), boost::get(boost::vertex_index, graph));
    boost::breadth_first_search(graph, static_cast<BoostGraph::vertex_descriptor>(source),
                                boost::visitor(boost::make_bfs_visitor(
                                    std::make_pair(boost::record_distances(distMap, boost::on_tree_edge()),
                                                   boost::record_predecessors(predMap, boost::on_tree_edge())))));
    if (parent) {
      parent->resize(n);
      for (std::size_t i = 0; i < n; ++i) (*parent)[i] = static_cast<int>(pred[i]);
    }
  }
};

namespace {
const ChipSpec& chipOf(const TopologySpec& spec) {
  const ChipSpec* chip = findChip(spec.chip);
  if (!chip) throwValueError("link graph: unknown chip '" + spec.chip + "'");
  return *chip;
}

// Largest GPU switch domain we model (NVL576); bounds the all-to-all link count.
constexpr int kMaxNvlinkDomain = 576;
// Bound on all-to-all switch links of a GPU graph (about 300 MB of links and adjacency).
constexpr double kMaxSwitchLinks = 8e6;
} // namespace

LinkGraph::LinkGraph(const DeviceList& devices, const TopologySpec& spec, const LinkParams& params)
    : spec_(spec), params_(params), devices_(devices), impl_(std::make_unique<LinkGraphImpl>()) {
  const ChipSpec& chip = chipOf(spec);
  platform_ = chip.platform;
  fabric_ = chip.fabric;
  if (params.ici_bandwidth <= 0 || params.uplink_bandwidth <= 0)
    throwValueError("link graph: link bandwidths must be positive");
  if (params.ici_latency < 0 || params.uplink_latency < 0)
    throwValueError("link graph: link latencies must not be negative");
  if (devices.empty()) throwValueError("link graph: no devices");
  if (platform_ == Platform::Tpu && fabric_ == Fabric::Boardfly) {
    if (params.wrap || params.twisted)
      throwValueError("link graph: wrap and twisted apply to tori; " + chip.key + " is a Boardfly system");
    checkBoardflyShape(chip, spec.shape);
    placeTpuChips(chip);
    addBoardflyLinks(chip);
  } else if (platform_ == Platform::Tpu) {
    placeTpuChips(chip);
    addTorusLinks();
  } else {
    addSwitchDomains(chip);
  }
  localLinks_ = links_.size();
  addUplinks();
  buildSearchGraph();
}

int LinkGraph::addLink(int a, int b, LinkClass cls, bool wrap, double bandwidth, double latency, int dim) {
  links_.push_back({a, b, cls, wrap, dim, bandwidth, latency});
  return static_cast<int>(links_.size() - 1);
}

// TPU: one node per chip position of every slice (x fastest), each owned by the host of the device
// placed there; the slice shape, wraps and twist checked.
void LinkGraph::placeTpuChips(const ChipSpec& chip) {
  dims_ = spec_.shape;
  slices_ = spec_.slices;
  for (int k : dims_)
    if (k <= 0) throwValueError("link graph: slice dimensions must be positive");
  if (slices_ <= 0) throwValueError("link graph: slices must be positive");
  wrap_ = params_.wrap ? *params_.wrap : defaultWrap(chip, dims_);
  if (params_.twisted) {
    if (!twistableShape(dims_)) throwValueError("link graph: a twisted torus needs a k x k x 2k slice");
    if (!(wrap_[0] && wrap_[1] && wrap_[2]))
      throwValueError("link graph: a twisted torus needs wraparound on every axis");
    twisted_ = true;
  }
  const int X = dims_[0], Y = dims_[1], Z = dims_[2];
  const std::int64_t perSlice = std::int64_t{X} * Y * Z;
  const std::int64_t total = perSlice * slices_;
  if (total > kMaxTopologyDevices)
    throwValueError("link graph: more than " + std::to_string(kMaxTopologyDevices) + " chips");
  nodes_.resize(static_cast<std::size_t>(total));
  for (std::int64_t n = 0; n < total; ++n) {
    auto& node = nodes_[static_cast<std::size_t>(n)];
    const std::int64_t local = n % perSlice;
    node.coords = {static_cast<int>(local % X), static_cast<int>(local / X % Y),
                   static_cast<int>(local / (std::int64_t{X} * Y))};
    node.slice = static_cast<int>(n / perSlice);
    node.host = -1;
    if (chip.fabric == Fabric::Boardfly) {
      node.board = node.coords[1];
      node.group = node.coords[2];
    }
  }
  for (const auto& d : devices_) {
    if (!d.coords) throwValueError("link graph: TPU device " + describeDevice(d) + " has no coords");
    const auto& c = *d.coords;
    const int s = d.slice_index.value_or(0);
    for (int a = 0; a < 3; ++a)
      if (c[static_cast<std::size_t>(a)] < 0 || c[static_cast<std::size_t>(a)] >= dims_[static_cast<std::size_t>(a)])
        throwValueError("link graph: device " + describeDevice(d) + " lies outside the " + formatTopology(spec_) +
                        " slice");
    if (s < 0 || s >= slices_)
      throwValueError("link graph: device " + describeDevice(d) + " has a slice index outside 0.." +
                      std::to_string(slices_ - 1));
    const int node = static_cast<int>(s * perSlice + c[0] + std::int64_t{X} * (c[1] + std::int64_t{Y} * c[2]));
    if (nodes_[static_cast<std::size_t>(node)].host < 0) nodes_[static_cast<std::size_t>(node)].host = d.process_index;
    if (!impl_->nodeOfId.emplace(d.id, node).second)
      throwValueError("link graph: device id " + std::to_string(d.id) + " appears twice");
  }
}

// TPU: one ICI link from every chip to its + neighbour along each axis of length >= 2, the wrap
// links where the torus closes (shifted along the long axis on a twisted torus).
void LinkGraph::addTorusLinks() {
  const int X = dims_[0], Y = dims_[1], Z = dims_[2];
  const std::int64_t perSlice = std::int64_t{X} * Y * Z;
  // The long axis of a twisted shape, and the offset its wrap links add.
  int longAxis = 0;
  for (int a = 1; a < 3; ++a)
    if (dims_[static_cast<std::size_t>(a)] > dims_[static_cast<std::size_t>(longAxis)]) longAxis = a;
  // Effective wrap: a wrap link on an axis of length <= 2 would duplicate the open link, unless
  // it is a twisted wrap (it lands elsewhere along the long axis).
  std::array<bool, 3> effWrap{};
  for (std::size_t a = 0; a < 3; ++a)
    effWrap[a] = wrap_[a] && (dims_[a] > 2 || (twisted_ && static_cast<int>(a) != longAxis));
  longAxis_ = longAxis;
  const int twist = dims_[static_cast<std::size_t>(longAxis)] / 2;
  plusLink_.assign(nodes_.size() * 3, -1);
  minusLink_.assign(nodes_.size() * 3, -1);
  links_.reserve(nodes_.size() * 3 + (slices_ > 1 ? nodes_.size() : 0));
  for (std::size_t n = 0; n < nodes_.size(); ++n) {
    const auto& node = nodes_[n];
    const std::int64_t base = std::int64_t{node.slice} * perSlice;
    for (int a = 0; a < 3; ++a) {
      const auto ua = static_cast<std::size_t>(a);
      const int k = dims_[ua];
      if (k < 2) continue;
      auto c = node.coords;
      bool isWrap = false;
      if (c[ua] + 1 < k) {
        ++c[ua];
      } else if (effWrap[ua]) {
        c[ua] = 0;
        isWrap = true;
        if (twisted_ && a != longAxis) {
          const auto ul = static_cast<std::size_t>(longAxis);
          c[ul] = (c[ul] + twist) % dims_[ul];
        }
      } else {
        continue;
      }
      const int to = static_cast<int>(base + c[0] + std::int64_t{X} * (c[1] + std::int64_t{Y} * c[2]));
      const int id =
          addLink(static_cast<int>(n), to, LinkClass::Ici, isWrap, params_.ici_bandwidth, params_.ici_latency, a);
      plusLink_[n * 3 + ua] = id;
      minusLink_[static_cast<std::size_t>(to) * 3 + ua] = id;
    }
  }
}

// Boardfly (docs/hardware.md, "Boardfly"): in every pod, the chips of a board fully connected
// (level 0); the boards of a group fully connected, board b1's link to board b2 held by its chip
// (peer index of b2) / (group ports per chip), peers numbered in board order without b1 itself
// (level 1); one global link between every two groups, group g's port j = chip j % C of board j / C
// going to group (g + j + 1) mod G, where it lands on port G - 2 - j (level 2). Every pod's links
// come in the same order, so a pod-local link id is the same link in every pod.
void LinkGraph::addBoardflyLinks(const ChipSpec& chip) {
  const int C = dims_[0], B = dims_[1], G = dims_[2];
  const std::int64_t perPod = std::int64_t{C} * B * G;
  const BoardflyShape& shape = chip.boardfly;
  // Ports a chip has for the other boards of its group (spare boards included): 2 on TPU 8i.
  const int peers = shape.boards_per_group + shape.spare_boards_per_group - 1;
  const int groupPorts = std::max(1, (peers + shape.chips_per_board - 1) / shape.chips_per_board);
  auto at = [&](int pod, int c, int b, int g) { return static_cast<int>(pod * perPod + c + C * (b + B * g)); };
  const double bw = params_.ici_bandwidth, lat = params_.ici_latency;
  for (int pod = 0; pod < slices_; ++pod) {
    const std::size_t before = links_.size();
    for (int g = 0; g < G; ++g)
      for (int b = 0; b < B; ++b)
        for (int c1 = 0; c1 < C; ++c1)
          for (int c2 = c1 + 1; c2 < C; ++c2)
            addLink(at(pod, c1, b, g), at(pod, c2, b, g), LinkClass::Ici, false, bw, lat, 0);
    for (int g = 0; g < G; ++g)
      for (int b1 = 0; b1 < B; ++b1)
        for (int b2 = b1 + 1; b2 < B; ++b2) {
          // b2 is peer b2 - 1 of b1 (b1 skipped), b1 is peer b1 of b2.
          const int c1 = (b2 - 1) / groupPorts, c2 = b1 / groupPorts;
          addLink(at(pod, c1, b1, g), at(pod, c2, b2, g), LinkClass::Ici, false, bw, lat, 1);
        }
    for (int g1 = 0; g1 < G; ++g1)
      for (int g2 = g1 + 1; g2 < G; ++g2) {
        const int j1 = g2 - g1 - 1, j2 = G - 2 - j1;
        addLink(at(pod, j1 % C, j1 / C, g1), at(pod, j2 % C, j2 / C, g2), LinkClass::Ici, false, bw, lat, 2);
      }
    boardflyLinksPerPod_ = links_.size() - before;
  }
}

// Boardfly: a BFS from every chip of the first pod over its links, each tree kept as the link that
// reaches every chip (routes walk it back from the target); hops and the diameter from the same.
void LinkGraph::buildBoardflyRoutes() {
  const std::size_t n = static_cast<std::size_t>(dims_[0]) * dims_[1] * dims_[2];
  std::vector<std::vector<std::pair<int, int>>> adjacent(n); // (neighbour, pod-local link id)
  for (std::size_t id = 0; id < boardflyLinksPerPod_; ++id) {
    const auto& link = links_[id];
    adjacent[static_cast<std::size_t>(link.a)].emplace_back(link.b, static_cast<int>(id));
    adjacent[static_cast<std::size_t>(link.b)].emplace_back(link.a, static_cast<int>(id));
  }
  boardflyDist_.assign(n * n, 0);
  boardflyVia_.assign(n * n, -1);
  std::vector<int> queue(n);
  std::vector<char> seen(n);
  int diameter = 0;
  for (std::size_t s = 0; s < n; ++s) {
    std::fill(seen.begin(), seen.end(), 0);
    std::size_t head = 0, tail = 0;
    queue[tail++] = static_cast<int>(s);
    seen[s] = 1;
    while (head < tail) {
      const auto u = static_cast<std::size_t>(queue[head++]);
      for (const auto& [v, id] : adjacent[u]) {
        const auto uv = static_cast<std::size_t>(v);
        if (seen[uv]) continue;
        seen[uv] = 1;
        boardflyDist_[s * n + uv] = static_cast<std::uint8_t>(boardflyDist_[s * n + u] + 1);
        boardflyVia_[s * n + uv] = id;
        diameter = std::max<int>(diameter, boardflyDist_[s * n + uv]);
        queue[tail++] = v;
      }
    }
    if (tail != n) throwValueError("link graph: a Boardfly pod of " + std::to_string(n) + " chips is not connected");
  }
  impl_->iciDiameter = diameter;
}

// GPUs (and CPUs): one node per device in list order, all-to-all inside each switch domain.
void LinkGraph::addSwitchDomains(const ChipSpec& chip) {
  const std::size_t count = devices_.size();
  int domain = params_.nvlink_domain > 0 ? params_.nvlink_domain : std::max(1, chip.host_block[0]);
  if (domain > kMaxNvlinkDomain)
    throwValueError("link graph: nvlink_domain must be at most " + std::to_string(kMaxNvlinkDomain));
  // CPU devices share one host's memory: one all-to-all domain unless told otherwise.
  if (platform_ == Platform::Cpu && params_.nvlink_domain <= 0)
    domain = static_cast<int>(std::min<std::size_t>(count, kMaxNvlinkDomain));
  domain = std::min<int>(domain, static_cast<int>(count));
  // All-to-all costs domain^2/2 links per domain: bound the total before allocating.
  const double allToAll = static_cast<double>(count) * (domain - 1) / 2.0;
  if (allToAll > kMaxSwitchLinks) {
    // Suggest the setting only to callers who set it (eval's link_params); elsewhere the remedy
    // is a smaller topology.
    const auto fits = static_cast<std::int64_t>(2 * kMaxSwitchLinks / (domain - 1));
    throwValueError("link graph: " + std::to_string(count) + (platform_ == Platform::Cpu ? " CPU devices" : " GPUs") +
                    " in all-to-all groups of " + std::to_string(domain) + " need " +
                    std::to_string(static_cast<std::int64_t>(allToAll)) + " links, more than the " +
                    std::to_string(static_cast<std::int64_t>(kMaxSwitchLinks)) + " modelled; " +
                    (params_.nvlink_domain > 0 ? "lower link_params.nvlink_domain or use fewer devices"
                                               : "use at most " + std::to_string(fits) + " devices"));
  }
  dims_ = {domain, 1, 1};
  slices_ = static_cast<int>((count + static_cast<std::size_t>(domain) - 1) / static_cast<std::size_t>(domain));
  nodes_.resize(count);
  for (std::size_t i = 0; i < count; ++i) {
    nodes_[i].coords = {static_cast<int>(i % static_cast<std::size_t>(domain)), 0, 0};
    nodes_[i].slice = static_cast<int>(i / static_cast<std::size_t>(domain));
    nodes_[i].host = devices_[i].process_index;
    if (!impl_->nodeOfId.emplace(devices_[i].id, static_cast<int>(i)).second)
      throwValueError("link graph: device id " + std::to_string(devices_[i].id) + " appears twice");
  }
  for (int s = 0; s < slices_; ++s) {
    domainBase_.push_back(static_cast<int>(links_.size()));
    const int first = s * domain;
    const int last = std::min<int>(first + domain, static_cast<int>(nodes_.size()));
    for (int i = first; i < last; ++i)
      for (int j = i + 1; j < last; ++j)
        addLink(i, j, LinkClass::NvLink, false, params_.ici_bandwidth, params_.ici_latency);
  }
}

// Uplinks to the fabric once there is more than one slice/domain to talk to.
void LinkGraph::addUplinks() {
  uplink_.assign(nodes_.size(), -1);
  if (slices_ <= 1) return;
  const LinkClass cls = platform_ == Platform::Tpu ? LinkClass::Dcn : LinkClass::Network;
  for (std::size_t n = 0; n < nodes_.size(); ++n)
    uplink_[n] = addLink(static_cast<int>(n), -1, cls, false, params_.uplink_bandwidth, params_.uplink_latency);
}

// The Boost.Graph of the local links, and the diameter inside one slice/domain (on a twisted torus
// from the one BFS tree that answers every pair).
void LinkGraph::buildSearchGraph() {
  impl_->graph = BoostGraph(nodes_.size());
  for (std::size_t id = 0; id < localLinks_; ++id)
    boost::add_edge(static_cast<std::size_t>(links_[id].a), static_cast<std::size_t>(links_[id].b),
                    static_cast<int>(id), impl_->graph);
  if (platform_ != Platform::Tpu) {
    impl_->iciDiameter = dims_[0] > 1 ? 1 : 0;
    return;
  }
  if (fabric_ == Fabric::Boardfly) {
    buildBoardflyRoutes();
    return;
  }
  if (!twisted_) {
    int d = 0;
    for (std::size_t a = 0; a < 3; ++a) d += (wrap_[a] && dims_[a] > 2) ? dims_[a] / 2 : dims_[a] - 1;
    impl_->iciDiameter = d;
    return;
  }
  // One BFS tree from chip 0 serves every pair (see twistBfs_ in the header); its depth is the
  // diameter since every chip has the same eccentricity.
  const std::int64_t perSlice = std::int64_t{dims_[0]} * dims_[1] * dims_[2];
  std::vector<int> dist, parent;
  impl_->bfs(0, dist, &parent);
  twistDist_.assign(dist.begin(), dist.begin() + perSlice);
  twistParent_.assign(parent.begin(), parent.begin() + perSlice);
  twistStep_.assign(static_cast<std::size_t>(perSlice), -1);
  for (std::int64_t v = 1; v < perSlice; ++v) {
    const int u = twistParent_[static_cast<std::size_t>(v)];
    auto [e, found] = boost::edge(static_cast<std::size_t>(u), static_cast<std::size_t>(v), impl_->graph);
    (void)found;
    const auto& link = links_[static_cast<std::size_t>(boost::get(boost::edge_index, impl_->graph, e))];
    twistStep_[static_cast<std::size_t>(v)] = link.dim * 2 + (link.a == u ? 1 : 0);
  }
  impl_->iciDiameter = *std::max_element(twistDist_.begin(), twistDist_.end());
}

LinkGraph::~LinkGraph() = default;

int LinkGraph::nodeOfDevice(std::int64_t deviceId) const {
  auto it = impl_->nodeOfId.find(deviceId);
  return it == impl_->nodeOfId.end() ? -1 : it->second;
}

int LinkGraph::torusHops(int a, int b) const {
  const auto& ca = nodes_[static_cast<std::size_t>(a)].coords;
  const auto& cb = nodes_[static_cast<std::size_t>(b)].coords;
  int h = 0;
  for (std::size_t d = 0; d < 3; ++d) {
    const int delta = std::abs(ca[d] - cb[d]);
    h += wrap_[d] ? std::min(delta, dims_[d] - delta) : delta;
  }
  return h;
}

int LinkGraph::hops(int a, int b) const {
  if (a == b) return 0;
  const auto& na = nodes_[static_cast<std::size_t>(a)];
  const auto& nb = nodes_[static_cast<std::size_t>(b)];
  if (na.slice != nb.slice) return 2;
  if (platform_ != Platform::Tpu) return 1;
  if (fabric_ == Fabric::Boardfly) {
    const std::size_t n = static_cast<std::size_t>(dims_[0]) * dims_[1] * dims_[2];
    const std::size_t base = static_cast<std::size_t>(na.slice) * n;
    return boardflyDist_[(static_cast<std::size_t>(a) - base) * n + (static_cast<std::size_t>(b) - base)];
  }
  if (!twisted_) return torusHops(a, b);
  return twistDist_[static_cast<std::size_t>(twistedOffset(a, b))];
}

int LinkGraph::twistedOffset(int a, int b) const {
  const auto& ca = nodes_[static_cast<std::size_t>(a)].coords;
  const auto& cb = nodes_[static_cast<std::size_t>(b)].coords;
  std::array<int, 3> v{cb[0] - ca[0], cb[1] - ca[1], cb[2] - ca[2]};
  const auto L = static_cast<std::size_t>(longAxis_);
  const int twist = dims_[L] / 2;
  // Going k_s along a short axis lands +twist along the long axis: (k_s e_s) == (twist e_long).
  for (std::size_t s = 0; s < 3; ++s) {
    if (s == L) continue;
    const int k = dims_[s];
    const int q = v[s] >= 0 ? v[s] / k : -((-v[s] + k - 1) / k); // floor division
    v[s] -= q * k;
    v[L] += q * twist;
  }
  v[L] = ((v[L] % dims_[L]) + dims_[L]) % dims_[L];
  return v[0] + dims_[0] * (v[1] + dims_[1] * v[2]);
}

std::vector<int> LinkGraph::bfsHops(int source) const {
  std::vector<int> dist;
  impl_->bfs(source, dist, nullptr);
  return dist;
}

int LinkGraph::gpuLocalLink(int a, int b) const {
  const int i = std::min(a, b), j = std::max(a, b);
  const int domain = nodes_[static_cast<std::size_t>(i)].slice;
  const int first = domain * dims_[0];
  const int n = std::min<int>(dims_[0], static_cast<int>(nodes_.size()) - first);
  const int li = i - first, lj = j - first;
  return domainBase_[static_cast<std::size_t>(domain)] + li * n - li * (li + 1) / 2 + (lj - li - 1);
}

void LinkGraph::route(int a, int b, std::vector<std::pair<int, int>>& out) const {
  if (a == b) return;
  const auto& na = nodes_[static_cast<std::size_t>(a)];
  const auto& nb = nodes_[static_cast<std::size_t>(b)];
  if (na.slice != nb.slice) {
    out.emplace_back(uplink_[static_cast<std::size_t>(a)], +1);
    out.emplace_back(uplink_[static_cast<std::size_t>(b)], -1);
    return;
  }
  if (platform_ != Platform::Tpu) {
    out.emplace_back(gpuLocalLink(a, b), a < b ? +1 : -1);
    return;
  }
  if (fabric_ == Fabric::Boardfly) {
    // The target's path in the source's BFS tree, walked back from the target.
    const std::size_t n = static_cast<std::size_t>(dims_[0]) * dims_[1] * dims_[2];
    const std::size_t base = static_cast<std::size_t>(na.slice) * n;
    const std::size_t linkBase = static_cast<std::size_t>(na.slice) * boardflyLinksPerPod_;
    const std::size_t source = static_cast<std::size_t>(a) - base;
    const std::size_t first = out.size();
    for (std::size_t v = static_cast<std::size_t>(b) - base; v != source;) {
      const std::size_t id = linkBase + static_cast<std::size_t>(boardflyVia_[source * n + v]);
      const Link& link = links_[id];
      const bool forward = static_cast<std::size_t>(link.b) == v + base; // crossed from link.a to link.b
      out.emplace_back(static_cast<int>(id), forward ? +1 : -1);
      v = static_cast<std::size_t>(forward ? link.a : link.b) - base;
    }
    std::reverse(out.begin() + static_cast<std::ptrdiff_t>(first), out.end());
    return;
  }
  if (twisted_) {
    // The tree path 0 -> (b - a), replayed step by step from a.
    thread_local std::vector<int> steps;
    steps.clear();
    for (int v = twistedOffset(a, b); v != 0; v = twistParent_[static_cast<std::size_t>(v)])
      steps.push_back(twistStep_[static_cast<std::size_t>(v)]);
    int cur = a;
    for (auto it = steps.rbegin(); it != steps.rend(); ++it) {
      const auto d = static_cast<std::size_t>(*it / 2);
      if (*it % 2) {
        const int id = plusLink_[static_cast<std::size_t>(cur) * 3 + d];
        out.emplace_back(id, +1);
        cur = links_[static_cast<std::size_t>(id)].b;
      } else {
        const int id = minusLink_[static_cast<std::size_t>(cur) * 3 + d];
        out.emplace_back(id, -1);
        cur = links_[static_cast<std::size_t>(id)].a;
      }
    }
    return;
  }
  const int X = dims_[0], Y = dims_[1];
  const int base = a - (na.coords[0] + X * (na.coords[1] + Y * na.coords[2]));
  auto c = na.coords;
  auto nodeAt = [&](const std::array<int, 3>& p) { return base + p[0] + X * (p[1] + Y * p[2]); };
  for (std::size_t d = 0; d < 3; ++d) {
    const int k = dims_[d];
    int delta = nb.coords[d] - c[d];
    if (delta == 0) continue;
    int step = delta > 0 ? +1 : -1, count = std::abs(delta);
    if (wrap_[d] && k > 2) {
      const int fwd = ((delta % k) + k) % k, back = k - fwd;
      step = fwd <= back ? +1 : -1;
      count = std::min(fwd, back);
    }
    for (int i = 0; i < count; ++i) {
      if (step > 0) {
        out.emplace_back(plusLink_[static_cast<std::size_t>(nodeAt(c)) * 3 + d], +1);
        c[d] = (c[d] + 1) % k;
      } else {
        c[d] = (c[d] - 1 + k) % k;
        out.emplace_back(plusLink_[static_cast<std::size_t>(nodeAt(c)) * 3 + d], -1);
      }
    }
  }
}

int LinkGraph::iciDiameter() const { return impl_->iciDiameter; }

int LinkGraph::diameter() const { return std::max(impl_->iciDiameter, slices_ > 1 ? 2 : 0); }

namespace {
struct CacheEntry {
  TopologySpec spec;
  LinkParams params;
  std::shared_ptr<const LinkGraph> graph;
};
// A handful of recent graphs: enough for a GUI comparing layouts, small enough to never matter.
constexpr std::size_t kCacheSize = 8;
// Larger graphs (beyond any real pod) are built per call rather than pinned in memory.
constexpr std::size_t kCacheMaxNodes = std::size_t{1} << 17;
} // namespace

std::shared_ptr<const LinkGraph> cachedLinkGraph(const TopologySpec& spec, const LinkParams& params) {
  static std::mutex mutex;
  static std::vector<CacheEntry> cache;
  {
    std::lock_guard lock(mutex);
    for (std::size_t i = 0; i < cache.size(); ++i)
      if (cache[i].spec == spec && cache[i].params == params) {
        std::rotate(cache.begin(), cache.begin() + static_cast<std::ptrdiff_t>(i),
                    cache.begin() + static_cast<std::ptrdiff_t>(i) + 1);
        return cache.front().graph;
      }
  }
  // Built outside the lock: a large graph should not block readers of other entries.
  auto graph = std::make_shared<const LinkGraph>(makeDevices(spec), spec, params);
  if (graph->nodeCount() > kCacheMaxNodes) return graph;
  std::lock_guard lock(mutex);
  cache.insert(cache.begin(), {spec, params, graph});
  if (cache.size() > kCacheSize) cache.pop_back();
  return graph;
}

std::shared_ptr<const LinkGraph> cachedLinkGraph(const TopologySpec& spec) {
  return cachedLinkGraph(spec, defaultLinkParams(chipOf(spec)));
}

} // namespace shardscope
