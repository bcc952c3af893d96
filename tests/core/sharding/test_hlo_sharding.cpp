// SPDX-License-Identifier: Apache-2.0
// HLO sharding text: XLA's own tile-assignment cases (xla/hlo/ir/tile_assignment_test.cc), strings
// XLA and JAX print in their tests (jax tests/array_test.py, shard_map_test.py, ifrt's
// sharding_conversions_test.cc), and hand-worked decodings.
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/hlo_sharding.hpp"
#include "shardscope/sharding/hlo_sharding_blocks.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
std::string roundTrip(const std::string& text) { return hloShardingToString(parseHloSharding(text)); }

std::vector<std::int64_t> devicesOf(const std::string& text) { return tileAssignmentDevices(parseHloSharding(text)); }

std::string errorOf(const std::string& text) {
  try {
    parseHloSharding(text);
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::ValueError);
    return e.what();
  }
  return "(no error)";
}
} // namespace

TEST_CASE("hlo sharding: iota canonical form as XLA's IotaTileAssignment::Create", "[hlo_sharding]") {
  // tile_assignment_test.cc, IotaTileAssignmentTest.Create.
  CHECK(canonicalIota({3, 4}, {0, 1}) == IotaTiles{{12}, {0}});
  CHECK(canonicalIota({1, 3, 1, 4, 1, 5}, {4, 3, 2, 5, 1, 0}) == IotaTiles{{3, 20}, {1, 0}});
  CHECK(canonicalIota({2, 3, 4}, {0, 1, 2}) == IotaTiles{{24}, {0}});
  CHECK(canonicalIota({2, 3, 4}, {1, 0, 2}) == IotaTiles{{2, 3, 4}, {1, 0, 2}});
  // The examples in the comment of XLA's CanonicalizeIotaDims.
  CHECK(canonicalIota({3, 4, 5}, {2, 1, 0}) == IotaTiles{{3, 4, 5}, {2, 1, 0}});
  CHECK(canonicalIota({3, 4, 5}, {1, 2, 0}) == IotaTiles{{3, 20}, {1, 0}});
  CHECK(canonicalIota({3, 4, 5}, {2, 0, 1}) == IotaTiles{{12, 5}, {1, 0}});
  // All ones: [1].
  CHECK(canonicalIota({1, 1}, {1, 0}) == IotaTiles{{1}, {0}});
}

TEST_CASE("hlo sharding: iota text as XLA prints it", "[hlo_sharding]") {
  // IotaTileAssignmentTest.ToString and TileAssignmentTest.FromIota.
  CHECK(roundTrip("{devices=[2,3]<=[6]}") == "{devices=[2,3]<=[6]}");
  CHECK(roundTrip("{devices=[2,6]<=[3,4]}") == "{devices=[2,6]<=[12]}");
  CHECK(roundTrip("{devices=[3,4,5]<=[3,4,5]T(2,0,1)}") == "{devices=[3,4,5]<=[12,5]T(1,0)}");
  // jax tests/array_test.py test_hlo_sharding_get_axis_sizes: already canonical, printed as given.
  CHECK(roundTrip("{devices=[6,35]<=[7,10,3]T(2,1,0)}") == "{devices=[6,35]<=[7,10,3]T(2,1,0)}");
  // jax tests/shard_map_test.py: what XLA prints for a partially manual sharding.
  CHECK(roundTrip("{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}") ==
        "{devices=[1,1,2,2]<=[4] last_tile_dims={manual, replicated}}");
  CHECK(roundTrip("{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual,replicated}}") ==
        "{devices=[1,1,4,2]<=[2,4]T(1,0) last_tile_dims={manual, replicated}}");
  // V1 lists, kinds and tuples print back as written (whitespace normalised).
  CHECK(roundTrip("{ devices=[2,1,3]0,1,2,3,4,5   last_tile_dim_replicate }") ==
        "{devices=[2,1,3]0,1,2,3,4,5 last_tile_dim_replicate}");
  CHECK(roundTrip("{devices=[4]0,2,1,3}") == "{devices=[4]0,2,1,3}");
  CHECK(roundTrip("{replicated}") == "{replicated}");
  CHECK(roundTrip("{manual}") == "{manual}");
  CHECK(roundTrip("{maximal device=5}") == "{maximal device=5}");
  CHECK(roundTrip("{device=5 maximal}") == "{maximal device=5}");
  CHECK(roundTrip("{{replicated},{maximal device=1}, {devices=[2]<=[2]}}") ==
        "{{replicated}, {maximal device=1}, {devices=[2]<=[2]}}");
  // metadata is skipped, braces and quotes inside it included.
  CHECK(roundTrip("{devices=[2]1,0 metadata={op_name=\"jit(f)/{x}\" source_line=3}}") == "{devices=[2]1,0}");
}

