// SPDX-License-Identifier: Apache-2.0
// _get_physical_tpu_mesh: lays the device list out by chip coordinates (jax-mesh-utils spec §3.2). One pass for
// the bounding box, one pass to place; no sorting, so 8960 chips take microseconds.
#include "mesh/device_mesh/device_mesh_internals.hpp"

#include "device_view.hpp"
#include "physical_mesh.hpp"
#include "shardscope/base/errors.hpp"

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

[[noreturn, gnu::cold, gnu::noinline]] void missingCoords(const Device& d) {
  throwValueError("TPU device " + referenceDeviceRepr(d) + " has no coords; a TPU mesh needs chip coordinates");
}

// Inlined into the hot loop; the error text is built out of line.
inline const std::array<int, 3>& coordsOf(const Device& d) {
  if (!d.coords) [[unlikely]]
    missingCoords(d);
  return *d.coords;
}

} // namespace

namespace {

// Four ints in one SSE register: GCC/Clang vector extension, so min/max are single instructions.
typedef int Int4 __attribute__((vector_size(16)));

// Pass 1 over the (large) Device objects: the bounding box of (x, y, z, core) and a compact copy
// of those four numbers, so pass 2 reads 16 bytes per device instead of a whole Device.
template <class At>
void gatherCoordinates(std::size_t n, At at, Int4* compact, Int4& lo, Int4& hi) {
  Int4 mn = lo, mx = hi;
  for (std::size_t k = 0; k < n; ++k) {
    const Device& d = at(k);
    const auto& c = coordsOf(d);
    const Int4 v = {c[0], c[1], c[2], d.core_on_chip.value_or(0)};
    compact[k] = v;
    mn = v < mn ? v : mn;
    mx = v > mx ? v : mx;
  }
  lo = mn;
  hi = mx;
}

// Pass 2: scatter list positions into the row-major cells. The axis the mesh does not have
// (z on v2/v3 trays, the core on 3-D meshes; none on 4-D) gets stride 0 and its values are OR-ed
// into the result instead of branching per device: they must all be 0.
template <int CheckedAxis>
int scatter(const Int4* compact, std::size_t n, Int4 stride, Int4 lo, int* cells) {
  int bad = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Int4 p = (compact[k] - lo) * stride; // offsets first: no overflow on large raw coordinates
    if constexpr (CheckedAxis >= 0) bad |= compact[k][CheckedAxis];
    cells[p[0] + p[1] + p[2] + p[3]] = static_cast<int>(k);
  }
  return bad;
}

} // namespace

