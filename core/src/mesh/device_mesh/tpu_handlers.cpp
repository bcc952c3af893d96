// SPDX-License-Identifier: Apache-2.0
// The built-in device-kind handlers (jax-mesh-utils spec §3.1). Ring tables permute positions of a device
// sequence: the given list for v2/v3, v4i/8i and 7x, the list sorted x-fastest by coordinates for
// v5e/v6e/v5p. The v5e/v5p handlers decide from the coordinate bounds first and sort only when
// they will answer, so a large v5p slice pays O(n), not the reference's O(n log n) (§8).
#include "tpu_handlers.hpp"

#include "grid_ops.hpp"
#include "mesh/device_mesh/device_mesh_internals.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <numeric>

namespace shardscope::mesh_detail {

namespace {

constexpr int kTrayRing[] = {0, 1, 2, 3, 6, 7, 4, 5};
constexpr int kTray2x2Ring[] = {0, 1, 3, 2};
constexpr int kTray4x4Ring[] = {0, 1, 2, 3, 7, 6, 5, 9, 10, 11, 15, 14, 13, 12, 8, 4};
constexpr int kV5eTrayRing[] = {0, 1, 2, 3, 7, 6, 5, 4};
constexpr int kV5eTrayIota[] = {0, 4, 2, 6, 1, 5, 3, 7};
constexpr int kV5p2x2x2[] = {0, 1, 3, 2, 6, 7, 5, 4};
constexpr int k7xTray2x2x2Ring[] = {0, 1, 2, 3, 6, 7, 4, 5};

template <std::size_t N>
DeviceGrid orderedBy(const std::vector<int>& sequence, const int (&order)[N], const Shape& meshShape) {
  return gathered(sequence, order, N, meshShape);
}

std::vector<int> listOrder(std::size_t n) {
  std::vector<int> seq(n);
  std::iota(seq.begin(), seq.end(), 0);
  return seq;
}

// Positions sorted by (z, y, x), stable as Python's sorted.
std::vector<int> coordinateOrder(const DeviceList& devices) {
  std::vector<int> seq = listOrder(devices.size());
  std::stable_sort(seq.begin(), seq.end(), [&](int a, int b) {
    const auto& ca = *devices[static_cast<std::size_t>(a)].coords;
    const auto& cb = *devices[static_cast<std::size_t>(b)].coords;
    return std::tie(ca[2], ca[1], ca[0]) < std::tie(cb[2], cb[1], cb[0]);
  });
  return seq;
}

// max(d.coords) + 1: the lexicographic tuple maximum, assuming the origin is 0 (§9.2).
std::array<std::int64_t, 3> lexicographicBounds(const DeviceList& devices) {
  std::array<int, 3> best{};
  bool first = true;
  for (const Device& d : devices) {
    if (!d.coords)
      throwValueError("TPU device " + referenceDeviceRepr(d) + " has no coords; a TPU mesh needs chip coordinates");
    if (first || *d.coords > best) best = *d.coords;
    first = false;
  }
  return {std::int64_t{best[0]} + 1, std::int64_t{best[1]} + 1, std::int64_t{best[2]} + 1};
}

} // namespace

std::optional<DeviceGrid> tpuV2V3Handler(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions&) {
  const std::size_t n = devices.size();
  if (n == 8) return orderedBy(listOrder(n), kTrayRing, meshShape);
  if (meshShape.empty()) throwValueError("tuple index out of range"); // mesh_shape[-1] of ()
  if (meshShape.back() == 8) {
    // The ring inside every consecutive group of 8 list positions.
    std::vector<int> out(n);
    for (std::size_t g = 0; g + 8 <= n; g += 8)
      for (std::size_t k = 0; k < 8; ++k) out[g + k] = static_cast<int>(g) + kTrayRing[k];
    return reshaped(DeviceGrid({static_cast<std::int64_t>(n)}, std::move(out)), meshShape);
  }
  return reshaped(DeviceGrid({static_cast<std::int64_t>(n)}, listOrder(n)), meshShape);
}

std::optional<DeviceGrid> v4iV8iHandler(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions&) {
  if (devices.size() == 4) return orderedBy(listOrder(4), kTray2x2Ring, meshShape);
  return std::nullopt;
}

std::optional<DeviceGrid> v5eHandler(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions&) {
  const std::size_t n = devices.size();
  // Every branch needs 4, 8 or 16 devices; decide that before touching coordinates.
  if (n != 4 && n != 8 && n != 16) return std::nullopt;
  const auto [bx, by, bz] = lexicographicBounds(devices);
  if (bx == 2 && by == 2 && bz == 1 && n == 4) return orderedBy(coordinateOrder(devices), kTray2x2Ring, meshShape);
  if (n == 8) {
    if (bx == 2 && by == 2 && bz == 2) return orderedBy(coordinateOrder(devices), kV5eTrayIota, meshShape);
    return orderedBy(coordinateOrder(devices), kV5eTrayRing, meshShape);
  }
  if (bx == 4 && by == 4 && bz == 1 && n == 16 && *std::max_element(meshShape.begin(), meshShape.end()) == 16)
    return orderedBy(coordinateOrder(devices), kTray4x4Ring, meshShape);
  return std::nullopt;
}

std::optional<DeviceGrid> v5pHandler(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions&) {
  if (devices.size() != 8) return std::nullopt; // the only branch needs 8 devices: skip the O(n) scan
  const auto bounds = lexicographicBounds(devices);
  if (bounds == std::array<std::int64_t, 3>{2, 2, 2}) return orderedBy(coordinateOrder(devices), kV5p2x2x2, meshShape);
  return std::nullopt;
}

std::optional<DeviceGrid> tpu7xHandler(const Shape& meshShape, const DeviceList& devices, const CreateMeshOptions&) {
  const std::size_t n = devices.size();
  if (n % 8 != 0 || n > 32) return std::nullopt;
  const Shape physical = getPhysicalTpuMesh(devices).shape(); // may raise, as the reference's does
  if (physical[0] > 2 || physical[1] > 2) return std::nullopt;
  std::vector<int> out(n);
  for (std::size_t g = 0; g < n; g += 8)
    for (std::size_t k = 0; k < 8; ++k) out[g + k] = static_cast<int>(g) + k7xTray2x2x2Ring[k];
  return reshaped(DeviceGrid({static_cast<std::int64_t>(n)}, std::move(out)), meshShape);
}

} // namespace shardscope::mesh_detail
