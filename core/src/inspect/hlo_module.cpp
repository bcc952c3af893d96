// SPDX-License-Identifier: Apache-2.0
// The HLO reader's second step: which computation is ENTRY, how often each computation runs (the
// call graph from ENTRY, while bodies multiplied by their known_trip_count, nested loops
// multiplied, a computation called from several places summed), and the ENTRY parameters and ROOT
// as arguments and results.
#include "inspect/hlo_reader.hpp"

#include "inspect/inspect_parsers.hpp"

#include <algorithm>

namespace shardscope::inspect_detail {

namespace {

constexpr std::int64_t kMaxCount = std::int64_t{1} << 62;

std::int64_t saturatedMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  return __builtin_mul_overflow(a, b, &r) || r > kMaxCount ? kMaxCount : r;
}

std::string memoryKind(const HloArrayShape& a) {
  if (!a.has_layout || a.memory_space == 0) return "device";
  if (a.memory_space == 5) return "host";
  return "S(" + std::to_string(a.memory_space) + ")";
}

} // namespace

std::vector<std::int64_t> HloReader::multiplicities(std::size_t entry, std::vector<char>& unknown) const {
  const std::size_t n = comps_.size();
  std::vector<std::vector<std::pair<std::size_t, const Call*>>> edges(n);
  for (std::size_t i = 0; i < n; ++i)
    for (const auto& call : comps_[i].calls)
      if (const auto it = index_.find(call.callee); it != index_.end()) edges[i].push_back({it->second, &call});
  // Depth-first post-order from ENTRY without recursion; a computation met again while on the
  // path calls itself, which HLO forbids.
  std::vector<char> state(n, 0); // 0 new, 1 on the path, 2 done
  std::vector<std::size_t> order;
  std::vector<std::pair<std::size_t, std::size_t>> stack{{entry, 0}};
  state[entry] = 1;
  while (!stack.empty()) {
    auto& [u, next] = stack.back();
    if (next == edges[u].size()) {
      state[u] = 2;
      order.push_back(u);
      stack.pop_back();
      continue;
    }
    const auto& [v, call] = edges[u][next++];
    if (state[v] == 1)
      c_.failAt(call->callee_pos, "computation '" + std::string(comps_[v].name.substr(0, 60)) + "' calls itself");
    if (state[v] == 0) {
      state[v] = 1;
      stack.push_back({v, 0});
    }
  }
  std::vector<std::int64_t> mult(n, 0);
  unknown.assign(n, 0);
  mult[entry] = 1;
  for (std::size_t k = order.size(); k-- > 0;) { // callers before callees
    const std::size_t u = order[k];
    for (const auto& [v, call] : edges[u]) {
      mult[v] = std::min(kMaxCount, mult[v] + saturatedMul(mult[u], call->factor));
      unknown[v] = unknown[v] || unknown[u] || call->unknown_trips;
    }
  }
  return mult;
}

void HloReader::finish() {
  std::size_t entry = comps_.size();
  for (std::size_t i = 0; i < comps_.size(); ++i) {
    if (!comps_[i].entry) continue;
    if (entry != comps_.size()) c_.failAt(comps_[i].start, "a second ENTRY computation");
    entry = i;
  }
  if (entry == comps_.size()) { // XLA's parser takes the last computation as ENTRY
    entry = comps_.size() - 1;
    entryOnly_ = true;
    c_.seek(comps_[entry].start);
    readComputation();
    entryOnly_ = false;
  }
  out_.local_shapes = scheduled_ || !sites_.empty();
  if (out_.local_shapes)
    out_.notes.push_back(std::string("shapes are per device: the module is ") +
                         (scheduled_ ? "scheduled (after optimizations)" : "partitioned (it holds collectives)"));
  out_.num_devices = replicas_ * partitions_;
  if (mesh_ && out_.num_devices == 1) out_.num_devices = mesh_->deviceCount();
  if (!mesh_ && out_.num_devices == 1) // the header leaves the counts out: the largest group tells
    for (const auto& c : sites_) out_.num_devices = std::max(out_.num_devices, c.group_size);
  if (mesh_ && out_.num_devices != mesh_->deviceCount())
    out_.notes.push_back("the mesh has " + std::to_string(mesh_->deviceCount()) + " devices but the module " +
                         std::to_string(out_.num_devices));
  std::vector<char> unknown;
  const std::vector<std::int64_t> mult = multiplicities(entry, unknown);
  std::vector<char> async(comps_.size(), 0);
  for (const auto& comp : comps_)
    for (const auto& call : comp.calls)
      if (const auto it = index_.find(call.callee); call.async && it != index_.end()) async[it->second] = 1;
  for (std::size_t i = 0; i < comps_.size(); ++i)
    for (const auto s : comps_[i].collectives) {
      InspectCollective& c = sites_[s];
      c.trip_count = std::max<std::int64_t>(1, mult[i]);
      c.async = c.async || async[i];
      const auto add = [&](const std::string& what) { c.note += (c.note.empty() ? "" : "; ") + what; };
      if (mult[i] == 0) add("not reached from ENTRY: counted once");
      if (unknown[i]) add("inside a while loop without known_trip_count: that loop counted once");
    }
  out_.collectives = std::move(sites_);
  addFlops(mult);
  std::stable_sort(params_.begin(), params_.end(), [](const Value& a, const Value& b) { return a.index < b.index; });
  for (const auto& p : params_) out_.arguments.push_back(valueArgument(p));
  addResults();
  for (auto& a : out_.arguments) a.function = std::string(comps_[entry].name);
  for (auto& r : out_.results) r.function = std::string(comps_[entry].name);
  out_.skipped_ops = skipped_.list();
}