namespace {

Int4 valuesOf(const Device& d) {
  const auto& c = coordsOf(d);
  return Int4{c[0], c[1], c[2], d.core_on_chip.value_or(0)};
}

// Where the cells of a bounding box go: shape, strides over (x, y, z, core) and the minimum that
// is subtracted first (subslices need not contain the origin). The axis the mesh does not have (z on v2/v3 trays, the
// core on 3-D meshes; none on 4-D) gets stride 0; its raw values must be 0 (checkedAxis).
struct Layout {
  Shape shape;
  Int4 stride{};
  Int4 lo{};
  int base = 0; // added to every written index (a contiguous view's offset in the full list)
  int checkedAxis = -1;
  bool countMatches = false;
  std::int64_t dims[3]{};
  std::int64_t cores = 0;
};

Layout layoutOf(const std::string& kind, Int4 lo, Int4 hi, std::int64_t n) {
  Layout l;
  for (int a = 0; a < 3; ++a) l.dims[a] = std::int64_t{hi[a]} - lo[a] + 1;
  l.cores = std::int64_t{hi[3]} - lo[3] + 1;
  // Saturating product: coordinates come from user input and must not overflow into a match.
  std::int64_t cells = 1;
  for (std::int64_t f : {l.dims[0], l.dims[1], l.dims[2], l.cores}) cells = cells > n ? cells : cells * f;
  l.countMatches = cells == n;
  if (!l.countMatches) return l;
  const bool trayV2V3 = kind == "TPU v2" || kind == "TPU v3";
  const bool fourD =
      kind == "TPU7x" || kind == "TPU7" || kind == "TPU8i" || ((kind == "TPU v5p" || kind == "TPU v5") && l.cores == 2);
  if (trayV2V3)
    l.shape = {l.dims[0], l.dims[1], l.cores};
  else if (fourD)
    l.shape = {l.dims[0], l.dims[1], l.dims[2], l.cores};
  else
    l.shape = {l.dims[0], l.dims[1], l.dims[2]};
  // Everything fits in int because the box has exactly n cells.
  l.stride[3] = (trayV2V3 || fourD) ? 1 : 0;
  l.stride[2] = trayV2V3 ? 0 : (fourD ? static_cast<int>(l.cores) : 1);
  l.stride[1] = trayV2V3 ? static_cast<int>(l.cores) : static_cast<int>(l.dims[2]) * l.stride[2];
  l.stride[0] = static_cast<int>(l.dims[1]) * l.stride[1];
  l.lo = lo;
  l.checkedAxis = trayV2V3 ? 2 : fourD ? -1 : 3;
  return l;
}

// The fast path for lists whose first device holds the minimum and last device the maximum
// coordinates (every jax.devices()-ordered list): one pass that checks each device lies in that
// box and scatters it. Exact whenever it succeeds, because both corners are real devices.
// Where an in-box device goes, from its four offsets (x, y, z, core minus the box's corner):
// either per-axis offset tables laid back to back, or, when every table is an arithmetic
// progression (each physical axis taken whole by one logical axis), plain strides. The strides
// save four dependent loads per device.
struct CellByTables {
  const int *t0, *t1, *t2, *t3;
  int operator()(unsigned o0, unsigned o1, unsigned o2, unsigned o3) const { return t0[o0] + t1[o1] + t2[o2] + t3[o3]; }
};
struct CellByStrides {
  int first, s0, s1, s2, s3;
  int operator()(unsigned o0, unsigned o1, unsigned o2, unsigned o3) const {
    return first + static_cast<int>(o0) * s0 + static_cast<int>(o1) * s1 + static_cast<int>(o2) * s2 +
           static_cast<int>(o3) * s3;
  }
};

// The corner-box pass. Written in scalars rather than Int4: with unsigned offsets the box test is
// one compare per axis, without moving lanes between vector and integer registers (this loop is
// nearly all of a whole-axis create_device_mesh call).
// Whether each device belongs to the expected granule (a hybrid mesh's run), or no check.
// Each returns non-zero bits for a device outside the granule; the loop ORs them, which keeps
// one int live instead of a bool that is re-read and re-written per device.
struct NoKeyCheck {
  int miss(const Device&) const { return 0; }
};
struct SliceKeyIs {
  int key;
  int miss(const Device& d) const { return d.slice_index.value_or(~key) ^ key; }
};
struct ProcessKeyIs {
  int key;
  int miss(const Device& d) const { return d.process_index ^ key; }
};

// SkipChecked (corner-ordered placement only): the checked axis's box is the single value 0, so
// "outside the box" on it means "non-zero", which `bad` records anyway and which sends that caller
// to the exact path just as a `false` would; the axis's offset is then always taken as 0. One
// axis fewer keeps the loop's constants in registers. ZeroCorner (with SkipChecked): the box starts
// at all-zero coordinates, so the offsets are the coordinates themselves and the corner needs no
// register either.
template <int CheckedAxis, bool SkipChecked = false, bool ZeroCorner = false, class At, class CellOf, class KeyCheck>
bool scatterByOffsets(std::size_t n, At at, Int4 lo, Int4 hi, CellOf cellOf, KeyCheck keyOk, int base, int* cells,
                      int& bad, bool& allKeysMatch) {
  if constexpr (ZeroCorner) lo = Int4{0, 0, 0, 0}; // the caller checked it; now a compile-time constant
  const unsigned lo0 = static_cast<unsigned>(lo[0]), lo1 = static_cast<unsigned>(lo[1]),
                 lo2 = static_cast<unsigned>(lo[2]), lo3 = static_cast<unsigned>(lo[3]);
  const unsigned span0 = static_cast<unsigned>(hi[0]) - lo0, span1 = static_cast<unsigned>(hi[1]) - lo1,
                 span2 = static_cast<unsigned>(hi[2]) - lo2, span3 = static_cast<unsigned>(hi[3]) - lo3;
  int nonZero = 0;
  int keyMiss = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const Device& d = at(k);
    keyMiss |= keyOk.miss(d);
    const auto& c = coordsOf(d);
    const int core = d.core_on_chip.value_or(0);
    constexpr bool skip2 = SkipChecked && CheckedAxis == 2, skip3 = SkipChecked && CheckedAxis == 3;
    const unsigned o0 = static_cast<unsigned>(c[0]) - lo0, o1 = static_cast<unsigned>(c[1]) - lo1,
                   o2 = skip2 ? 0u : static_cast<unsigned>(c[2]) - lo2,
                   o3 = skip3 ? 0u : static_cast<unsigned>(core) - lo3;
    if (((o0 > span0) | (o1 > span1) | (o2 > span2) | (o3 > span3)) != 0) [[unlikely]]
      return false;
    if constexpr (CheckedAxis == 2) nonZero |= c[2];
    if constexpr (CheckedAxis == 3) nonZero |= core;
    cells[cellOf(o0, o1, o2, o3)] = static_cast<int>(k) + base;
  }
  bad = nonZero;
  allKeysMatch = keyMiss == 0;
  return true;
}

