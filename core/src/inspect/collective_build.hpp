// SPDX-License-Identifier: Apache-2.0
// Internal: what the HLO and StableHLO readers share once they have found a collective: the bytes
// convention (inspect_result.hpp, InspectCollective) and the groups' mesh axes, resolved once per
// distinct group text (a module repeats the same few replica_groups thousands of times).
#pragma once

#include "shardscope/inspect/collective_axes.hpp"
#include "shardscope/inspect/inspect_result.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace shardscope::inspect_detail {

// Fills buffer_bytes, bytes_per_device and cost_bytes from the bytes of the instruction's payload
// (its result per device: the gathered output of an all-gather, the scattered output of a
// reduce-scatter) and group_size. `moves`: false for a permute whose pairs are all self pairs.
void setCollectiveBytes(InspectCollective& c, std::int64_t payloadBytes, bool moves = true);

// What one group list means on the mesh.
struct ResolvedGroups {
  std::int64_t group_size = 0;
  std::int64_t group_count = 0;
  std::optional<std::vector<std::string>> axes;
  std::string note;
  bool no_fit = false; // fits no order of the mesh (the device-order flag looks at these)
};

class GroupResolver {
public:
  // `mesh`: nullptr when none is known; `devices`: the program's device count for `{}` (0 unknown).
  GroupResolver(const InspectMesh* mesh, std::int64_t devices) : mesh_(mesh), devices_(devices) {}
  void setDevices(std::int64_t devices) { devices_ = devices; }

  // The groups under `key` (their text) if already resolved.
  const ResolvedGroups* find(std::string_view key) const;
  const ResolvedGroups& add(std::string_view key, const DeviceGroups& groups);
  // Permute pairs: group size = distinct devices named, axes = the axes the pairs move along.
  ResolvedGroups resolvePairs(const std::vector<SourceTargetPair>& pairs) const;
  // Groups that fit no order of the mesh, one per distinct text (for the device-order flag).
  const std::vector<DeviceGroups>& unfitted() const { return unfitted_; }

private:
  const InspectMesh* mesh_;
  std::int64_t devices_;
  std::unordered_map<std::string, ResolvedGroups> memo_;
  std::vector<DeviceGroups> unfitted_;
};

// Counts opcodes a reader does not know (at most 256 distinct names; more are counted as "...").
class SkippedOps {
public:
  void add(std::string_view op);
  std::vector<InspectSkippedOp> list() const;

private:
  std::vector<InspectSkippedOp> ops_;
  std::unordered_map<std::string, std::size_t> index_;
};

// Flags collectives whose groups fit no order of `mesh` (once per result), naming an order of the
// mesh's axes they would fit when there is one (inspect.cpp).
void addDeviceOrderFlag(InspectResult& result, const GroupResolver& groups, const InspectMesh* mesh);

} // namespace shardscope::inspect_detail
