// create_hybrid_device_mesh (spec §3.6): one create_device_mesh per granule (slice or process),
// laid out by np.block over the DCN shape. The DCN index is the major part of every result index;
// a DCN of lower rank aligns with the LAST mesh dimensions, a higher one gives the per-granule
// meshes leading 1-dims (numpy's block rules, which the reference does not check).
#include "create_mesh_impl.hpp"

#include "shardscope/device_mesh_internals.hpp"
#include "shardscope/errors.hpp"

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

// Groups list positions by granule key, each group in list order; groups sorted by key or in
// order of first appearance.
std::vector<std::vector<int>> granulesOf(const DeviceList& devices, const HybridMeshOptions& options) {
  std::vector<std::pair<int, std::vector<int>>> groups;  // (key, positions), first-appearance order
  std::map<int, std::size_t> index;
  std::size_t current = 0;  // neighbours in the list usually share a granule: skip the map then
  for (std::size_t k = 0; k < devices.size(); ++k) {
    auto key = granuleKey(devices[k], options.process_is_granule);
    if (!key) missingAttribute(devices[k], options.process_is_granule);  // getattr fails on this device
    if (groups.empty() || groups[current].first != *key) {
      auto [it, inserted] = index.try_emplace(*key, groups.size());
      if (inserted) {
        groups.push_back({*key, {}});
        groups.back().second.reserve(devices.size() / 2 + 1);
      }
      current = it->second;
    }
    groups[current].second.push_back(static_cast<int>(k));
  }
  if (options.should_sort_granules_by_key)
    std::stable_sort(groups.begin(), groups.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  std::vector<std::vector<int>> out;
  out.reserve(groups.size());
  for (auto& g : groups) out.push_back(std::move(g.second));
  return out;
}

DeviceGrid blockLayout(const std::vector<MeshPlacement>& granules, const Shape& dcn) {
  const Shape& meshShape = granules.front().grid.shape();
  const std::size_t rank = std::max(meshShape.size(), dcn.size());
  Shape ms(rank - meshShape.size(), 1), ds(rank - dcn.size(), 1);
  ms.insert(ms.end(), meshShape.begin(), meshShape.end());
  ds.insert(ds.end(), dcn.begin(), dcn.end());
  Shape outShape(rank);
  for (std::size_t a = 0; a < rank; ++a) outShape[a] = ms[a] * ds[a];
  DeviceGrid out(outShape, std::vector<int>(static_cast<std::size_t>(shapeSize(outShape))));
  const Shape outStrides = out.strides();
  const Shape gStrides = DeviceGrid::iota(ds).strides();
  // Granule g's grid (row-major over ms) lands at offset g*ms along each axis: walk its rows with
  // an odometer over all but the last axis and copy each row as one contiguous run.
  const std::int64_t perGranule = shapeSize(ms);
  const std::int64_t row = rank ? ms[rank - 1] : 1;
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
    for (std::int64_t done = 0; done < perGranule; done += row) {
      std::copy(src + done, src + done + row, out.data().data() + offset);
      // Advance the row index (axes 0..rank-2) and its output offset.
      for (std::size_t a = rank ? rank - 1 : 0; a-- > 0;) {
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
HybridPlacement hybridImpl(const ShapeArg& meshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                           const HybridMeshOptions& options) {
  if (devices.empty()) throwValueError("list index out of range");  // devices[0]
  // Only the first device's attribute is checked up front, as the reference does (§9.11).
  if (!granuleKey(devices.front(), options.process_is_granule)) missingAttribute(devices.front(), options.process_is_granule);
  const auto granules = granulesOf(devices, options);
  std::int64_t dcnProduct = 1;
  bool overflow = false;
  for (auto d : dcnMeshShape) overflow |= __builtin_mul_overflow(dcnProduct, d, &dcnProduct);
  if (overflow || dcnProduct != static_cast<std::int64_t>(granules.size()))
    throwValueError("Number of slices " + std::to_string(granules.size()) + " must equal the product of dcn_mesh_shape " +
                    (options.dcn_mesh_shape_repr.empty() ? shapeRepr(dcnMeshShape) : options.dcn_mesh_shape_repr));

  int negatives = 0;
  for (auto d : dcnMeshShape) negatives += d < 0;
  if (negatives > 1) throwValueError("can only specify one unknown dimension");  // np.arange(G).reshape(dcn)

  HybridPlacement out;
  out.granules.reserve(granules.size());
  CreateMeshOptions perGranule;
  perGranule.allow_split_physical_axes = options.allow_split_physical_axes;
  for (const auto& positions : granules) {
    Shape shape;
    if constexpr (std::is_same_v<ShapeArg, PyValue>) shape = mesh_detail::canonicalMeshShape(meshShape);
    else shape = meshShape;
    out.granules.push_back(mesh_detail::createDeviceMeshOnView(shape, DeviceView{&devices, &positions}, perGranule));
  }
  out.grid = blockLayout(out.granules, dcnMeshShape);
  return out;
}

} // namespace

HybridPlacement createHybridDeviceMesh(const Shape& meshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                                       const HybridMeshOptions& options) {
  return hybridImpl(meshShape, dcnMeshShape, devices, options);
}

HybridPlacement createHybridDeviceMesh(const PyValue& rawMeshShape, const Shape& dcnMeshShape, const DeviceList& devices,
                                       const HybridMeshOptions& options) {
  return hybridImpl(rawMeshShape, dcnMeshShape, devices, options);
}

} // namespace shardscope