// The strides of `table` (four tables back to back from `tableBase`, `extent` entries each) when
// every one is an arithmetic progression.
std::optional<CellByStrides> stridesOf(const std::vector<int>& table, Int4 tableBase, const std::int64_t* extent) {
  CellByStrides out{0, 0, 0, 0, 0};
  int* strides[4] = {&out.s0, &out.s1, &out.s2, &out.s3};
  for (int a = 0; a < 4; ++a) {
    const int* t = table.data() + tableBase[a];
    const int step = extent[a] > 1 ? t[1] - t[0] : 0;
    for (std::int64_t i = 0; i < extent[a]; ++i)
      if (t[i] != t[0] + static_cast<int>(i) * step) return std::nullopt;
    out.first += t[0];
    *strides[a] = step;
  }
  return out;
}

// Whether a scattered cell array still holds the -1 it was filled with. Written cells hold list
// positions (>= 0), so one OR over all cells has its sign bit set exactly when a hole is left; the
// OR vectorizes where std::find stops at each element.
bool hasHole(const std::vector<int>& cells) {
  int all = 0;
  for (int c : cells) all |= c;
  return all < 0;
}

template <class At>
bool tryCornerBox(std::size_t n, At at, Int4 lo, Int4 hi, const Layout& l, int* cells, int& bad) {
  const CellByStrides cellOf{0, l.stride[0], l.stride[1], l.stride[2], l.stride[3]};
  bool unusedKeys = false;
  switch (l.checkedAxis) {
  case 2:
    return scatterByOffsets<2>(n, at, lo, hi, cellOf, NoKeyCheck{}, l.base, cells, bad, unusedKeys);
  case 3:
    return scatterByOffsets<3>(n, at, lo, hi, cellOf, NoKeyCheck{}, l.base, cells, bad, unusedKeys);
  default:
    return scatterByOffsets<-1>(n, at, lo, hi, cellOf, NoKeyCheck{}, l.base, cells, bad, unusedKeys);
  }
}

} // namespace

