// SPDX-License-Identifier: Apache-2.0
// Helpers shared by the comm tests: meshes built by hand from device coordinates, so the
// tests do not depend on the mesh engine's placement choices.
#pragma once

#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/hardware/topology.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <string>
#include <vector>

namespace shardscope::testing {

// List position of the device on chip (x, y, z), core `core`, slice `slice`.
inline int positionOf(const DeviceList& devices, int x, int y, int z = 0, int core = 0, int slice = 0) {
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const auto& d = devices[i];
    if (d.coords && (*d.coords)[0] == x && (*d.coords)[1] == y && (*d.coords)[2] == z &&
        d.core_on_chip.value_or(0) == core && d.slice_index.value_or(0) == slice)
      return static_cast<int>(i);
  }
  return -1;
}

// A mesh whose grid cell (given as a multi-index) holds position `cell(index)`.
inline Mesh handMesh(const DeviceList& devices, const Shape& shape, const std::vector<std::string>& names,
                     const std::function<int(const std::vector<std::int64_t>&)>& cell) {
  Mesh m;
  m.devices = devices;
  m.axis_names = names;
  m.axis_types.assign(names.size(), AxisType::Explicit);
  std::vector<int> data;
  std::vector<std::int64_t> idx(shape.size(), 0);
  const auto n = shapeSize(shape);
  for (std::int64_t k = 0; k < n; ++k) {
    data.push_back(cell(idx));
    for (std::size_t a = shape.size(); a-- > 0;) {
      if (++idx[a] < shape[a]) break;
      idx[a] = 0;
    }
  }
  m.grid = DeviceGrid(shape, std::move(data));
  return m;
}

// A one-axis mesh visiting the devices sorted by (z, y, x) (x fastest) in `order`: how the JAX
// v5e/v5p ring tables read (spec jax-mesh-utils §2).
inline Mesh ringMeshXFastest(const DeviceList& devices, const std::vector<int>& order) {
  std::vector<int> sorted(devices.size());
  for (std::size_t i = 0; i < sorted.size(); ++i) sorted[i] = static_cast<int>(i);
  std::stable_sort(sorted.begin(), sorted.end(), [&](int a, int b) {
    const auto& ca = *devices[static_cast<std::size_t>(a)].coords;
    const auto& cb = *devices[static_cast<std::size_t>(b)].coords;
    return std::array{ca[2], ca[1], ca[0]} < std::array{cb[2], cb[1], cb[0]};
  });
  return handMesh(devices, {static_cast<std::int64_t>(order.size())}, {"ring"},
                  [&](const std::vector<std::int64_t>& i) {
                    return sorted[static_cast<std::size_t>(order[static_cast<std::size_t>(i[0])])];
                  });
}

} // namespace shardscope::testing
