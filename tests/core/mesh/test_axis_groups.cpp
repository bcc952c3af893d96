// SPDX-License-Identifier: Apache-2.0
// AxisGroups against groups found by brute force: every cell's coordinates unravelled row-major,
// cells grouped by all coordinates but the axis', members ordered by the axis coordinate.
#include "shardscope/mesh/axis_groups.hpp"

#include <catch2/catch.hpp>

#include <map>
#include <vector>

using namespace shardscope;

TEST_CASE("axis groups: a 2x3x4 grid, worked by hand") {
  const AxisGroups along({2, 3, 4}, 1);
  CHECK(along.count() == 8);
  CHECK(along.size() == 3);
  CHECK(along.stride() == 4);
  CHECK(along.outer() == 2);
  // Group 5 is (first coordinate 1, last coordinate 1): cells 1*12 + 1 = 13, then 17 and 21.
  CHECK(along.first(5) == 13);
  CHECK(along.cell(5, 1) == 17);
  CHECK(along.cell(5, 2) == 21);
  CHECK(along.coordinate(17) == 1);
  CHECK(along.group(21) == 5);
  CHECK(AxisGroups({2, 3, 4}, 3).count() == 0); // no such axis
}

TEST_CASE("axis groups: every axis of several grids agrees with brute force") {
  for (const Shape& shape : {Shape{8}, Shape{4, 2}, Shape{2, 3, 4}, Shape{3, 1, 5, 2}}) {
    std::int64_t total = 1;
    for (const auto d : shape) total *= d;
    for (std::size_t axis = 0; axis < shape.size(); ++axis) {
      std::map<std::vector<std::int64_t>, std::vector<std::int64_t>> byRest; // ordered as row-major ids
      for (std::int64_t cell = 0; cell < total; ++cell) {
        std::vector<std::int64_t> coord(shape.size());
        std::int64_t rest = cell;
        for (std::size_t d = shape.size(); d-- > 0;) {
          coord[d] = rest % shape[d];
          rest /= shape[d];
        }
        coord.erase(coord.begin() + static_cast<std::ptrdiff_t>(axis));
        byRest[coord].push_back(cell); // cells rise with the axis coordinate
      }
      const AxisGroups along(shape, axis);
      REQUIRE(along.count() == static_cast<std::int64_t>(byRest.size()));
      std::int64_t g = 0;
      for (const auto& [rest, cells] : byRest) {
        REQUIRE(along.size() == static_cast<std::int64_t>(cells.size()));
        for (std::int64_t k = 0; k < along.size(); ++k) {
          CHECK(along.cell(g, k) == cells[static_cast<std::size_t>(k)]);
          CHECK(along.group(cells[static_cast<std::size_t>(k)]) == g);
          CHECK(along.coordinate(cells[static_cast<std::size_t>(k)]) == k);
        }
        ++g;
      }
    }
  }
}