DeviceGrid physicalTpuMesh(const DeviceView& devices) {
  if (devices.size() == 0) throwValueError("list index out of range"); // jax_devices[0] of an empty list
  const std::string& kind = devices[0].device_kind; // the first device decides, unlike dispatch (§9.4)
  const std::size_t count = devices.size();
  const std::int64_t n = static_cast<std::int64_t>(count);
  const Device* all = devices.positions ? nullptr : devices.base();
  const auto direct = [all](std::size_t k) -> const Device& { return all[k]; };
  const auto viewed = [&devices](std::size_t k) -> const Device& { return devices[k]; };

  std::vector<int> cellsOut(count, -1);
  int nonZero = 0;
  Layout layout;
  bool placed = false;
  {
    const Int4 lo = valuesOf(devices[0]), hi = valuesOf(devices.back());
    const Int4 ordered = lo <= hi;
    if ((ordered[0] & ordered[1] & ordered[2] & ordered[3]) != 0) {
      layout = layoutOf(kind, lo, hi, n);
      if (layout.countMatches) {
        placed = devices.positions ? tryCornerBox(count, viewed, lo, hi, layout, cellsOut.data(), nonZero)
                                   : tryCornerBox(count, direct, lo, hi, layout, cellsOut.data(), nonZero);
        if (!placed) std::fill(cellsOut.begin(), cellsOut.end(), -1);
      }
    }
  }
  if (!placed) {
    // General case: bounding box first (keeping a compact copy in a per-thread scratch buffer so
    // the second pass reads 16 bytes per device), then the scatter.
    thread_local std::vector<Int4> compact;
    compact.resize(count);
    Int4 lo = valuesOf(devices[0]), hi = lo;
    if (devices.positions)
      gatherCoordinates(count, viewed, compact.data(), lo, hi);
    else
      gatherCoordinates(count, direct, compact.data(), lo, hi);
    layout = layoutOf(kind, lo, hi, n);
    if (!layout.countMatches)
      throwAssertion("jax_devices=" + referenceDevicesRepr(devices.materialize()) +
                     " dims=" + tupleText(layout.dims, 3) + " cores_per_chip=" + std::to_string(layout.cores));
    nonZero = layout.checkedAxis == 2   ? scatter<2>(compact.data(), count, layout.stride, layout.lo, cellsOut.data())
              : layout.checkedAxis == 3 ? scatter<3>(compact.data(), count, layout.stride, layout.lo, cellsOut.data())
                                        : scatter<-1>(compact.data(), count, layout.stride, layout.lo, cellsOut.data());
  }
  if (layout.checkedAxis >= 0 && nonZero != 0) {
    // Report the first offender in list order, as the reference's loop does.
    for (std::size_t k = 0; k < count; ++k) {
      const Device& d = devices[k];
      if (valuesOf(d)[layout.checkedAxis] == 0) continue;
      if (layout.checkedAxis == 2) throwAssertion(referenceDeviceRepr(d));
      throwAssertion("Creating meshes for TPU >v3 requires one device per chip (\"megacore\" mode). Got device id " +
                     std::to_string(*d.core_on_chip) + " for a device of kind " + kind + ": " + referenceDeviceRepr(d) +
                     ".");
    }
  }
  // n devices filled fewer than n cells: a duplicate overwrote a neighbour and left a hole.
  if (hasHole(cellsOut))
    throwAssertion("Constructed mesh contains a \"hole\"; probable cause: coordinates of jax_devices are not a "
                   "contiguous cuboid: " +
                   referenceDevicesRepr(devices.materialize()));
  return DeviceGrid(std::move(layout.shape), std::move(cellsOut));
}

