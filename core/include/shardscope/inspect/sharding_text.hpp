// SPDX-License-Identifier: Apache-2.0
// A sharding as it stands in a dump or a lowered module, as XLA's HLO sharding text
// (sharding/hlo_sharding.hpp), for `decode-sharding`:
//   sharding={devices=[2,1]0,1}, metadata={op_name="x"}   an HLO instruction's attribute, cut
//   "{devices=[2,1]0,1}"                                    mhlo.sharding's quoted string (\" and \22 resolved)
//   #sdy.sharding<@mesh, [{"data"}, {}]>  <@mesh, [...]>    Shardy, on a mesh: the HLO sharding JAX
//                                                          lowers it to (device i = mesh position i,
//                                                          or the mesh's device_ids)
#pragma once

#include "shardscope/inspect/inspect_mesh.hpp"

#include <string>
#include <string_view>

namespace shardscope {

// Whether the text is a Shardy sharding (after an optional `sharding=` and quotes).
bool isShardySharding(std::string_view text);

// The HLO sharding text of `text`. A Shardy sharding needs `mesh` (its axes; the name it refers to
// is not checked) and becomes an explicit device list: per data dimension its axes (sub-axes
// split out), the axes it leaves (and unreduced ones) as a replicated last tile dimension. Throws
// ValueError for a Shardy sharding without a mesh, an axis the mesh lacks, a sub-axis that does
// not divide its axis, an axis used twice.
std::string hloShardingTextOf(std::string_view text, const InspectMesh* mesh);

} // namespace shardscope
