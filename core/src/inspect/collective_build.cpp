// SPDX-License-Identifier: Apache-2.0
#include "inspect/collective_build.hpp"

#include <algorithm>
#include <limits>
#include <unordered_set>

namespace shardscope::inspect_detail {

namespace {

// a * num / den without overflow, clamped to int64.
std::int64_t scaled(std::int64_t a, std::int64_t num, std::int64_t den) {
  if (den <= 0) return 0;
  std::int64_t product = 0;
  if (!__builtin_mul_overflow(a, num, &product)) return product / den;
  const double v = double(a) * double(num) / double(den); // past 2^63: approximate, then clamped
  return v >= 9.2e18 ? std::numeric_limits<std::int64_t>::max() : static_cast<std::int64_t>(v);
}

} // namespace

void setCollectiveBytes(InspectCollective& c, std::int64_t payload, bool moves) {
  const std::int64_t n = c.group_size;
  const std::int64_t others = n > 0 ? n - 1 : 0;
  switch (c.op) {
  case InspectCollectiveOp::AllGather: // each device receives the (n-1) shards it lacks of the output
    c.buffer_bytes = payload;
    c.cost_bytes = payload;
    c.bytes_per_device = scaled(payload, others, n);
    break;
  case InspectCollectiveOp::ReduceScatter: // the input is n outputs; each device sends n-1 of them
    c.buffer_bytes = scaled(payload, std::max<std::int64_t>(n, 1), 1);
    c.cost_bytes = c.buffer_bytes;
    c.bytes_per_device = scaled(payload, others, 1);
    break;
  case InspectCollectiveOp::AllReduce: // a reduce-scatter and an all-gather of the buffer
    c.buffer_bytes = payload;
    c.cost_bytes = payload;
    c.bytes_per_device = scaled(payload, 2 * others, n);
    break;
  case InspectCollectiveOp::AllToAll:
  case InspectCollectiveOp::RaggedAllToAll: // n-1 of the n chunks leave each device
    c.buffer_bytes = payload;
    c.cost_bytes = scaled(payload, std::max<std::int64_t>(n, 1), 1);
    c.bytes_per_device = scaled(payload, others, n);
    break;
  case InspectCollectiveOp::CollectivePermute:
  case InspectCollectiveOp::CollectiveBroadcast: // the buffer once
    c.buffer_bytes = payload;
    c.cost_bytes = payload;
    c.bytes_per_device = moves ? payload : 0;
    break;
  }
}

const ResolvedGroups* GroupResolver::find(std::string_view key) const {
  const auto it = memo_.find(std::string(key));
  return it == memo_.end() ? nullptr : &it->second;
}

const ResolvedGroups& GroupResolver::add(std::string_view key, const DeviceGroups& groups) {
  ResolvedGroups r;
  if (groups.all_devices) {
    r.group_size = mesh_ ? mesh_->deviceCount() : devices_;
    r.group_count = 1;
  } else {
    r.group_size = groups.group_size;
    r.group_count = groups.groupCount();
  }
  if (!mesh_) {
    r.note = "no mesh: give one (--mesh) to name the axes";
  } else {
    const GroupSpan span = spanOfGroups(groups, *mesh_);
    r.axes = spannedAxes(span, *mesh_);
    r.note = spanNote(span, *mesh_);
    r.no_fit = span.fit == GroupSpan::Fit::NoFit;
    // Kept for the device-order flag's search over axis orders (meshes of at most 2^16 devices).
    if (r.no_fit && unfitted_.size() < 8 && groups.ids.size() <= (std::size_t{1} << 16)) unfitted_.push_back(groups);
  }
  return memo_.emplace(std::string(key), std::move(r)).first->second;
}

ResolvedGroups GroupResolver::resolvePairs(const std::vector<SourceTargetPair>& pairs) const {
  ResolvedGroups r;
  std::unordered_set<std::int64_t> devices;
  for (const auto& p : pairs) {
    devices.insert(p.source);
    devices.insert(p.target);
  }
  r.group_size = std::int64_t(devices.size());
  r.group_count = std::int64_t(pairs.size());
  if (!mesh_) {
    r.note = "no mesh: give one (--mesh) to name the axes";
    return r;
  }
  r.axes = permuteAxes(pairs, *mesh_);
  if (!r.axes) r.note = "the pairs name devices outside the mesh " + mesh_->describe();
  return r;
}

void SkippedOps::add(std::string_view op) {
  constexpr std::size_t kMaxNames = 256;
  auto it = index_.find(std::string(op));
  if (it == index_.end()) {
    if (ops_.size() >= kMaxNames) op = "...";
    it = index_.find(std::string(op));
    if (it == index_.end()) {
      it = index_.emplace(std::string(op), ops_.size()).first;
      ops_.push_back({std::string(op.substr(0, 64)), 0});
    }
  }
  ++ops_[it->second].count;
}

std::vector<InspectSkippedOp> SkippedOps::list() const { return ops_; }

} // namespace shardscope::inspect_detail
