// SPDX-License-Identifier: Apache-2.0
// create_hybrid_device_mesh (jax-mesh-utils spec §3.6): one create_device_mesh per granule (slice or process),
// laid out by np.block over the DCN shape. The DCN index is the major part of every result index;
// a DCN of lower rank aligns with the LAST mesh dimensions, a higher one gives the per-granule
// meshes leading 1-dims (numpy's block rules, which the reference does not check).
#include "create_mesh_impl.hpp"

#include "mesh/device_mesh/device_mesh_internals.hpp"
#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <map>

namespace shardscope {

namespace {

using mesh_detail::DeviceView;

std::optional<int> granuleKey(const Device& d, bool processIsGranule) {
  if (processIsGranule) return d.process_index;
  return d.slice_index;
}

[[noreturn]] void missingAttribute(const Device& d, bool processIsGranule) {
  throwValueError("Device " + mesh_detail::referenceDeviceRepr(d) + " does not have attribute " +
                  (processIsGranule ? "process_index" : "slice_index") + ". See `process_is_granule` option.");
}

// One granule: its key and its devices, either a contiguous run of the list (the usual
// slice-major or process-major order) or, when a key's devices are scattered, their positions.
struct Granule {
  int key = 0;
  std::size_t begin = 0, count = 0;
  std::vector<int> positions;
  bool scattered = false;
};

// Groups devices by granule key, each group in list order; groups sorted by key (stable) or in
// order of first appearance.
std::vector<Granule> granulesOf(const DeviceList& devices, const HybridMeshOptions& options) {
  std::vector<Granule> groups;
  std::map<int, std::size_t> index;
  bool scattered = false;
  for (std::size_t k = 0; k < devices.size(); ++k) {
    auto key = granuleKey(devices[k], options.process_is_granule);
    if (!key) missingAttribute(devices[k], options.process_is_granule); // getattr fails on this device
    if (!groups.empty() && groups.back().key == *key) {
      ++groups.back().count; // the common case: the run goes on
      continue;
    }
    if (!index.try_emplace(*key, groups.size()).second) scattered = true; // a key seen before: not a run
    groups.push_back({*key, k, 1, {}, false});
  }
  if (scattered) {
    // Merge the runs of each key into one position list, keeping first-appearance order.
    std::vector<Granule> merged;
    std::map<int, std::size_t> where;
    for (const Granule& run : groups) {
      auto [it, inserted] = where.try_emplace(run.key, merged.size());
      if (inserted) merged.push_back({run.key, 0, 0, {}, true});
      auto& positions = merged[it->second].positions;
      for (std::size_t k = run.begin; k < run.begin + run.count; ++k) positions.push_back(static_cast<int>(k));
    }
    groups = std::move(merged);
  }
  if (options.should_sort_granules_by_key)
    std::stable_sort(groups.begin(), groups.end(), [](const Granule& a, const Granule& b) { return a.key < b.key; });
  return groups;
}

DeviceGrid blockLayout(const std::vector<MeshPlacement>& granules, const Shape& dcn) {
  const Shape& meshShape = granules.front().grid.shape();
  const std::size_t rank = std::max(meshShape.size(), dcn.size());
  Shape ms(rank - meshShape.size(), 1), ds(rank - dcn.size(), 1);
  ms.insert(ms.end(), meshShape.begin(), meshShape.end());
  ds.insert(ds.end(), dcn.begin(), dcn.end());
  Shape outShape(rank);
  for (std::size_t a = 0; a < rank; ++a) outShape[a] = ms[a] * ds[a];
  // Only the leading axis split (the usual DCN shape, e.g. (slices, 1, 1)): the granules' grids
  // follow one another, so the output is their concatenation, written once (no zeroing first).
  bool leadingOnly = true;
  for (std::size_t a = 1; a < rank; ++a) leadingOnly = leadingOnly && ds[a] == 1;
  if (leadingOnly) {
    std::vector<int> cells;
    cells.reserve(static_cast<std::size_t>(shapeSize(outShape)));
    for (const auto& g : granules) cells.insert(cells.end(), g.grid.data().begin(), g.grid.data().end());
    return DeviceGrid(outShape, std::move(cells));
  }
  DeviceGrid out(outShape, std::vector<int>(static_cast<std::size_t>(shapeSize(outShape))));
  const Shape outStrides = out.strides();
  const Shape gStrides = DeviceGrid::iota(ds).strides();
  // Granule g's grid (row-major over ms) lands at offset g*ms along each axis. The trailing axes
  // where dcn is 1 are whole in the output, so from the last axis with dcn > 1 inwards the granule
  // is one contiguous run per index of the axes before it: walk those with an odometer and copy
  // each run at once (one copy per granule when only the leading axis is split).
  const std::int64_t perGranule = shapeSize(ms);
  std::size_t firstWhole = rank; // axes [runAxis, rank) form one run
  while (firstWhole > 0 && ds[firstWhole - 1] == 1) --firstWhole;
  const std::size_t runAxis = firstWhole > 0 ? firstWhole - 1 : 0;
  std::int64_t run = 1;
  for (std::size_t a = runAxis; a < rank; ++a) run *= ms[a];
  Shape gIdx(rank, 0), iIdx(rank, 0);
  for (std::size_t g = 0; g < granules.size(); ++g) {
    std::int64_t rest = static_cast<std::int64_t>(g), base = 0;
    for (std::size_t a = 0; a < rank; ++a) {
      gIdx[a] = rest / gStrides[a];
      rest %= gStrides[a];
      base += gIdx[a] * ms[a] * outStrides[a];
    }
    const int* src = granules[g].grid.data().data();
    std::fill(iIdx.begin(), iIdx.end(), 0);
    std::int64_t offset = base;
    for (std::int64_t done = 0; done < perGranule; done += run) {
      std::copy(src + done, src + done + run, out.data().data() + offset);
      // Advance the index of the axes before the run and its output offset.
      for (std::size_t a = runAxis; a-- > 0;) {
        if (++iIdx[a] < ms[a]) {
          offset += outStrides[a];
          break;
        }
        offset -= (ms[a] - 1) * outStrides[a];
        iIdx[a] = 0;
      }
    }
  }
  return out;
}

template <class ShapeArg>
Shape granuleShape(const ShapeArg& meshShape) {
  if constexpr (std::is_same_v<ShapeArg, PyValue>)
    return mesh_detail::canonicalMeshShape(meshShape);
  else
    return meshShape;
}

bool dcnMatches(const Shape& dcn, std::size_t granules) {
  std::int64_t product = 1;
  bool overflow = false;
  for (auto d : dcn) overflow |= __builtin_mul_overflow(product, d, &product);
  return !overflow && product == static_cast<std::int64_t>(granules);
}

// The fast path for lists whose granules are contiguous runs (slice-major jax.devices() order):
// each run is meshed right after it is found, while its devices are still in cache, instead of
// grouping the whole list first. It gives up (nullopt) on anything unusual, including any error,
// so the exact path below reproduces the reference's checks and their order.
template <class ShapeArg>
std::optional<HybridPlacement> hybridFromRuns(const ShapeArg& meshShape, const Shape& dcnMeshShape,
                                              const DeviceList& devices, const HybridMeshOptions& options) {
  std::vector<std::pair<int, MeshPlacement>> built;
  std::vector<int> keys;
  CreateMeshOptions perGranule;
  perGranule.allow_split_physical_axes = options.allow_split_physical_axes;
  // Runs of equal length are the usual case: guess that length from the DCN shape, and let the
  // placement pass confirm each run's keys while it reads the devices anyway.
  std::size_t guessed = 0;
  {
    std::int64_t granules = 1;
    bool known = true;
    for (auto d : dcnMeshShape) known = known && d > 0 && !__builtin_mul_overflow(granules, d, &granules);
    if (known && static_cast<std::size_t>(granules) <= devices.size() &&
        devices.size() % static_cast<std::size_t>(granules) == 0)
      guessed = devices.size() / static_cast<std::size_t>(granules);
  }
  const auto keyAt = [&](std::size_t k) { return granuleKey(devices[k], options.process_is_granule); };
  try {
    const Shape shape = granuleShape(meshShape);
    for (std::size_t begin = 0; begin < devices.size();) {
      const auto key = keyAt(begin);
      if (!key || std::find(keys.begin(), keys.end(), *key) != keys.end()) return std::nullopt;
      keys.push_back(*key);
      if (guessed) {
        const std::size_t end = begin + guessed;
        mesh_detail::GranuleCheck check{options.process_is_granule, *key, false, false};
        built.emplace_back(*key, mesh_detail::createDeviceMeshOnView(
                                     shape, DeviceView::range(devices, begin, guessed, &check), perGranule));
        if (!check.checked) { // a path that did not look at the keys: scan them
          check.all_match = true;
          for (std::size_t k = begin; k < end && check.all_match; ++k) check.all_match = keyAt(k) == key;
        }
        if (!check.all_match) return std::nullopt; // not one granule: the exact path groups the list
        begin = end;
        continue;
      }
      std::size_t end = begin + 1;
      while (end < devices.size() && keyAt(end) == key) ++end;
      built.emplace_back(
          *key, mesh_detail::createDeviceMeshOnView(shape, DeviceView::range(devices, begin, end - begin), perGranule));
      begin = end;
    }
  } catch (const Error&) {
    return std::nullopt;
  }
  if (!dcnMatches(dcnMeshShape, built.size())) return std::nullopt;
  if (options.should_sort_granules_by_key)
    std::stable_sort(built.begin(), built.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  HybridPlacement out;
  out.granules.reserve(built.size());
  for (auto& [key, placement] : built) out.granules.push_back(std::move(placement));
  return out;
}

template <class ShapeArg>
HybridPlacement hybridImpl(const ShapeArg& meshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                           const HybridMeshOptions& options) {
  if (devices.empty()) throwValueError("list index out of range"); // devices[0]
  // Only the first device's attribute is checked up front, as the reference does (§9.11).
  if (!granuleKey(devices.front(), options.process_is_granule))
    missingAttribute(devices.front(), options.process_is_granule);
  int negatives = 0;
  for (auto d : dcnMeshShape) negatives += d < 0;

  if (negatives <= 1) {
    if (auto fast = hybridFromRuns(meshShape, dcnMeshShape, devices, options)) {
      fast->grid = blockLayout(fast->granules, dcnMeshShape);
      return std::move(*fast);
    }
  }

  const auto granules = granulesOf(devices, options);
  if (!dcnMatches(dcnMeshShape, granules.size()))
    throwValueError("Number of slices " + std::to_string(granules.size()) +
                    " must equal the product of dcn_mesh_shape " +
                    (options.dcn_mesh_shape_repr.empty() ? shapeRepr(dcnMeshShape) : options.dcn_mesh_shape_repr));
  if (negatives > 1) throwValueError("can only specify one unknown dimension"); // np.arange(G).reshape(dcn)

  HybridPlacement out;
  out.granules.reserve(granules.size());
  CreateMeshOptions perGranule;
  perGranule.allow_split_physical_axes = options.allow_split_physical_axes;
  for (const Granule& granule : granules) {
    const Shape shape = granuleShape(meshShape);
    const DeviceView view = granule.scattered ? DeviceView::subset(devices, granule.positions)
                                              : DeviceView::range(devices, granule.begin, granule.count);
    out.granules.push_back(mesh_detail::createDeviceMeshOnView(shape, view, perGranule));
  }
  out.grid = blockLayout(out.granules, dcnMeshShape);
  return out;
}

} // namespace

HybridPlacement createHybridDeviceMesh(const Shape& meshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                                       const HybridMeshOptions& options) {
  return hybridImpl(meshShape, dcnMeshShape, devices, options);
}

HybridPlacement createHybridDeviceMesh(const PyValue& rawMeshShape, const Shape& dcnMeshShape,
                                       const DeviceList& devices, const HybridMeshOptions& options) {
  return hybridImpl(rawMeshShape, dcnMeshShape, devices, options);
}

} // namespace shardscope
