// SPDX-License-Identifier: Apache-2.0
// The torus paths, checked against coordinate arithmetic: every logical index must land on the
// chip the assignment matrix predicts (jax-mesh-utils spec §3.5: p_i = sum_j sub_ij * prod_{j'>j} A[i][j']).
#include "shardscope/mesh/device_mesh.hpp"
#include "mesh/device_mesh/device_mesh_internals.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;
using namespace shardscope::mesh_detail;

namespace {

// Checks placement.grid against the assignment matrix: logical coordinate j is a mixed-radix
// number over physical axes 0..n-1 (lower axis more significant) with digit sizes A[i][j].
void checkAgainstAssignment(const MeshPlacement& p, const DeviceList& devices) {
  const auto& A = p.assignment;
  const std::size_t n = A.size();
  REQUIRE(n >= 3);
  const Shape& shape = p.grid.shape();
  std::array<int, 3> lo{1 << 30, 1 << 30, 1 << 30};
  for (const Device& d : devices)
    for (int k = 0; k < 3; ++k) lo[k] = std::min(lo[k], (*d.coords)[k]);
  Shape index(shape.size(), 0);
  for (std::size_t flat = 0; flat < p.grid.size(); ++flat) {
    std::vector<std::int64_t> physical(n, 0);
    for (std::size_t j = 0; j < shape.size(); ++j) {
      // Split logical coordinate j into digits over physical axes, axis n-1 least significant.
      std::int64_t rest = index[j];
      std::vector<std::int64_t> digit(n);
      for (std::size_t i = n; i-- > 0;) {
        digit[i] = rest % A[i][j];
        rest /= A[i][j];
      }
      for (std::size_t i = 0; i < n; ++i) {
        std::int64_t below = 1;
        for (std::size_t jj = j + 1; jj < shape.size(); ++jj) below *= A[i][jj];
        physical[i] += digit[i] * below;
      }
    }
    const Device& d = devices[static_cast<std::size_t>(p.grid.data()[flat])];
    for (int k = 0; k < 3; ++k) CHECK((*d.coords)[k] - lo[k] == physical[static_cast<std::size_t>(k)]);
    if (n == 4) CHECK(*d.core_on_chip == physical[3]);
    for (std::size_t j = shape.size(); j-- > 0;) {
      if (++index[j] < shape[j]) break;
      index[j] = 0;
    }
  }
}

std::vector<Shape> divisorShapes(std::int64_t n, std::size_t rank) {
  if (rank == 1) return {Shape{n}};
  std::vector<Shape> out;
  for (std::int64_t d = 1; d <= n; ++d)
    if (n % d == 0)
      for (Shape rest : divisorShapes(n / d, rank - 1)) {
        rest.insert(rest.begin(), d);
        out.push_back(rest);
      }
  return out;
}

} // namespace

TEST_CASE("every 1-3-D logical shape on v4 slices lands where its assignment says", "[device_mesh][torus]") {
  for (const char* topo : {"v4:2x2x4", "v4:4x4x4", "v4:4x4x8", "v4:4x8x8"}) {
    const DeviceList devices = makeDevices(parseTopology(topo));
    for (std::size_t rank = 1; rank <= 3; ++rank)
      for (const Shape& shape : divisorShapes(static_cast<std::int64_t>(devices.size()), rank)) {
        INFO(topo << " " << shapeRepr(shape));
        const MeshPlacement p = createDeviceMesh(shape, devices, {false, true});
        CHECK(p.grid.shape() == shape);
        // Whole axes only when the split search was not needed.
        CHECK((p.path == "nd_torus" || p.path == "nd_torus_split"));
        for (std::size_t j = 0; j < shape.size(); ++j) {
          std::int64_t product = 1;
          for (const auto& row : p.assignment) product *= row[j];
          CHECK(product == shape[j]);
        }
        checkAgainstAssignment(p, devices);
      }
  }
}

TEST_CASE("4-D physical meshes (2 cores per chip) place cores last", "[device_mesh][torus]") {
  const DeviceList devices = makeDevices(parseTopology("v5p:4x4x4:cores=2"));
  for (const Shape& shape : {Shape{128}, Shape{16, 8}, Shape{2, 64}, Shape{4, 4, 8}}) {
    INFO(shapeRepr(shape));
    const MeshPlacement p = createDeviceMesh(shape, devices, {false, true});
    CHECK(p.physical_shape == Shape{4, 4, 4, 2});
    checkAgainstAssignment(p, devices);
  }
}

TEST_CASE("whole-axis failures raise NotImplementedError with the remaining mesh", "[device_mesh][torus]") {
  const DeviceList devices = makeDevices(parseTopology("v4:4x4x4"));
  try {
    createDeviceMesh(Shape{8, 8}, devices);
    FAIL("expected NotImplementedError");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::NotImplementedError);
    CHECK(
        std::string(e.what()) ==
        "Failed to find assignment for logical_axis_index 1 of size 8 with remaining assignable mesh [4, 4, 4]. The "
        "size of each "
        "axis in your logical mesh must be equal to the product of some subset of the physical mesh axis sizes. E.g. "
        "logical mesh "
        "(4, 16) is compatible with physical mesh 4x4x4 since 4=4 and 16=4x4. If you want to split physical axes, set  "
        "allow_split_physical_axes to True.");
  }
  // (2, 32): 32 is no product of whole 4s, and it is served first.
  try {
    createDeviceMesh(Shape{2, 32}, devices);
    FAIL("expected NotImplementedError");
  } catch (const Error& e) {
    CHECK(std::string(e.what()).find("logical_axis_index 1 of size 32 with remaining assignable mesh [4, 4, 4]") !=
          std::string::npos);
  }
  const MeshPlacement split = createDeviceMesh(Shape{8, 8, 1}, devices, {false, true});
  CHECK(split.path == "nd_torus_split");
  CHECK(split.assignment == AssignmentMatrix{{1, 4, 1}, {2, 2, 1}, {4, 1, 1}});
}

