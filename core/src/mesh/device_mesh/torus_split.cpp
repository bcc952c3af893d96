// SPDX-License-Identifier: Apache-2.0
// The axis-splitting search (jax-mesh-utils spec §3.5): each logical axis, last first, takes the feasible split of
// the remaining physical capacity that maximises the four-part preference key. The reference
// enumerates candidates through Python sets and compares pairwise; the key is a strict total order,
// so taking its maximum while enumerating gives the same answer without building the set.
#include "mesh/device_mesh/device_mesh_internals.hpp"

#include "grid_ops.hpp"
#include "torus_plan.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <array>
#include <tuple>

namespace shardscope::mesh_detail {

namespace {

struct PrimePower {
  std::int64_t prime;
  int count;
};

std::vector<PrimePower> groupedFactors(std::int64_t size) {
  std::vector<PrimePower> out;
  for (std::int64_t p : getPrimeFactors(size)) {
    if (!out.empty() && out.back().prime == p)
      ++out.back().count;
    else
      out.push_back({p, 1});
  }
  return out;
}

int multiplicity(std::int64_t value, std::int64_t prime) {
  int e = 0;
  while (value > 0 && value % prime == 0) {
    value /= prime;
    ++e;
  }
  return e;
}

// Calls visit(z) for every z with prod(z) == size and z_i | avail_i: per prime, every way of
// spreading its multiplicity over the axes within each axis' own multiplicity, crossed over primes.
template <class Visit>
void forEachFeasible(const Shape& avail, std::int64_t size, Visit&& visit) {
  const auto primes = groupedFactors(size);
  const std::size_t n = avail.size();
  std::vector<std::vector<int>> room(primes.size(), std::vector<int>(n));
  for (std::size_t q = 0; q < primes.size(); ++q)
    for (std::size_t i = 0; i < n; ++i) room[q][i] = multiplicity(avail[i], primes[q].prime);

  Shape z(n, 1);
  if (primes.empty()) {
    visit(static_cast<const Shape&>(z));
    return;
  }
  if (n == 0) return;
  // Depth-first over (prime q, axis i): axis i takes 0..min(left, room) factors of prime q, the
  // last axis takes whatever is left of it.
  auto recurse = [&](auto&& self, std::size_t q, std::size_t i, int left) -> void {
    if (q == primes.size()) {
      visit(static_cast<const Shape&>(z));
      return;
    }
    const std::int64_t p = primes[q].prime;
    if (i + 1 == n) {
      if (left > room[q][i]) return;
      std::int64_t f = 1;
      for (int t = 0; t < left; ++t) f *= p;
      z[i] *= f;
      self(self, q + 1, 0, q + 1 < primes.size() ? primes[q + 1].count : 0);
      z[i] /= f;
      return;
    }
    const int maxTake = std::min(left, room[q][i]);
    std::int64_t f = 1;
    for (int take = 0; take <= maxTake; ++take, f *= p) {
      z[i] *= f;
      self(self, q, i + 1, left - take);
      z[i] /= f;
    }
  };
  recurse(recurse, 0, 0, primes[0].count);
}

struct PreferenceKey {
  std::int64_t whole = 1, nWhole = 0, overlap = 1;
  auto tie() const { return std::tie(whole, nWhole, overlap); }
};

PreferenceKey keyOf(const Shape& x, const Shape& physical, const Shape& assignedPerAxis) {
  PreferenceKey k;
  for (std::size_t i = 0; i < x.size(); ++i) {
    if (x[i] == physical[i]) {
      k.whole *= x[i];
      if (x[i] > 1) ++k.nWhole;
    }
    if (assignedPerAxis[i] > 1) k.overlap *= x[i];
  }
  return k;
}

bool keyGreater(const Shape& x, const PreferenceKey& kx, const Shape& y, const PreferenceKey& ky) {
  if (kx.tie() != ky.tie()) return kx.tie() > ky.tie();
  return x > y; // tuple comparison: lexicographic
}

Shape availableOf(const Shape& physical, const Shape& assignedPerAxis) {
  Shape avail(physical.size());
  for (std::size_t i = 0; i < physical.size(); ++i)
    avail[i] = assignedPerAxis[i] > 0 ? physical[i] / assignedPerAxis[i] : 0;
  return avail;
}

} // namespace

std::vector<Shape> enumerateFeasibleLogicalAxisAssignments(const Shape& physicalShape, const Shape& assignedPerAxis,
                                                           std::int64_t logicalAxisSize) {
  std::vector<Shape> out;
  forEachFeasible(availableOf(physicalShape, assignedPerAxis), logicalAxisSize,
                  [&](const Shape& z) { out.push_back(z); });
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

bool preferFirstLogicalAxisAssignment(const Shape& x, const Shape& y, const Shape& physicalShape,
                                      const Shape& assignedPerAxis) {
  return keyGreater(x, keyOf(x, physicalShape, assignedPerAxis), y, keyOf(y, physicalShape, assignedPerAxis));
}

DeviceGrid generateLogicalMesh(const DeviceGrid& physicalMesh, const Shape& logicalShape,
                               const AssignmentMatrix& assignment) {
  const std::size_t n = assignment.size();
  const std::size_t m = n ? assignment[0].size() : 0;
  Shape split;
  for (const auto& row : assignment) split.insert(split.end(), row.begin(), row.end());
  if (shapeSize(split) != static_cast<std::int64_t>(physicalMesh.size()))
    throwValueError("cannot reshape array of size " + std::to_string(physicalMesh.size()) + " into shape " +
                    shapeRepr(split));
  // Sub-axis (i, j) sits at position i*m + j; the result wants them grouped by logical axis j.
  // Size-1 sub-axes are dropped first: they do not move anything and keep the transpose small.
  Shape kept;
  std::vector<int> position(n * m, -1);
  for (std::size_t k = 0; k < n * m; ++k)
    if (split[k] != 1) {
      position[k] = static_cast<int>(kept.size());
      kept.push_back(split[k]);
    }
  std::vector<int> perm;
  for (std::size_t j = 0; j < m; ++j)
    for (std::size_t i = 0; i < n; ++i)
      if (position[i * m + j] >= 0) perm.push_back(position[i * m + j]);
  return reshaped(fastTranspose(kept, physicalMesh.data(), perm), logicalShape);
}

AssignmentMatrix planSplitAssignment(const Shape& physical, const Shape& meshShape) {
  if (shapeSize(physical) != shapeSize(meshShape))
    throwValueError("The number of devices in physical mesh " + shapeRepr(physical) +
                    " does not match the number of devices in logical mesh " + shapeRepr(meshShape) + ".");
  const std::size_t n = physical.size();
  AssignmentMatrix assignment(n, std::vector<std::int64_t>(meshShape.size(), 1));
  Shape assignedPerAxis(n, 1);
  for (std::size_t li = meshShape.size(); li-- > 0;) {
    Shape best;
    PreferenceKey bestKey;
    bool found = false;
    forEachFeasible(availableOf(physical, assignedPerAxis), meshShape[li], [&](const Shape& z) {
      const PreferenceKey k = keyOf(z, physical, assignedPerAxis);
      if (!found || keyGreater(z, k, best, bestKey)) {
        found = true;
        best = z;
        bestKey = k;
      }
    });
    if (!found) throwValueError("attempt to get argmax of an empty sequence");
    for (std::size_t i = 0; i < n; ++i) {
      assignment[i][li] = best[i];
      assignedPerAxis[i] *= best[i];
    }
  }
  return assignment;
}

std::vector<std::vector<int>> logicalOffsetTables(const Shape& physical, const AssignmentMatrix& assignment) {
  const std::size_t n = physical.size();
  const std::size_t m = n ? assignment[0].size() : 0;
  // Row-major strides of the sub-axes in output order: logical axis j major, physical axis i minor.
  std::vector<std::vector<std::int64_t>> stride(n, std::vector<std::int64_t>(m, 0));
  std::int64_t step = 1;
  for (std::size_t j = m; j-- > 0;)
    for (std::size_t i = n; i-- > 0;) {
      stride[i][j] = step;
      step *= assignment[i][j];
    }
  std::vector<std::vector<int>> tables(n);
  std::vector<std::int64_t> digit(m);
  for (std::size_t i = 0; i < n; ++i) {
    tables[i].resize(static_cast<std::size_t>(physical[i]));
    // v's digits over the sub-axes of axis i, logical axis 0 most significant: an odometer that
    // carries the offset along, instead of dividing v out for every entry.
    std::fill(digit.begin(), digit.end(), 0);
    std::int64_t offset = 0;
    for (std::int64_t v = 0; v < physical[i]; ++v) {
      tables[i][static_cast<std::size_t>(v)] = static_cast<int>(offset);
      for (std::size_t j = m; j-- > 0;) {
        offset += stride[i][j];
        if (++digit[j] < assignment[i][j]) break;
        offset -= assignment[i][j] * stride[i][j];
        digit[j] = 0;
      }
    }
  }
  return tables;
}

TorusAssignment createDeviceMeshForNdTorusSplittingAxes(const DeviceGrid& physicalMesh, const Shape& meshShape) {
  TorusAssignment out;
  out.split = true;
  out.assignment = planSplitAssignment(physicalMesh.shape(), meshShape);
  out.mesh = generateLogicalMesh(physicalMesh, meshShape, out.assignment);
  return out;
}

} // namespace shardscope::mesh_detail
