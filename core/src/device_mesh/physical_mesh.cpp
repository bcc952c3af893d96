// _get_physical_tpu_mesh: lays the device list out by chip coordinates (spec §3.2). One pass for
// the bounding box, one pass to place; no sorting, so 8960 chips take microseconds.
#include "shardscope/device_mesh_internals.hpp"

#include "device_view.hpp"
#include "physical_mesh.hpp"
#include "shardscope/errors.hpp"

#include <algorithm>
#include <limits>

namespace shardscope::mesh_detail {

namespace {

std::string tupleText(const std::int64_t* values, std::size_t n) {
  std::string out = "(";
  for (std::size_t k = 0; k < n; ++k) {
    if (k) out += ", ";
    out += std::to_string(values[k]);
  }
  if (n == 1) out += ',';
  return out + ")";
}

const std::array<int, 3>& coordsOf(const Device& d) {
  if (!d.coords) throwValueError("TPU device " + referenceDeviceRepr(d) + " has no coords; a TPU mesh needs chip coordinates");
  return *d.coords;
}

} // namespace

DeviceGrid physicalTpuMesh(const DeviceView& devices) {
  if (devices.size() == 0) throwValueError("list index out of range");  // jax_devices[0] of an empty list
  const std::string& kind = devices[0].device_kind;  // the first device decides, unlike dispatch (§9.4)

  std::array<int, 3> lo{}, hi{};
  int coreLo = 0, coreHi = 0;
  lo = hi = coordsOf(devices[0]);
  coreLo = coreHi = devices[0].core_on_chip.value_or(0);
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const Device& d = devices[k];
    const auto& c = coordsOf(d);
    for (int a = 0; a < 3; ++a) {
      lo[a] = std::min(lo[a], c[a]);
      hi[a] = std::max(hi[a], c[a]);
    }
    const int core = d.core_on_chip.value_or(0);
    coreLo = std::min(coreLo, core);
    coreHi = std::max(coreHi, core);
  }
  const std::int64_t dims[3] = {std::int64_t{hi[0]} - lo[0] + 1, std::int64_t{hi[1]} - lo[1] + 1, std::int64_t{hi[2]} - lo[2] + 1};
  const std::int64_t cores = std::int64_t{coreHi} - coreLo + 1;

  // Saturating product: coordinates come from user input and must not overflow into a match.
  const std::int64_t n = static_cast<std::int64_t>(devices.size());
  std::int64_t cells = 1;
  for (std::int64_t f : {dims[0], dims[1], dims[2], cores}) cells = cells > n ? cells : cells * f;
  if (cells != n)
    throwAssertion("jax_devices=" + referenceDevicesRepr(devices.materialize()) + " dims=" + tupleText(dims, 3) + " cores_per_chip=" + std::to_string(cores));

  const bool trayV2V3 = kind == "TPU v2" || kind == "TPU v3";
  const bool fourD = kind == "TPU7x" || kind == "TPU7" || kind == "TPU8i" || ((kind == "TPU v5p" || kind == "TPU v5") && cores == 2);
  Shape shape;
  if (trayV2V3) shape = {dims[0], dims[1], cores};
  else if (fourD) shape = {dims[0], dims[1], dims[2], cores};
  else shape = {dims[0], dims[1], dims[2]};

  std::vector<int> cellsOut(static_cast<std::size_t>(n), -1);
  const std::int64_t sy = trayV2V3 ? cores : dims[2] * (fourD ? cores : 1);
  const std::int64_t sx = dims[1] * sy;
  const std::int64_t sz = fourD ? cores : 1;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    const Device& d = devices[k];
    const auto& c = *d.coords;
    const std::int64_t core = d.core_on_chip.value_or(0) - coreLo;
    std::int64_t flat = (c[0] - lo[0]) * sx + (c[1] - lo[1]) * sy;
    if (trayV2V3) {
      if (c[2] != 0) throwAssertion(referenceDeviceRepr(d));
      flat += core;
    } else if (fourD) {
      flat += (c[2] - lo[2]) * sz + core;
    } else {
      if (d.core_on_chip.value_or(0) != 0)
        throwAssertion("Creating meshes for TPU >v3 requires one device per chip (\"megacore\" mode). Got device id " +
                       std::to_string(*d.core_on_chip) + " for a device of kind " + kind + ": " + referenceDeviceRepr(d) + ".");
      flat += c[2] - lo[2];
    }
    cellsOut[static_cast<std::size_t>(flat)] = static_cast<int>(k);
  }
  if (std::find(cellsOut.begin(), cellsOut.end(), -1) != cellsOut.end())
    throwAssertion("Constructed mesh contains a \"hole\"; probable cause: coordinates of jax_devices are not a contiguous cuboid: " +
                   referenceDevicesRepr(devices.materialize()));
  return DeviceGrid(std::move(shape), std::move(cellsOut));
}

DeviceGrid getPhysicalTpuMesh(const DeviceList& devices) { return physicalTpuMesh(DeviceView{&devices, nullptr}); }

} // namespace shardscope::mesh_detail
