// SPDX-License-Identifier: Apache-2.0
// The one dtype table seen through both of its views: exact bits (DType) and fractional bytes.
#include "shardscope/base/dtype.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("dtypeBytes and canonicalDtype agree with parseDType for every known dtype", "[dtype]") {
  REQUIRE(knownDtypes().size() == 27);
  for (const auto& name : knownDtypes()) {
    INFO(name);
    const DType d = parseDType(name);
    CHECK(d.name == name);
    CHECK(dtypeBytes(name) == d.bits / 8.0);
    CHECK(canonicalDtype(name) == std::optional<std::string>(name));
    CHECK(findDType(name) == std::optional<DType>(d));
  }
}

TEST_CASE("sub-byte dtypes keep exact bits beside numpy's one-byte itemsize", "[dtype]") {
  CHECK(dtypeBytes("int2") == 0.25);
  CHECK(dtypeBytes("fp4") == 0.5);
  const DType u2 = parseDType("uint2");
  CHECK(u2.bits == 2);
  CHECK(u2.itemsize == 1);
  CHECK(u2.bytesFor(5) == 2); // 10 bits round up to 2 bytes
}

TEST_CASE("aliases, prefixes and the e4m3 variants", "[dtype]") {
  CHECK(canonicalDtype("jax.numpy.bfloat16") == std::optional<std::string>("bfloat16"));
  CHECK(canonicalDtype("dtype('float16')") == std::optional<std::string>("float16"));
  CHECK(canonicalDtype("HALF") == std::optional<std::string>("float16"));
  // ml_dtypes' IEEE-style float8_e4m3 is a different type from float8_e4m3fn.
  CHECK(canonicalDtype("float8_e4m3") == std::optional<std::string>("float8_e4m3"));
  CHECK(canonicalDtype("fp8_e4m3") == std::optional<std::string>("float8_e4m3fn"));
  CHECK_FALSE(findDType("float7"));
  CHECK_FALSE(canonicalDtype(""));
}

TEST_CASE("every safetensors code maps to a known dtype", "[dtype]") {
  for (const char* code : {"BOOL", "U8", "I8", "I16", "U16", "F16", "BF16", "I32", "U32", "F32", "F64", "I64", "U64",
                           "F8_E4M3", "F8_E5M2", "F8_E8M0", "F4", "C64"}) {
    INFO(code);
    const auto name = dtypeFromSafetensors(code);
    REQUIRE(name);
    CHECK(canonicalDtype(*name) == name);
  }
  CHECK(dtypeFromSafetensors("F4") == std::optional<std::string>("float4_e2m1fn"));
  CHECK_FALSE(dtypeFromSafetensors("F7"));
}
