// SPDX-License-Identifier: Apache-2.0
// shardBlocks: each block's slice and its replicas, checked against hand-worked layouts and
// against the per-device index map.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/shard_blocks.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
ArrayLayout lay(const MeshAxes& mesh, Shape shape, const char* spec) {
  return layoutArray(mesh, shape, parseDType("float32"), PartitionSpec::parse(spec));
}
} // namespace

TEST_CASE("shard blocks: rows over tp, replicated over dp", "[shard_blocks]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 4});
  const auto blocks = shardBlocks(lay(mesh, {8, 6}, "P('tp', None)"), mesh);
  REQUIRE(blocks.size() == 4);
  for (std::int64_t t = 0; t < 4; ++t) {
    const auto& b = blocks[static_cast<std::size_t>(t)];
    CHECK(b.block == Shape{t, 0});
    CHECK(b.ranges == std::vector<IndexRange>{{2 * t, 2 * t + 2}, {0, 6}});
    // Grid position dp * 4 + tp: both dp rows hold the block of their tp coordinate.
    CHECK(b.positions == std::vector<std::int64_t>{t, 4 + t});
  }
}

TEST_CASE("shard blocks: two axes on one dimension, major first", "[shard_blocks]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 4});
  const auto blocks = shardBlocks(lay(mesh, {16}, "P(('tp', 'dp'))"), mesh);
  REQUIRE(blocks.size() == 8);
  // Block index tp * 2 + dp; the device at (dp, tp) sits at grid position dp * 4 + tp.
  for (std::int64_t dp = 0; dp < 2; ++dp)
    for (std::int64_t tp = 0; tp < 4; ++tp) {
      const auto& b = blocks[static_cast<std::size_t>(tp * 2 + dp)];
      CHECK(b.positions == std::vector<std::int64_t>{dp * 4 + tp});
      CHECK(b.ranges[0] == IndexRange{(tp * 2 + dp) * 2, (tp * 2 + dp) * 2 + 2});
    }
}

TEST_CASE("shard blocks: ragged edges are short or empty", "[shard_blocks]") {
  const MeshAxes mesh({"tp"}, {4});
  const auto ten = shardBlocks(lay(mesh, {10}, "P('tp')"), mesh);
  REQUIRE(ten.size() == 4);
  CHECK(ten[0].ranges[0] == IndexRange{0, 3});
  CHECK(ten[2].ranges[0] == IndexRange{6, 9});
  CHECK(ten[3].ranges[0] == IndexRange{9, 10});
  const auto two = shardBlocks(lay(mesh, {2}, "P('tp')"), mesh);
  CHECK(two[1].ranges[0] == IndexRange{1, 2});
  CHECK(two[2].ranges[0] == IndexRange{2, 2});
  CHECK(two[3].ranges[0] == IndexRange{2, 2});
  CHECK(two[3].positions == std::vector<std::int64_t>{3});
}

TEST_CASE("shard blocks agree with the per-device index map", "[shard_blocks]") {
  const MeshAxes mesh({"data", "fsdp", "tp"}, {2, 3, 4});
  const ArrayLayout layout = lay(mesh, {7, 12, 5}, "P('fsdp', 'tp', None)");
  const auto blocks = shardBlocks(layout, mesh);
  const auto map = devicesIndicesMap(layout, mesh);
  REQUIRE(blocks.size() == 12);
  std::size_t listed = 0;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    CHECK(flatBlockIndex(layout, blocks[i].block) == static_cast<std::int64_t>(i));
    CHECK(blocks[i].positions.size() == 2); // replicated over data
    for (auto p : blocks[i].positions) CHECK(map[static_cast<std::size_t>(p)] == blocks[i].ranges);
    listed += blocks[i].positions.size();
  }
  CHECK(listed == 24); // every device exactly once
}

TEST_CASE("shard blocks: a replicated array is one block on every device, too many blocks are refused",
          "[shard_blocks]") {
  const MeshAxes mesh({"dp", "tp"}, {2, 4});
  const auto one = shardBlocks(lay(mesh, {3, 3}, "P()"), mesh);
  REQUIRE(one.size() == 1);
  CHECK(one[0].positions.size() == 8);
  CHECK(one[0].ranges == std::vector<IndexRange>{{0, 3}, {0, 3}});
  const MeshAxes big({"a", "b"}, {512, 256});
  CHECK_THROWS_WITH(shardBlocks(lay(big, {512, 256}, "P('a', 'b')"), big),
                    "the array is cut into 131072 blocks; at most 65536 can be listed");
}
