// SPDX-License-Identifier: Apache-2.0
// The HLO sharding JAX lowers a NamedSharding to (jax/_src/named_sharding.py,
// named_sharding_to_xla_hlo_sharding), and the property that decoding it puts the same blocks on
// the same devices as our own layout (named_sharding, shard_blocks).
#include "shardscope/sharding/hlo_sharding_blocks.hpp"
#include "shardscope/sharding/shard_blocks.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace shardscope;

namespace {
std::string hloText(const MeshAxes& mesh, Shape shape, const char* spec) {
  const auto layout = layoutArray(mesh, shape, parseDType("float32"), PartitionSpec::parse(spec));
  return hloShardingToString(hloShardingOf(layout, mesh));
}
} // namespace

TEST_CASE("hlo sharding of a named sharding: JAX's worked example", "[hlo_sharding]") {
  // The comment in named_sharding_to_xla_hlo_sharding: mesh a,b,c,d = 2 each, shape (8,4,2,2),
  // P(None, ('d','b'), 'c'): dims [1,4,2,1,2], reshape [2,2,2,2], transpose [3,1,2,0]. By hand,
  // XLA's canonical form: reshape dims 1 and 2 are read in order (1, 2), so they merge into one
  // dim of 4: [2,4,2] with transpose [2,1,0].
  const MeshAxes mesh({"a", "b", "c", "d"}, {2, 2, 2, 2});
  CHECK(hloText(mesh, {8, 4, 2, 2}, "P(None, ('d', 'b'), 'c')") ==
        "{devices=[1,4,2,1,2]<=[2,4,2]T(2,1,0) last_tile_dim_replicate}");
}

TEST_CASE("hlo sharding of a named sharding: the strings XLA's own exporter expects", "[hlo_sharding]") {
  // xla/service/spmd/shardy/stablehlo_round_trip/export_shardings_test.cc (AttributeExporterTest):
  // Shardy mesh shardings converted to HloSharding, the same lowering JAX does for a NamedSharding.
  const MeshAxes xy({"x", "y"}, {2, 2});
  CHECK(hloText(xy, {8, 8}, "P('x', None)") == "{devices=[2,1,2]<=[4] last_tile_dim_replicate}");
  CHECK(hloText(xy, {8, 8}, "P(None, 'y')") == "{devices=[1,2,2]<=[2,2]T(1,0) last_tile_dim_replicate}");
  const MeshAxes xyz({"x", "y", "z"}, {2, 4, 4});
  CHECK(hloText(xyz, {8, 8}, "P(('x', 'y'), 'z')") == "{devices=[8,4]<=[32]}");
  CHECK(hloText(xyz, {8, 8}, "P(None, None)") == "{replicated}");
}

TEST_CASE("hlo sharding of a named sharding: common layouts", "[hlo_sharding]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 4});
  // Spec axes in mesh order: plain iota.
  CHECK(hloText(mesh, {8, 8}, "P('dp', 'tp')") == "{devices=[2,4]<=[8]}");
  CHECK(hloText(mesh, {8, 8}, "P(('dp', 'tp'))") == "{devices=[8,1]<=[8]}");
  // Reversed order: transpose (1,0) of the mesh shape [2,4].
  CHECK(hloText(mesh, {8, 8}, "P('tp', 'dp')") == "{devices=[4,2]<=[2,4]T(1,0)}");
  // dp unused: a replicated last tile dim of 2, and tp read first.
  CHECK(hloText(mesh, {8, 6}, "P('tp', None)") == "{devices=[4,1,2]<=[2,4]T(1,0) last_tile_dim_replicate}");
  // tp unused: already in mesh order.
  CHECK(hloText(mesh, {8, 6}, "P('dp')") == "{devices=[2,1,4]<=[8] last_tile_dim_replicate}");
  CHECK(hloText(mesh, {8, 6}, "P()") == "{replicated}");
  CHECK(hloText(mesh, {8, 6}, "P(None, None)") == "{replicated}");
  // Size-1 axes vanish (get_non_one_sized_mesh_spec): a 1 x 4 mesh is a 4 mesh.
  const MeshAxes thin({"dp", "tp"}, {1, 4});
  CHECK(hloText(thin, {8, 8}, "P('dp', 'tp')") == "{devices=[1,4]<=[4]}");
  CHECK(hloText(thin, {8, 8}, "P('dp')") == "{replicated}");
  // jax tests/pjit_test.py: a 2-device mesh, P('x') on a 2-d array prints {devices=[2,1]<=[2]}.
  CHECK(hloText(MeshAxes({"x"}, {2}), {8, 2}, "P('x')") == "{devices=[2,1]<=[2]}");
}