TEST_CASE("hlo sharding: iota device lists as XLA materialises them", "[hlo_sharding]") {
  // IotaTileAssignmentTest.ToArray: [2,3]<=[6] is 0..5; [3,2]<=[2,3]T(1,0) is {{0,3},{1,4},{2,5}}.
  CHECK(devicesOf("{devices=[2,3]<=[6]}") == std::vector<std::int64_t>{0, 1, 2, 3, 4, 5});
  CHECK(devicesOf("{devices=[3,2]<=[2,3]T(1,0)}") == std::vector<std::int64_t>{0, 3, 1, 4, 2, 5});
  // [3,4,5]<=[3,4,5]T(2,0,1): numpy's arange(60).reshape(3,4,5).transpose(2,0,1), read flat.
  // Element (i,j,k) of the transposed array is the original (j,k,i) = j*20 + k*5 + i.
  std::vector<std::int64_t> expected;
  for (std::int64_t i = 0; i < 5; ++i)
    for (std::int64_t j = 0; j < 3; ++j)
      for (std::int64_t k = 0; k < 4; ++k) expected.push_back(j * 20 + k * 5 + i);
  CHECK(devicesOf("{devices=[3,4,5]<=[3,4,5]T(2,0,1)}") == expected);
  // IotaTileAssignmentTest.ValueAt ([3,2]<=[2,3]T(1,0)): (0,1) -> 3, (1,0) -> 1, (2,1) -> 5.
  const IotaTiles t = canonicalIota({2, 3}, {1, 0});
  CHECK(iotaValueAt(t, 0 * 2 + 1) == 3);
  CHECK(iotaValueAt(t, 1 * 2 + 0) == 1);
  CHECK(iotaValueAt(t, 2 * 2 + 1) == 5);
  // TileAssignmentTest.Reshape: [2,6]<=[12] read as [3,4] has 5 at (1,1).
  CHECK(devicesOf("{devices=[3,4]<=[12]}")[1 * 4 + 1] == 5);
  // The example: [2,4]<=[4,2]T(1,0) = arange(8).reshape(4,2).T: rows 0,2,4,6 and 1,3,5,7.
  CHECK(devicesOf("{devices=[2,4]<=[4,2]T(1,0)}") == std::vector<std::int64_t>{0, 2, 4, 6, 1, 3, 5, 7});
}

TEST_CASE("hlo sharding: decode gives each device its block", "[hlo_sharding]") {
  SECTION("V2 iota, even split") {
    // [4,2]<=[8]: device k at tile (k/2, k%2); 8192/4 = 2048 rows, 28672/2 = 14336 columns.
    const auto d = decodeHloSharding(parseHloSharding("{devices=[4,2]<=[8]}"), {8192, 28672});
    CHECK(d.tile_dims == Shape{4, 2});
    CHECK(d.replicated_tiles == 1);
    REQUIRE(d.devices.size() == 8);
    CHECK(d.devices[5].device == 5);
    CHECK(d.devices[5].index == std::vector<IndexRange>{{4096, 6144}, {14336, 28672}});
  }
  SECTION("transposed iota") {
    // Device 2 sits at tile (0,1), device 1 at (1,0) (see the device list above).
    const auto d = decodeHloSharding(parseHloSharding("{devices=[2,4]<=[4,2]T(1,0)}"), {4, 8});
    CHECK(d.devices[2].index == std::vector<IndexRange>{{0, 2}, {2, 4}});
    CHECK(d.devices[1].index == std::vector<IndexRange>{{2, 4}, {0, 2}});
  }
  SECTION("replicated last tile dim") {
    // [2,1,4]<=[8]: device k at (k/4, 0, k%4); 4 devices share each half of the rows.
    const auto d = decodeHloSharding(parseHloSharding("{devices=[2,1,4]<=[8] last_tile_dim_replicate}"), {8, 6}, 8);
    CHECK(d.tile_dims == Shape{2, 1});
    CHECK(d.replicated_tiles == 4);
    for (std::int64_t k = 0; k < 8; ++k)
      CHECK(d.devices[static_cast<std::size_t>(k)].index ==
            std::vector<IndexRange>{{4 * (k / 4), 4 * (k / 4) + 4}, {0, 6}});
  }
  SECTION("V1 list: three data dims") {
    // [2,1,4] over ids 0..7 listed row-major: id 6 at (1,0,2).
    const auto d = decodeHloSharding(parseHloSharding("{devices=[2,1,4]0,1,2,3,4,5,6,7}"), {2, 3, 8});
    CHECK(d.devices[6].block == Shape{1, 0, 2});
    CHECK(d.devices[6].index == std::vector<IndexRange>{{1, 2}, {0, 3}, {4, 6}});
  }
  SECTION("ragged and empty blocks") {
    // 10 over 4 tiles: ceil 3 -> [0,3) [3,6) [6,9) [9,10); 2 over 4: [0,1) [1,2) [2,2) [2,2).
    const auto d = decodeHloSharding(parseHloSharding("{devices=[4,1]3,2,1,0}"), {10, 5});
    CHECK(d.devices[3].index[0] == IndexRange{0, 3});
    CHECK(d.devices[0].index[0] == IndexRange{9, 10});
    const auto e = decodeHloSharding(parseHloSharding("{devices=[4]<=[4]}"), {2});
    CHECK(e.devices[1].index[0] == IndexRange{1, 2});
    CHECK(e.devices[2].index[0] == IndexRange{2, 2});
    CHECK(e.devices[3].index[0] == IndexRange{2, 2});
  }
  SECTION("whole-array kinds") {
    const auto r = decodeHloSharding(parseHloSharding("{replicated}"), {4, 4}, 3);
    CHECK(r.replicated_tiles == 3);
    REQUIRE(r.devices.size() == 3);
    CHECK(r.devices[2].index == std::vector<IndexRange>{{0, 4}, {0, 4}});
    const auto m = decodeHloSharding(parseHloSharding("{maximal device=3}"), {7});
    REQUIRE(m.devices.size() == 1);
    CHECK(m.devices[0].device == 3);
    CHECK(m.devices[0].index[0] == IndexRange{0, 7});
  }
}

