// SPDX-License-Identifier: Apache-2.0
// Shardy's mesh and tensor sharding attributes as JAX's lowered StableHLO prints them
// (openxla/shardy attrs.td, parsers.cc):
//   <["data"=4, "model"=2], device_ids=[...]>      a mesh (`<[]>` empty, `<[], device_ids=[3]>` maximal)
//   #sdy.sharding<@mesh, [{"data"}, {}]>             one dimension sharding per tensor dimension
//   <@mesh, [{"a", ?}, {?}p1], replicated={"c"}, unreduced=max{"b"}>
//   <mesh<["x"=2]>, [{"x":(1)2}]>                    an inline mesh; "x":(m)k is a sub-axis
// A dimension lists its axes major to minor; `?` marks it open (propagation may add axes); `pN` is
// a propagation priority. Sub-axis "x":(m)k: axis x of size n reshaped to [m, k, n/(m*k)], the
// middle factor (a device's coordinate along it is (x div (n/(m*k))) mod k).
#pragma once

#include "shardscope/base/nd_array.hpp"
#include "shardscope/inspect/inspect_mesh.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace shardscope {

struct SdyAxisRef {
  std::string name;
  std::int64_t pre_size = 1; // sub-axis only
  std::int64_t size = 0;     // 0: the whole axis
  bool isSubAxis() const { return size != 0; }
  // "data" or "x:(2)4" (the spelling inspect reports; Shardy writes "x":(2)4).
  std::string text() const;
  bool operator==(const SdyAxisRef&) const = default;
};

struct SdyDimSharding {
  std::vector<SdyAxisRef> axes; // major to minor
  bool open = false;
  std::optional<std::int64_t> priority;
  bool operator==(const SdyDimSharding&) const = default;
};

struct SdySharding {
  std::string mesh_name; // "mesh" for @mesh; "" with an inline mesh
  std::optional<InspectMesh> inline_mesh;
  std::vector<SdyDimSharding> dims;
  std::vector<SdyAxisRef> replicated;
  std::vector<SdyAxisRef> unreduced;
  std::string unreduced_kind; // "sum", "max" or "min" when unreduced axes are given
  bool operator==(const SdySharding&) const = default;
};

// `#sdy.sharding<...>`, `#sdy.mesh<...>`-free sharding bodies `<...>` and
// `#sdy.sharding_per_value<[<...>, ...]>` (one per result). ValueError "Shardy sharding:1:C: ..." for
// bad text.
SdySharding parseSdySharding(std::string_view text);
std::vector<SdySharding> parseSdyShardingPerValue(std::string_view text);
// `<["a"=2], device_ids=[1, 0]>` or `#sdy.mesh<...>`; validated (validateInspectMesh).
InspectMesh parseSdyMesh(std::string_view text);

// What a sharding means on one array over `mesh`.
struct SdyPlacement {
  std::vector<std::vector<std::string>> spec; // per dimension, axes as SdyAxisRef::text
  std::vector<std::string> replicated_axes;   // every mesh axis (or sub-axis) neither sharding nor unreduced
  std::vector<std::string> unreduced_axes;
  Shape local_shape; // ceil(dim / product of its axes' sizes); -1 stays -1 (dynamic)
};
// Throws ValueError when an axis is not in the mesh, a sub-axis does not divide its axis, an axis
// is used twice, or the sharding's rank differs from the shape's. A maximal or empty mesh places the
// whole array (on one device / nowhere known).
SdyPlacement sdyPlacement(const SdySharding& sharding, const InspectMesh& mesh, const Shape& shape);

} // namespace shardscope
