// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/dtype.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/partition_spec.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {
PartitionSpec js(const char* text) { return PartitionSpec::fromJson(Json::parse(text)); }
} // namespace

TEST_CASE("PartitionSpec keeps JAX's P() vs P(None) distinction", "[partition_spec]") {
  CHECK(js("[]") != js("[null]"));
  CHECK(js("[null]") != js("[null, null]"));
  CHECK(js("[]").empty());
  CHECK(js("[null]").size() == 1);
  CHECK(js("[]").isReplicated());
  CHECK(js("[null, null]").isReplicated());
  CHECK_FALSE(js("[null, \"tp\"]").isReplicated());
}

TEST_CASE("PartitionSpec canonicalises entries as JAX does", "[partition_spec]") {
  // Falsy entries become None.
  CHECK(js("[\"\", \"tp\"]") == js("[null, \"tp\"]"));
  CHECK(js("[[], \"tp\"]") == js("[null, \"tp\"]"));
  CHECK(js("[false, 0]") == js("[null, null]"));
  // One-element lists collapse, even to "" (JAX returns the element itself).
  CHECK(js("[[\"fsdp\"]]") == js("[\"fsdp\"]"));
  CHECK(js("[[null]]") == js("[null]"));
  CHECK(js("[[\"\"]]").toJson() == Json::parse("[\"\"]"));
  // Longer lists become tuples whose members are kept as given.
  CHECK(js("[[\"dp\", null]]").toJson() == Json::parse("[[\"dp\", null]]"));
  CHECK(js("[[\"fsdp\", \"sp\"], \"tp\"]")[0].kind == SpecEntry::Kind::Tuple);
}

TEST_CASE("PartitionSpec rejects nested tuples with JAX's message", "[partition_spec]") {
  CHECK_THROWS_WITH(js("[[[\"a\"], \"b\"]]"),
                    "A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: (('a',), 'b') and the "
                    "nested tuple: ('a',)");
  // Even a one-element outer list is checked before it collapses.
  CHECK_THROWS_WITH(js("[[[\"a\", \"b\"]]]"),
                    "A tuple inside PartitionSpec cannot contain a nested tuple. Got partition: (('a', 'b'),) and the "
                    "nested tuple: ('a', 'b')");
  CHECK_THROWS_AS(js("[5]"), Error);
  CHECK_THROWS_AS(js("\"tp\""), Error);
}

TEST_CASE("PartitionSpec prints the short form and JAX's repr", "[partition_spec]") {
  const auto s = js("[\"fsdp\", [\"tp\", \"sp\"], null]");
  CHECK(s.toString() == "P('fsdp', ('tp', 'sp'), None)");
  CHECK(s.repr() == "PartitionSpec('fsdp', ('tp', 'sp'), None)");
  CHECK(js("[\"dp\"]").repr() == "PartitionSpec('dp',)");
  CHECK(js("[]").repr() == "PartitionSpec()");
  CHECK(js("[]").toString() == "P()");
  CHECK(pythonStrRepr("it's") == "\"it's\"");
}

TEST_CASE("PartitionSpec parses text forms", "[partition_spec]") {
  CHECK(PartitionSpec::parse("P('fsdp', ('tp', 'sp'), None)") == js("[\"fsdp\", [\"tp\", \"sp\"], null]"));
  CHECK(PartitionSpec::parse("PartitionSpec(\"dp\",)") == js("[\"dp\"]"));
  CHECK(PartitionSpec::parse("P()").empty());
  CHECK(PartitionSpec::parse("P(None)") == js("[null]"));
  CHECK(PartitionSpec::parse("  [null, [\"a\", \"b\"]] ") == js("[null, [\"a\", \"b\"]]"));
  CHECK(PartitionSpec::parse("fsdp, tp") == js("[\"fsdp\", \"tp\"]"));
  CHECK(PartitionSpec::parse("P(('x',), ['y', 'z'])") == js("[\"x\", [\"y\", \"z\"]]"));
  CHECK(PartitionSpec::parse("P(P.UNCONSTRAINED, 'tp')")[0].kind == SpecEntry::Kind::Unconstrained);
  // Round trip of the printed form.
  const auto s = js("[[\"a\", \"b\"], null, \"c\"]");
  CHECK(PartitionSpec::parse(s.toString()) == s);
  CHECK(PartitionSpec::fromJson(s.toJson()) == s);
  const auto u = PartitionSpec::parse("P(UNCONSTRAINED)");
  CHECK(PartitionSpec::fromJson(u.toJson()) == u);
}

TEST_CASE("PartitionSpec text parser rejects bad input with the position", "[partition_spec]") {
  CHECK_THROWS_WITH(PartitionSpec::parse("P('a'"), Catch::Contains("missing ')'"));
  CHECK_THROWS_WITH(PartitionSpec::parse("P('a' 'b')"), Catch::Contains("expected ','"));
  CHECK_THROWS_WITH(PartitionSpec::parse("P('a)"), Catch::Contains("unterminated string"));
  CHECK_THROWS_WITH(PartitionSpec::parse("P(1)"), Catch::Contains("unexpected character '1'"));
  CHECK_THROWS_WITH(PartitionSpec::parse("P(('a', ('b',)))"), Catch::StartsWith("A tuple inside PartitionSpec"));
  CHECK_THROWS_WITH(PartitionSpec::parse("P('a') trailing"), Catch::Contains("unexpected text"));
  CHECK_THROWS_WITH(PartitionSpec::parse(std::string(100, '(')), Catch::Contains("nesting too deep"));
  CHECK_THROWS_AS(PartitionSpec::parse("[1, 2"), Error);
}

TEST_CASE("dtype names map to bits and numpy itemsizes", "[partition_spec][dtype]") {
  CHECK(parseDType("float32").bits == 32);
  CHECK(parseDType("BF16").name == "bfloat16");
  CHECK(parseDType("torch.float16").itemsize == 2);
  CHECK(parseDType("F8_E4M3").name == "float8_e4m3fn");
  CHECK(parseDType("fp8_e5m2").name == "float8_e5m2");
  CHECK(parseDType("int4").bits == 4);
  CHECK(parseDType("int4").itemsize == 1);
  // Packed: 3 int4 values take 2 bytes, 16 take 8.
  CHECK(parseDType("int4").bytesFor(3) == 2);
  CHECK(parseDType("int4").bytesFor(16) == 8);
  CHECK(parseDType("bfloat16").bytesFor(1000) == 2000);
  CHECK(parseDType("float32").bytesFor(0) == 0);
  CHECK_THROWS_WITH(parseDType("float7"), Catch::StartsWith("unknown dtype 'float7'"));
}
