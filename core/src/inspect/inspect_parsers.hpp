// SPDX-License-Identifier: Apache-2.0
// Internal: the pieces of the inspect readers that read from a TextCursor, so an error inside a
// shape, a group list or a Shardy attribute names its line and column in the whole file. The public
// one-string parsers (hlo_shape.hpp, replica_groups.hpp, sdy_sharding.hpp) wrap these.
#pragma once

#include "inspect/text_cursor.hpp"
#include "shardscope/inspect/hlo_shape.hpp"
#include "shardscope/inspect/replica_groups.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"

#include <string_view>
#include <vector>

namespace shardscope::inspect_detail {

// An HLO shape at the cursor (tuples, layouts, comments between tokens).
HloShape readHloShape(TextCursor& c);
// Past an HLO shape without building it: a '(' tuple taken whole, or `type[...]` and a layout.
void skipHloShape(TextCursor& c);

// HLO `replica_groups=` value: `{}`, `{{0,1},{2,3}}` or `[2,4]<=[2,4]T(1,0)`.
DeviceGroups readReplicaGroups(TextCursor& c);
// HLO `source_target_pairs=` value: `{{0,1},{1,2}}`.
std::vector<SourceTargetPair> readSourceTargetPairs(TextCursor& c);
// MLIR `dense<[[0, 1], [2, 3]]> : tensor<2x2xi64>` (also `dense<0>` splats and `dense<>`), as rows.
DeviceGroups readDenseGroups(TextCursor& c);

// A Shardy mesh body `<["a"=2, "b"=4], device_ids=[...]>` (the cursor at '<').
InspectMesh readSdyMeshBody(TextCursor& c);
// A Shardy sharding `<@mesh, [...], replicated={...}, unreduced={...}>` or with an inline
// `mesh<...>` (the cursor at '<').
SdySharding readSdyShardingBody(TextCursor& c);
// `{"a", "b":(2)2}` (the cursor at '{'); a '?' (last) sets *open when `allowOpen`, else is refused.
std::vector<SdyAxisRef> readSdyAxisList(TextCursor& c, bool allowOpen, bool* open);
// The Shardy round-trip meshes string `{mesh = #sdy.mesh<["a"=2]>, other = #sdy.mesh<...>}` (already
// unescaped), appended to `meshes` (at most 256 in all).
void readSdyMeshDict(TextCursor& c, std::vector<InspectMesh>& meshes);

} // namespace shardscope::inspect_detail
