// SPDX-License-Identifier: Apache-2.0
// The device groups a collective names, in the forms XLA prints:
//   replica_groups={{0,1,2,3},{4,5,6,7}}       explicit: one inner list per group, members in order
//   replica_groups={}                          one group of every device
//   replica_groups=[2,4]<=[2,4]T(1,0)          iota (IotaReplicaGroupList): iota(prod dims) reshaped
//                                              to dims, transposed by T, read row-major as [G,S]
//   source_target_pairs={{0,1},{1,2}}          collective-permute
// and StableHLO's `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>`.
// Worked iota example (XLA replica_group_test.cc): [2,10]<=[4,5]T(1,0) is
// {{0,5,10,15,1,6,11,16,2,7},{12,17,3,8,13,18,4,9,14,19}}.
#pragma once

#include "shardscope/base/nd_array.hpp"

#include <cstdint>
#include <string_view>
#include <vector>

namespace shardscope {

struct DeviceGroups {
  bool all_devices = false;        // `{}`: one group of every device (ids empty)
  std::int64_t group_size = 0;     // members of each group
  std::vector<std::int64_t> ids;   // group g is ids[g*group_size .. (g+1)*group_size)
  bool uneven = false;             // explicit groups of different sizes (ids hold them all, group_size the first)
  std::vector<std::int64_t> sizes; // when uneven: each group's size

  std::int64_t groupCount() const;
  bool operator==(const DeviceGroups&) const = default;
};

struct SourceTargetPair {
  std::int64_t source = 0;
  std::int64_t target = 0;
  bool operator==(const SourceTargetPair&) const = default;
};

// The iota form [G,S]<=[dims]T(perm) expanded. Throws ValueError when G*S differs from the product of
// dims, perm is not a permutation, or more than kMaxInspectDevices ids would be listed.
DeviceGroups iotaDeviceGroups(std::int64_t groups, std::int64_t size, const Shape& dims, const std::vector<int>& perm);

// One `replica_groups=` value; ValueError "replica groups:1:C: expected ..." for bad text. Ids are
// non-negative and below kMaxInspectDevices, at most kMaxInspectDevices ids in all.
DeviceGroups parseReplicaGroups(std::string_view text);
// One `source_target_pairs=` value.
std::vector<SourceTargetPair> parseSourceTargetPairs(std::string_view text);

} // namespace shardscope