TEST_CASE("hlo sharding: decode refuses what does not fit", "[hlo_sharding]") {
  const auto fails = [](const char* text, Shape shape, std::int64_t devices, const char* what) {
    try {
      decodeHloSharding(parseHloSharding(text), shape, devices);
      FAIL("no error for " << text);
    } catch (const Error& e) {
      CHECK_THAT(e.what(), Catch::Contains(what));
    }
  };
  fails("{devices=[2,2]<=[4]}", {4}, 0, "tiles 2 dimensions but the shape has 1");
  fails("{devices=[2,2]<=[4]}", {4, 4}, 8, "names 4 devices but there are 8");
  fails("{replicated}", {4}, 0, "give the device count");
  fails("{maximal device=9}", {4}, 8, "maximal device=9 but there are 8");
  fails("{{replicated}, {replicated}}", {4}, 2, "decode one element");
  fails("{devices=[2]<=[2]}", {-1}, 0, "shape dimension 0 must be between 0 and 2^62, got -1");
  fails("{devices=[2]<=[2]}", {(std::int64_t{1} << 62) + 1}, 0, "must be between 0 and 2^62");
}

TEST_CASE("hlo sharding: bad text names the column and what was expected", "[hlo_sharding]") {
  CHECK(errorOf("{devices=[2,x]0,1}") ==
        "HLO sharding, column 13: expected a size in the tile dimensions, got 'x]0,1}'");
  CHECK(errorOf("replicated") == "HLO sharding, column 1: expected '{' opening a sharding, got 'replicated'");
  CHECK(errorOf("{replicated") ==
        "HLO sharding, column 12: expected '}' closing the sharding, got the end of the text");
  CHECK(errorOf("{replicated} x") ==
        "HLO sharding, column 14: expected the end of the text after the sharding, got 'x'");
  CHECK(errorOf("{devices=[2,2]0,1,2}") ==
        "HLO sharding, column 10: the tile dimensions hold 4 devices but 3 are listed");
  CHECK(errorOf("{devices=[2]0,1,2}") == "HLO sharding, column 17: more device ids than the 2 tiles");
  CHECK(errorOf("{devices=[2]0,0}") == "HLO sharding, column 15: device 0 is listed twice");
  CHECK(errorOf("{devices=[4]<=[3]}") ==
        "HLO sharding, column 15: the iota reshape dimensions hold 3 devices but the tile dimensions 4");
  CHECK(errorOf("{devices=[4]<=[2,2]T(0,0)}") == "HLO sharding, column 24: the transpose names dimension 0 twice");
  CHECK(errorOf("{devices=[4]<=[2,2]T(0)}") ==
        "HLO sharding, column 21: the transpose has 1 entries for 2 reshape dimensions");
  CHECK(errorOf("{devices=[4]<=[2,2]T(2,0)}") ==
        "HLO sharding, column 22: a reshape dimension number in the transpose must be below 2");
  CHECK(errorOf("{devices=[0]}") == "HLO sharding, column 11: a size in the tile dimensions must be at least 1");
  CHECK(errorOf("{replicated shard_as 1}") == "HLO sharding, column 13: attribute 'shard_as' is not supported");
  CHECK(errorOf("{replicated manual}") ==
        "HLO sharding, column 13: a sharding has one kind (replicated, manual, maximal or devices=), this one two");
  CHECK(errorOf("{maximal}") == "HLO sharding, column 1: maximal needs device=N");
  CHECK(errorOf("{replicated device=1}") == "HLO sharding, column 13: device= belongs only to maximal");
  CHECK(errorOf("{replicated last_tile_dim_replicate}") ==
        "HLO sharding, column 13: subgroups (last_tile_dim*) need devices=");
  CHECK(errorOf("{devices=[2]<=[2] last_tile_dims={manual, other}}") ==
        "HLO sharding, column 43: subgroup type 'other' is not supported (replicated or manual)");
  CHECK(errorOf("{devices=[2]<=[2] last_tile_dims={manual, replicated}}") ==
        "HLO sharding, column 19: 2 subgroup dimensions but only 1 tile dimensions");
  CHECK(errorOf("{}") ==
        "HLO sharding, column 2: expected a sharding kind (replicated, manual, maximal or devices=), got '}'");
  CHECK(errorOf("{devices=[2]0,1 metadata={op_name=\"x}") ==
        "HLO sharding, column 26: metadata has an unterminated string");
}

