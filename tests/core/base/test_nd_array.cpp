// SPDX-License-Identifier: Apache-2.0
#include "shardscope/base/nd_array.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("NdArray transpose matches index arithmetic", "[nd_array]") {
  auto a = NdArray<int>::iota({2, 3, 4});
  const int perm[] = {2, 0, 1};
  auto t = a.transpose(perm);
  REQUIRE(t.shape() == Shape{4, 2, 3});
  for (std::int64_t i = 0; i < 4; ++i)
    for (std::int64_t j = 0; j < 2; ++j)
      for (std::int64_t k = 0; k < 3; ++k) {
        const std::int64_t ti[] = {i, j, k};
        // t[i,j,k] = a[j,k,i] = j*12 + k*4 + i
        CHECK(t.at(ti) == j * 12 + k * 4 + i);
      }
}

TEST_CASE("NdArray reshape keeps order and rejects a wrong size", "[nd_array]") {
  auto a = NdArray<int>::iota({6});
  auto r = a.reshape({2, 3});
  const std::int64_t idx[] = {1, 0};
  CHECK(r.at(idx) == 3);
  CHECK_THROWS_WITH(a.reshape({4}), "cannot reshape array of size 6 into shape (4,)");
}

TEST_CASE("shape and list reprs follow Python", "[nd_array]") {
  CHECK(shapeRepr(Shape{8}) == "(8,)");
  CHECK(shapeRepr(Shape{2, 4}) == "(2, 4)");
  CHECK(shapeRepr(Shape{}) == "()");
  CHECK(listRepr(Shape{4, 4, 0}) == "[4, 4, 0]");
}

TEST_CASE("a bad transpose permutation is a ValueError", "[nd_array]") {
  auto a = NdArray<int>::iota({2, 2});
  const int perm[] = {0, 0};
  CHECK_THROWS_AS(a.transpose(perm), Error);
}