TEST_CASE("hlo sharding of a named sharding: decoding gives back the same blocks (random meshes)", "[hlo_sharding]") {
  std::mt19937 rng(17);
  const auto pick = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
  const std::vector<std::string> names = {"x", "y", "z"};
  int checked = 0;
  for (int trial = 0; trial < 400; ++trial) {
    // 1-3 axes of size 1-4, a rank 0-3 array of sizes 0-13.
    const int axes = pick(1, 3);
    std::vector<std::string> axisNames(names.begin(), names.begin() + axes);
    std::vector<std::int64_t> sizes;
    for (int a = 0; a < axes; ++a) sizes.push_back(pick(1, 4));
    const MeshAxes mesh(axisNames, sizes);
    const int rank = pick(0, 3);
    Shape shape;
    for (int d = 0; d < rank; ++d) shape.push_back(pick(0, 13));
    // Each axis goes to a random dimension or nowhere, in a random order.
    std::vector<int> order(static_cast<std::size_t>(axes));
    for (int a = 0; a < axes; ++a) order[static_cast<std::size_t>(a)] = a;
    std::shuffle(order.begin(), order.end(), rng);
    std::vector<std::vector<std::optional<std::string>>> members(static_cast<std::size_t>(rank));
    for (const int a : order) {
      const int d = pick(-1, rank - 1);
      if (d >= 0) members[static_cast<std::size_t>(d)].push_back(axisNames[static_cast<std::size_t>(a)]);
    }
    std::vector<SpecEntry> entries;
    for (auto& m : members)
      entries.push_back(m.empty() ? SpecEntry::none() : m.size() == 1 ? SpecEntry::axis(*m[0]) : SpecEntry::tuple(m));
    const PartitionSpec spec(entries);
    const auto layout = layoutArray(mesh, shape, parseDType("float32"), spec);
    const std::string text = hloShardingToString(hloShardingOf(layout, mesh));
    INFO("mesh " << mesh.describe() << " shape rank " << rank << " spec " << spec.toString() << " -> " << text);
    const auto decoded = decodeHloSharding(parseHloSharding(text), shape, mesh.deviceCount());
    REQUIRE(static_cast<std::int64_t>(decoded.devices.size()) == mesh.deviceCount());
    CHECK(decoded.replicated_tiles == layout.replication);
    for (std::size_t d = 0; d < layout.dims.size(); ++d) CHECK(decoded.tile_dims[d] == layout.dims[d].ways);
    // Every device: the same slice as our layout gives its grid position.
    for (std::int64_t p = 0; p < mesh.deviceCount(); ++p) {
      const auto& dev = decoded.devices[static_cast<std::size_t>(p)];
      REQUIRE(dev.device == p);
      CHECK(dev.index == deviceIndexRanges(layout, mesh, p));
    }
    // And the blocks in the shard views' form are shard_blocks' own: same slices, same replicas.
    const auto ours = shardBlocks(layout, mesh);
    const auto theirs = hloShardBlocks(decoded, shape, parseDType("float32")).blocks;
    REQUIRE(theirs.size() == ours.size());
    for (std::size_t b = 0; b < ours.size(); ++b) {
      CHECK(theirs[b].block == ours[b].block);
      CHECK(theirs[b].ranges == ours[b].ranges);
      CHECK(theirs[b].positions == ours[b].positions);
    }
    ++checked;
  }
  CHECK(checked == 400);
}