TEST_CASE("hlo sharding: sizes are bounded before anything is allocated", "[hlo_sharding]") {
  // 2^20 + 1 in one dim, 2048 x 2048 = 2^22 tiles, 65 dims, an id of 2^20, 17 nested tuples.
  CHECK_THAT(errorOf("{devices=[1048577]<=[1048577]}"), Catch::Contains("must be below 1048577"));
  CHECK_THAT(errorOf("{devices=[2048,2048]<=[4194304]}"), Catch::Contains("name more than 1048576 devices"));
  std::string ones = "{devices=[1";
  for (int i = 0; i < 64; ++i) ones += ",1";
  CHECK_THAT(errorOf(ones + "]0}"), Catch::Contains("more than 64 tile dimensions"));
  CHECK_THAT(errorOf("{devices=[1]1048576}"), Catch::Contains("a device id must be below 1048576"));
  // The innermost of 18 braces sits in 17 tuples; 16 are allowed.
  CHECK_THAT(errorOf(std::string(18, '{') + "replicated" + std::string(18, '}')),
             Catch::Contains("tuples nest more than 16 deep"));
  CHECK(errorOf(std::string(17, '{') + "replicated" + std::string(17, '}')) == "(no error)");
  // At the limits themselves: 2^20 tiles in an iota parse (and are not listed).
  const auto big = parseHloSharding("{devices=[1024,1024]<=[1048576]}");
  CHECK(big.tileCount() == 1048576);
}

TEST_CASE("hlo sharding: decoded blocks in the shard views' form", "[hlo_sharding]") {
  // [2,1,2]<=[4] with a replicated last dim on [5,3]: rows cut in ceil(5/2) = 3 -> [0,3) on devices
  // 0,1 and the ragged [3,5) on 2,3; columns whole.
  const Shape shape{5, 3};
  const auto decoded = decodeHloSharding(parseHloSharding("{devices=[2,1,2]<=[4] last_tile_dim_replicate}"), shape, 4);
  const HloBlocks b = hloShardBlocks(decoded, shape, parseDType("bfloat16"));
  CHECK(b.layout.shards == 2);
  CHECK(b.layout.replication == 2);
  CHECK(b.layout.uneven);
  CHECK(b.layout.shard_shape == Shape{3, 3});
  CHECK(b.layout.shard_bytes == 3 * 3 * 2);
  REQUIRE(b.blocks.size() == 2);
  CHECK(b.blocks[0].ranges == std::vector<IndexRange>{{0, 3}, {0, 3}});
  CHECK(b.blocks[0].positions == std::vector<std::int64_t>{0, 1});
  CHECK(b.blocks[1].ranges == std::vector<IndexRange>{{3, 5}, {0, 3}});
  CHECK(b.blocks[1].positions == std::vector<std::int64_t>{2, 3});
}