void HloReader::addFlops(const std::vector<std::int64_t>& mult) {
  out_.flop_ops = flopOps_;
  if (flopOps_ == 0) return;
  double total = 0;
  for (std::size_t i = 0; i < comps_.size(); ++i) total += double(mult[i]) * comps_[i].flops;
  // A partitioned module's shapes are one device's; an unpartitioned one's are the whole program's,
  // split evenly over its devices.
  const std::int64_t devices = std::max<std::int64_t>(1, out_.num_devices);
  out_.flops_per_device = out_.local_shapes ? total : total / double(devices);
  if (!out_.local_shapes && devices > 1)
    out_.notes.push_back("FLOPs per device: the module's (global) FLOPs divided by its " + std::to_string(devices) +
                         " devices");
  if (flopOpsUnknown_ > 0)
    out_.notes.push_back(std::to_string(flopOpsUnknown_) + " dot/convolution(s) whose operand shapes are not known: "
                                                           "their FLOPs are not counted");
}

InspectArgument HloReader::arrayArgument(const HloArrayShape& a, const std::optional<HloSharding>& sharding) const {
  InspectArgument arg;
  arg.shape = a.dims;
  arg.dtype = a.type.dtype;
  arg.memory_kind = memoryKind(a);
  arg.bytes = a.bytes();
  arg.bytes_per_device = arg.bytes;
  if (out_.local_shapes && !a.tiles.empty()) arg.padded_bytes_per_device = a.paddedBytes();
  if (!sharding) return arg;
  if (sharding->kind == HloSharding::Kind::Tiled && sharding->dataRank() == a.dims.size() && arg.bytes) {
    // Blocks of ceil(n / tiles) per dimension, as XLA pads every device's buffer.
    HloArrayShape global = a, local = a;
    for (std::size_t d = 0; d < a.dims.size(); ++d) {
      const std::int64_t t = sharding->tile_dims[d];
      if (out_.local_shapes)
        global.dims[d] = saturatedMul(a.dims[d], t);
      else
        local.dims[d] = a.dims[d] / t + (a.dims[d] % t != 0 ? 1 : 0);
    }
    arg.bytes = global.bytes();
    arg.bytes_per_device = local.bytes();
  }
  if (mesh_) {
    HloShardingSpec spec = hloShardingSpec(*sharding, a.dims.size(), *mesh_);
    arg.spec = std::move(spec.spec);
    arg.replicated_axes = std::move(spec.replicated_axes);
    arg.note = std::move(spec.note);
  }
  return arg;
}

InspectArgument HloReader::valueArgument(const Value& v) const {
  const HloShape shape = readAt(v.shape, [](TextCursor& t) { return readHloShape(t); });
  std::optional<HloSharding> sharding;
  std::string note = v.sharding.empty() ? "no sharding" : "";
  if (!v.sharding.empty()) {
    try {
      sharding = parseHloSharding(v.sharding);
    } catch (const Error& e) {
      note = e.what(); // a sharding XLA writes that the reader does not know ({unknown}, named forms)
    }
  }
  InspectArgument arg;
  if (shape.is_tuple) {
    std::int64_t total = 0;
    for (const auto* leaf : shape.leaves()) total = std::min(kMaxCount, total + leaf->bytes().value_or(0));
    arg.bytes = total;
    note = "a tuple";
  } else {
    arg = arrayArgument(shape.array, sharding);
  }
  arg.index = v.index;
  const std::string opName = metadataOpName(v.op_name);
  arg.name = opName.empty() ? std::string(v.name) : opName;
  arg.sharding = std::string(v.sharding);
  if (arg.note.empty()) arg.note = note;
  return arg;
}

void HloReader::addResults() {
  if (!root_) return;
  const HloShape shape = readAt(root_->shape, [](TextCursor& t) { return readHloShape(t); });
  if (!shape.is_tuple) {
    InspectArgument r = valueArgument(*root_);
    r.name = std::string(root_->name);
    out_.results.push_back(std::move(r));
    return;
  }
  // A tuple ROOT: one result per array, each with its element of a tuple sharding.
  std::optional<HloSharding> sharding;
  try {
    if (!root_->sharding.empty()) sharding = parseHloSharding(root_->sharding);
  } catch (const Error&) {}
  const auto leaves = shape.leaves();
  const bool split =
      sharding && sharding->kind == HloSharding::Kind::Tuple && sharding->elements.size() == leaves.size();
  for (std::size_t i = 0; i < leaves.size() && i < 4096; ++i) {
    // A tuple sharding gives each array its element; one non-tuple sharding applies to all.
    std::optional<HloSharding> element;
    if (split)
      element = sharding->elements[i];
    else if (sharding && sharding->kind != HloSharding::Kind::Tuple)
      element = sharding;
    InspectArgument r = arrayArgument(*leaves[i], element);
    r.index = std::int64_t(i);
    r.name = std::string(root_->name) + "{" + std::to_string(i) + "}";
    if (element) r.sharding = hloShardingToString(*element);
    out_.results.push_back(std::move(r));
  }
}

} // namespace shardscope::inspect_detail