std::optional<std::vector<int>> placeCornerOrdered(const DeviceView& devices, const TablesForShape& tablesFor,
                                                   Shape* physicalShape) {
  const std::size_t count = devices.size();
  if (count == 0) return std::nullopt;
  const Int4 lo = valuesOf(devices[0]), hi = valuesOf(devices.back());
  const Int4 ordered = lo <= hi;
  if ((ordered[0] & ordered[1] & ordered[2] & ordered[3]) == 0) return std::nullopt;
  const Layout layout = layoutOf(devices[0].device_kind, lo, hi, static_cast<std::int64_t>(count));
  if (!layout.countMatches) return std::nullopt;
  std::vector<std::vector<int>> tables;
  if (!tablesFor(layout.shape, tables) || tables.size() != layout.shape.size()) return std::nullopt;
  // Which physical-mesh axis each of (x, y, z, core) is; -1 for the one the mesh lacks.
  const std::array<int, 4> axisOf = layout.checkedAxis == 2    ? std::array<int, 4>{0, 1, -1, 2}
                                    : layout.shape.size() == 4 ? std::array<int, 4>{0, 1, 2, 3}
                                                               : std::array<int, 4>{0, 1, 2, -1};
  const std::int64_t extent[4] = {layout.dims[0], layout.dims[1], layout.dims[2], layout.cores};
  std::vector<int> flat;
  Int4 tableBase{};
  for (int a = 0; a < 4; ++a) {
    tableBase[a] = static_cast<int>(flat.size());
    if (axisOf[static_cast<std::size_t>(a)] < 0) {
      flat.insert(flat.end(), static_cast<std::size_t>(extent[a]), 0);
    } else {
      const auto& t = tables[static_cast<std::size_t>(axisOf[static_cast<std::size_t>(a)])];
      if (static_cast<std::int64_t>(t.size()) != extent[a]) return std::nullopt;
      flat.insert(flat.end(), t.begin(), t.end());
    }
  }
  const int base = devices.positions ? 0 : static_cast<int>(devices.offset); // write list positions directly
  std::vector<int> cells(count, -1);
  int nonZero = 0;
  const auto strides = stridesOf(flat, tableBase, extent);
  const CellByTables byTables{flat.data() + tableBase[0], flat.data() + tableBase[1], flat.data() + tableBase[2],
                              flat.data() + tableBase[3]};
  bool keysMatch = false;
  const auto withChecks = [&](auto at, auto cellOf, auto keyOk) {
    const bool skip = layout.checkedAxis >= 0 && lo[layout.checkedAxis] == 0 && hi[layout.checkedAxis] == 0;
    const bool zeroCorner = skip && lo[0] == 0 && lo[1] == 0 && lo[2] == 0 && lo[3] == 0;
    switch (layout.checkedAxis) {
    case 2:
      if (zeroCorner)
        return scatterByOffsets<2, true, true>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero,
                                               keysMatch);
      return skip ? scatterByOffsets<2, true>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero, keysMatch)
                  : scatterByOffsets<2>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero, keysMatch);
    case 3:
      if (zeroCorner)
        return scatterByOffsets<3, true, true>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero,
                                               keysMatch);
      return skip ? scatterByOffsets<3, true>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero, keysMatch)
                  : scatterByOffsets<3>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero, keysMatch);
    default:
      return scatterByOffsets<-1>(count, at, lo, hi, cellOf, keyOk, base, cells.data(), nonZero, keysMatch);
    }
  };
  // Only contiguous views carry a granule check (hybrid runs), so the key variants skip `positions`.
  GranuleCheck* granule = devices.positions ? nullptr : devices.granule;
  const auto withCells = [&](auto at, auto cellOf) {
    if (!granule) return withChecks(at, cellOf, NoKeyCheck{});
    if (granule->process_is_granule) return withChecks(at, cellOf, ProcessKeyIs{granule->key});
    return withChecks(at, cellOf, SliceKeyIs{granule->key});
  };
  const auto run = [&](auto at) { return strides ? withCells(at, *strides) : withCells(at, byTables); };
  const bool placed = devices.positions
                          ? run([&devices](std::size_t k) -> const Device& { return devices[k]; })
                          : run([all = devices.base()](std::size_t k) -> const Device& { return all[k]; });
  if (placed && granule) {
    granule->checked = true;
    granule->all_match = keysMatch;
  }
  // Anything to report (megacore, z on a tray, a hole) is left to the exact path.
  if (!placed || (layout.checkedAxis >= 0 && nonZero != 0)) return std::nullopt;
  if (hasHole(cells)) return std::nullopt;
  if (devices.positions)
    for (int& cell : cells) cell = devices.position(static_cast<std::size_t>(cell));
  if (physicalShape) *physicalShape = layout.shape;
  return cells;
}

DeviceGrid getPhysicalTpuMesh(const DeviceList& devices) { return physicalTpuMesh(DeviceView::whole(devices)); }

} // namespace shardscope::mesh_detail
