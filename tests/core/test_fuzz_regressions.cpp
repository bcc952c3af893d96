// Inputs the libFuzzer targets (fuzz/) found, kept as regression tests. Each test replays the exact
// bytes from tests/data/fuzz-regressions/ through the same calls as the target that found them.
#include "shardscope/errors.hpp"
#include "shardscope/partition_spec.hpp"

#include <catch2/catch.hpp>

#include <fstream>
#include <iterator>
#include <string>

using namespace shardscope;

namespace {

std::string finding(const char* name) {
  std::ifstream in(std::string(SHARDSCOPE_TEST_DATA "/fuzz-regressions/") + name, std::ios::binary);
  REQUIRE(in);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

} // namespace

TEST_CASE("fuzz regression: a spec holding the axis '' prints to text that reads back", "[fuzz][partition_spec]") {
  // [null, "tp", [""]]: the 1-element list canonicalises to the axis "" (JAX keeps it), but the
  // short text printed it as '', which reads back as None.
  const PartitionSpec spec = PartitionSpec::parse(finding("partition-spec-empty-axis-roundtrip.bin"));
  REQUIRE(spec.size() == 3);
  CHECK(spec[2] == SpecEntry::axis(""));
  CHECK(spec.toString() == "P(None, 'tp', ('',))");
  CHECK(PartitionSpec::parse(spec.toString()) == spec);
  CHECK(spec.toJson() == Json::parse(R"([null, "tp", [""]])"));
  CHECK(PartitionSpec::fromJson(spec.toJson()) == spec);
  CHECK(spec.repr() == "PartitionSpec(None, 'tp', '')");
}

TEST_CASE("fuzz regression: JSON partition specs are depth-bounded", "[fuzz][partition_spec]") {
  REQUIRE_THROWS_WITH(PartitionSpec::parse(std::string(100000, '[')), Catch::Matchers::Equals("partition spec nests deeper than 128 levels"));
  REQUIRE_THROWS_WITH(PartitionSpec::parse("[\"tp\""), Catch::Matchers::StartsWith("partition spec is not valid JSON: "));
}