TEST_CASE("size-1 logical axes take every free size-1 physical axis", "[device_mesh][torus]") {
  const DeviceList devices = makeDevices(parseTopology("v4:2x2x1"));
  const MeshPlacement p = createDeviceMesh(Shape{1, 4}, devices);
  // Axis 1 (size 4) takes x and y, then axis 0 (size 1) takes z.
  CHECK(p.assignment == AssignmentMatrix{{1, 2}, {1, 2}, {1, 1}});
  const DeviceList one = makeDevices(parseTopology("v4:1x1x1"));
  CHECK_THROWS_WITH(createDeviceMesh(Shape{}, one), "axes don't match array");
}

TEST_CASE("the splitting helpers follow their definitions", "[device_mesh][torus]") {
  CHECK(getPrimeFactors(8960) == std::vector<std::int64_t>{2, 2, 2, 2, 2, 2, 2, 2, 5, 7});
  CHECK(getPrimeFactors(1).empty());
  CHECK(getPrimeFactors(97) == std::vector<std::int64_t>{97});
  CHECK_THROWS_AS(getPrimeFactors(0), Error);
  // Every candidate multiplies to the size and divides the remaining capacity.
  const Shape physical{12, 4, 8}, assigned{2, 1, 2};
  const auto candidates = enumerateFeasibleLogicalAxisAssignments(physical, assigned, 12);
  CHECK_FALSE(candidates.empty());
  for (const Shape& z : candidates) {
    CHECK(z[0] * z[1] * z[2] == 12);
    for (std::size_t i = 0; i < 3; ++i) CHECK((physical[i] / assigned[i]) % z[i] == 0);
  }
  // Brute force: count all z with those properties.
  int brute = 0;
  for (int a = 1; a <= 6; ++a)
    for (int b = 1; b <= 4; ++b)
      for (int c = 1; c <= 4; ++c)
        if (a * b * c == 12 && 6 % a == 0 && 4 % b == 0 && 4 % c == 0) ++brute;
  CHECK(static_cast<int>(candidates.size()) == brute);
  // The code's rule 3 prefers overlapping already-used axes, against its comment (§9.1).
  CHECK_FALSE(preferFirstLogicalAxisAssignment({2, 1, 1}, {1, 2, 1}, {4, 4, 4}, {1, 2, 4}));
  CHECK(preferFirstLogicalAxisAssignment({1, 2, 1}, {2, 1, 1}, {4, 4, 4}, {1, 2, 4}));
  CHECK_THROWS_WITH(
      createDeviceMeshForNdTorusSplittingAxes(DeviceGrid::iota({2, 2}), Shape{8}),
      "The number of devices in physical mesh (2, 2) does not match the number of devices in logical mesh (8,).");
}

TEST_CASE("large v5p slices need no sort and give the whole-axis layout", "[device_mesh][torus]") {
  const DeviceList devices = makeDevices(parseTopology("v5p:16x20x28"));
  const MeshPlacement p = createDeviceMesh(Shape{320, 28}, devices);
  CHECK(p.path == "nd_torus");
  CHECK(p.assignment == AssignmentMatrix{{16, 1}, {20, 1}, {1, 28}});
  checkAgainstAssignment(p, devices);
  const MeshPlacement s = createDeviceMesh(Shape{5, 7, 256}, devices, {false, true});
  CHECK(s.path == "nd_torus_split");
  checkAgainstAssignment(s, devices);
}

TEST_CASE("the torus path is order-insensitive: a reversed or shuffled list gives the same ids",
          "[device_mesh][torus]") {
  // Forward lists take the one-pass corner path; reversed and shuffled ones the general path.
  for (const char* topo : {"v4:4x4x8", "v5p:2x4x4:cores=2", "7x:2x4x4", "v4:8x8x8"}) {
    const DeviceList forward = makeDevices(parseTopology(topo));
    DeviceList reversed(forward.rbegin(), forward.rend());
    DeviceList shuffled = forward;
    for (std::size_t k = 0; k < shuffled.size(); k += 3) std::swap(shuffled[k], shuffled[shuffled.size() - 1 - k / 2]);
    std::vector<Shape> shapes = divisorShapes(static_cast<std::int64_t>(forward.size()), 2);
    for (const Shape& s3 : divisorShapes(static_cast<std::int64_t>(forward.size()), 3)) shapes.push_back(s3);
    for (const Shape& shape : shapes) {
      INFO(topo << " " << shapeRepr(shape));
      const auto idsOf = [&](const DeviceList& list) {
        const MeshPlacement p = createDeviceMesh(shape, list, {false, true});
        std::vector<std::int64_t> ids;
        for (int pos : p.grid.data()) ids.push_back(list[static_cast<std::size_t>(pos)].id);
        return std::make_pair(ids, p.assignment);
      };
      const auto a = idsOf(forward);
      CHECK(idsOf(reversed) == a);
      CHECK(idsOf(shuffled) == a);
    }
  }
}
