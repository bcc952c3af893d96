// SPDX-License-Identifier: Apache-2.0
// Lookups over one logical mesh (the views draw with them): each device's logical coordinates, its
// group along an axis (the devices that share every other coordinate: the members of that axis'
// collectives), and shard indices. Built once per analysis, O(devices x axes).
#pragma once

#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <string>
#include <vector>

namespace shardscope {

class MeshIndex {
public:
  MeshIndex() = default;
  explicit MeshIndex(const Mesh& mesh);

  int deviceCount() const { return deviceCount_; }
  int axisCount() const { return static_cast<int>(shape_.size()); }
  const Shape& shape() const { return shape_; }
  const std::vector<std::string>& axisNames() const { return names_; }
  int axisIndex(const std::string& name) const;

  // Coordinate of device position `pos` along `axis`; -1 when the device is not in the mesh.
  int coordinate(int pos, int axis) const;
  bool inMesh(int pos) const;
  // All coordinates except `axis`, flattened (AxisGroups' group order): equal ids share the axis'
  // collectives. -1 for a device not in the mesh or an unknown axis; 0 groups of an unknown axis.
  int groupId(int pos, int axis) const;
  int groupCount(int axis) const;
  // The devices of `pos`' group along `axis`, ordered by their coordinate on it.
  std::vector<int> groupMembers(int pos, int axis) const;
  // Every group along `axis` (groupCount(axis) of them, ordered as their groupId), each ordered by
  // the coordinate on it: the device sets of the axis' collectives. Empty for an unknown axis.
  std::vector<std::vector<int>> groups(int axis) const;
  // Which shard a device holds when an array is laid out by `spec`: mixed-radix over the mesh
  // axes the spec names, in order (a tuple's first member major); 0 = replicated. Names not in
  // this mesh, None members and UNCONSTRAINED split nothing.
  int shardId(int pos, const PartitionSpec& spec) const;
  int shardCount(const PartitionSpec& spec) const;

private:
  int deviceCount_ = 0;
  Shape shape_;
  std::vector<std::string> names_;
  std::vector<int> coords_;  // [pos * ndim + axis], -1 when the device is not in the grid
  std::vector<int> gridPos_; // the grid's device positions, row-major (for group lookups)
};

} // namespace shardscope
