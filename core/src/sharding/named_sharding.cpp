// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/named_sharding.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <limits>

namespace shardscope {

namespace {

constexpr std::int64_t kMaxListedEntries = std::int64_t{1} << 24;
constexpr std::int64_t kMaxTotalsDevices = std::int64_t{1} << 22;

std::string prefixFor(std::string_view param) {
  return param.empty() ? std::string() : "parameter '" + std::string(param) + "': ";
}

std::int64_t checkedMul(std::int64_t a, std::int64_t b, const std::string& what) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) throwValueError(what + " overflows 64-bit integers");
  return r;
}

void checkedAdd(std::int64_t& into, std::int64_t add, const std::string& what) {
  if (__builtin_add_overflow(into, add, &into)) throwValueError(what + " overflows 64-bit integers");
}

std::string axesText(const MeshAxes& mesh, const std::vector<int>& axes) {
  std::string out;
  for (std::size_t k = 0; k < axes.size(); ++k) {
    const auto a = static_cast<std::size_t>(axes[k]);
    out += (k ? " x " : "") + pythonStrRepr(mesh.names[a]) + "(" + std::to_string(mesh.sizes[a]) + ")";
  }
  return out;
}

// Mesh coordinate of axis `a` at grid position `position`.
inline std::int64_t coordOf(const MeshAxes& mesh, const std::vector<std::int64_t>& strides, std::int64_t position,
                            std::size_t a) {
  return (position / strides[a]) % mesh.sizes[a];
}

void checkPosition(const MeshAxes& mesh, std::int64_t position) {
  if (position < 0 || position >= mesh.deviceCount())
    throwValueError("grid position " + std::to_string(position) + " is outside the mesh of " +
                    std::to_string(mesh.deviceCount()) + " devices");
}

} // namespace

ArrayLayout layoutArray(const MeshAxes& mesh, const Shape& shape, const DType& dtype, const PartitionSpec& spec,
                        const LayoutOptions& options) {
  const std::string prefix = prefixFor(options.param);
  if (spec.size() > shape.size())
    throwValueError(prefix + "partition spec " + spec.toString() + " has " + std::to_string(spec.size()) +
                    " entries but the array has rank " + std::to_string(shape.size()) + " (shape " + shapeRepr(shape) +
                    ")");
  ArrayLayout out;
  out.shape = shape;
  out.dtype = dtype;
  out.dims.resize(shape.size());
  out.shard_shape.resize(shape.size());
  out.axis_used.assign(mesh.rank(), false);
  std::vector<int> usedByDim(mesh.rank(), -1);

  std::int64_t total = 1, shardElems = 1, shards = 1;
  std::vector<std::string> names;
  for (std::size_t i = 0; i < shape.size(); ++i) {
    const std::int64_t n = shape[i];
    if (n < 0)
      throwValueError(prefix + "dimension " + std::to_string(i) + " of shape " + shapeRepr(shape) + " is negative");
    // The shape's text only when it is needed: built per dimension it made a rank-r shape cost r^2.
    if (__builtin_mul_overflow(total, n, &total))
      throwValueError(prefix + "the element count of shape " + shapeRepr(shape) + " overflows 64-bit integers");
    DimLayout& d = out.dims[i];
    if (i < spec.size()) {
      const SpecEntry& e = spec[i];
      if (e.kind == SpecEntry::Kind::Unconstrained) {
        if (options.diagnostics)
          options.diagnostics->push_back(
              {ShardingDiagnostic::Kind::UnexpectedEntry, static_cast<int>(i), "",
               "dimension " + std::to_string(i) +
                   " is UNCONSTRAINED; laid out as replicated (the compiler may choose otherwise)"});
      } else if (!e.isNone()) {
        if (!e.axisNames(names))
          throwValueError(prefix + "dimension " + std::to_string(i) + " of " + spec.toString() +
                          " has None inside the tuple " + entryRepr(e) +
                          "; a tuple entry may only hold mesh axis names");
        for (const auto& name : names) {
          const int a = mesh.index(name);
          if (a < 0)
            throwValueError(prefix + "dimension " + std::to_string(i) + " of " + spec.toString() + " names mesh axis " +
                            pythonStrRepr(name) + ", which is not in the mesh " + mesh.describe());
          const auto ua = static_cast<std::size_t>(a);
          if (usedByDim[ua] >= 0) {
            const int j = usedByDim[ua];
            throwValueError(
                prefix + "mesh axis " + pythonStrRepr(name) + " is used twice in " + spec.toString() + " (" +
                (j == static_cast<int>(i) ? "within dimension " + std::to_string(i)
                                          : "by dimensions " + std::to_string(j) + " and " + std::to_string(i)) +
                "); a mesh axis may shard at most one dimension once");
          }
          usedByDim[ua] = static_cast<int>(i);
          out.axis_used[ua] = true;
          d.axes.push_back(a);
          d.ways *= mesh.sizes[ua]; // bounded by the mesh device count, no overflow
        }
      }
    }
    d.chunk = n / d.ways + (n % d.ways != 0 ? 1 : 0); // ceil without overflowing n + ways
    d.uneven = n % d.ways != 0;
    if (d.uneven) {
      const std::string what = "dimension " + std::to_string(i) + " (size " + std::to_string(n) +
                               ") is not divisible by " + axesText(mesh, d.axes) + " = " + std::to_string(d.ways);
      if (!options.allow_uneven) throwValueError(prefix + what + " in " + spec.toString());
      out.uneven = true;
      if (options.diagnostics) {
        std::string axisList;
        for (std::size_t k = 0; k < d.axes.size(); ++k)
          axisList += (k ? "," : "") + mesh.names[static_cast<std::size_t>(d.axes[k])];
        options.diagnostics->push_back({ShardingDiagnostic::Kind::UnevenShard, static_cast<int>(i), axisList,
                                        what + ": blocks of " + std::to_string(d.chunk) +
                                            ", the last ones shorter; every device allocates the padded " +
                                            std::to_string(d.chunk)});
      }
    }
    out.shard_shape[i] = d.chunk;
    shardElems *= d.chunk; // <= total (chunk <= n), no overflow
    shards *= d.ways;
  }
  out.total_elements = total;
  out.shard_elements = shardElems;
  out.total_bytes = dtype.bytesFor(total);
  out.shard_bytes = dtype.bytesFor(shardElems);
  out.shards = shards;
  out.replication = mesh.deviceCount() / shards;
  return out;
}

Shape blockIndex(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position) {
  checkPosition(mesh, position);
  const auto strides = mesh.strides();
  Shape b(layout.dims.size(), 0);
  for (std::size_t i = 0; i < layout.dims.size(); ++i)
    for (int a : layout.dims[i].axes) {
      const auto ua = static_cast<std::size_t>(a);
      b[i] = b[i] * mesh.sizes[ua] + coordOf(mesh, strides, position, ua);
    }
  return b;
}

std::vector<IndexRange> deviceIndexRanges(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position) {
  const Shape b = blockIndex(layout, mesh, position);
  std::vector<IndexRange> out(layout.dims.size());
  for (std::size_t i = 0; i < out.size(); ++i) {
    const std::int64_t n = layout.shape[i];
    const std::int64_t c = layout.dims[i].chunk;
    const std::int64_t start = std::min(b[i] * c, n);
    out[i] = {start, start + std::min(c, n - start)};
  }
  return out;
}

std::int64_t heldElements(const ArrayLayout& layout, const MeshAxes& mesh, std::int64_t position) {
  std::int64_t held = 1;
  for (const auto& r : deviceIndexRanges(layout, mesh, position)) held *= r.stop - r.start;
  return held;
}

std::vector<std::vector<IndexRange>> devicesIndicesMap(const ArrayLayout& layout, const MeshAxes& mesh) {
  const std::int64_t n = mesh.deviceCount();
  if (n * static_cast<std::int64_t>(std::max<std::size_t>(1, layout.dims.size())) > kMaxListedEntries)
    throwValueError("devices_indices_map of " + std::to_string(n) + " devices x " + std::to_string(layout.dims.size()) +
                    " dimensions is too large to list; ask per device position");
  std::vector<std::vector<IndexRange>> out;
  out.reserve(static_cast<std::size_t>(n));
  for (std::int64_t p = 0; p < n; ++p) out.push_back(deviceIndexRanges(layout, mesh, p));
  return out;
}

std::vector<std::vector<std::int64_t>> replicaGroups(const ArrayLayout& layout, const MeshAxes& mesh) {
  const std::int64_t n = mesh.deviceCount();
  if (n > kMaxListedEntries)
    throwValueError("replica groups of " + std::to_string(n) + " devices are too many to list");
  std::vector<std::vector<std::int64_t>> groups(static_cast<std::size_t>(layout.shards));
  const auto strides = mesh.strides();
  for (std::int64_t p = 0; p < n; ++p) {
    // Flatten the block index row-major over the dimensions.
    std::int64_t key = 0;
    for (const auto& d : layout.dims) {
      std::int64_t b = 0;
      for (int a : d.axes) {
        const auto ua = static_cast<std::size_t>(a);
        b = b * mesh.sizes[ua] + coordOf(mesh, strides, p, ua);
      }
      key = key * d.ways + b;
    }
    groups[static_cast<std::size_t>(key)].push_back(p);
  }
  std::sort(groups.begin(), groups.end(), [](const auto& x, const auto& y) { return x.front() < y.front(); });
  return groups;
}

// --- DeviceTotalsBuilder ---------------------------------------------------------------------

DeviceTotalsBuilder::DeviceTotalsBuilder(const MeshAxes& mesh) : mesh_(mesh) {
  if (mesh.deviceCount() > kMaxTotalsDevices)
    throwValueError("per-device totals need one entry per device; " + std::to_string(mesh.deviceCount()) +
                    " devices is more than 2^22");
}

DeviceTotalsBuilder::UnevenTable& DeviceTotalsBuilder::tableFor(const std::vector<int>& axes) {
  for (auto& t : tables_)
    if (t.axes == axes) return t;
  std::int64_t size = 1;
  for (int a : axes) size *= mesh_.sizes[static_cast<std::size_t>(a)];
  const auto n = static_cast<std::size_t>(size);
  tables_.push_back({axes, std::vector<std::int64_t>(n, 0), std::vector<std::int64_t>(n, 0),
                     std::vector<std::int64_t>(n + 1, 0), std::vector<std::int64_t>(n + 1, 0)});
  return tables_.back();
}

void DeviceTotalsBuilder::add(const ArrayLayout& layout, std::int64_t count) {
  if (count < 0) throwValueError("DeviceTotalsBuilder::add: negative count");
  if (layout.axis_used.size() != mesh_.rank())
    throwValueError("DeviceTotalsBuilder::add: the layout was made for a mesh of another rank");
  // Every per-device figure is at most the padded one, so checking these sums bounds them all.
  const std::string what = "per-device byte totals";
  checkedAdd(total_bytes_, checkedMul(layout.total_bytes, count, what), what);
  checkedAdd(padded_bytes_, checkedMul(layout.shard_bytes, count, what), what);
  checkedAdd(padded_elements_, checkedMul(layout.shard_elements, count, what), what);
  if (!layout.uneven) {
    uniform_bytes_ += layout.shard_bytes * count;
    uniform_elements_ += layout.shard_elements * count;
    return;
  }
  // The held size depends only on the block indices of the uneven dimensions. Their axes, taken
  // dimension by dimension, index a sub-grid whose row-major cell is exactly the row-major
  // combination of those block indices.
  std::vector<int> axes;
  std::vector<std::size_t> unevenDims;
  std::int64_t evenFactor = 1;
  for (std::size_t i = 0; i < layout.dims.size(); ++i) {
    const auto& d = layout.dims[i];
    if (d.uneven) {
      axes.insert(axes.end(), d.axes.begin(), d.axes.end());
      unevenDims.push_back(i);
    } else {
      evenFactor *= d.chunk;
    }
  }
  UnevenTable& table = tableFor(axes);
  auto lengthAt = [&](std::size_t i, std::int64_t b) {
    const std::int64_t n = layout.shape[i], c = layout.dims[i].chunk;
    const std::int64_t start = std::min(b * c, n);
    return std::min(c, n - start);
  };

  if (unevenDims.size() == 1) {
    // Blocks 0..q-1 are full, block q holds the remainder, later blocks are empty: a step
    // function of the cell, added in O(1) to the difference arrays.
    const std::size_t i = unevenDims[0];
    const std::int64_t ways = layout.dims[i].ways, c = layout.dims[i].chunk, n = layout.shape[i];
    const std::int64_t q = std::min(ways, c > 0 ? n / c : ways);
    const std::int64_t fullHeld = evenFactor * c;
    const std::int64_t fullBytes = layout.dtype.bytesFor(fullHeld) * count;
    auto addRange = [&](std::int64_t from, std::int64_t to, std::int64_t bytes, std::int64_t elems) {
      if (from >= to) return;
      table.bytesDiff[static_cast<std::size_t>(from)] += bytes;
      table.bytesDiff[static_cast<std::size_t>(to)] -= bytes;
      table.elementsDiff[static_cast<std::size_t>(from)] += elems;
      table.elementsDiff[static_cast<std::size_t>(to)] -= elems;
    };
    addRange(0, q, fullBytes, fullHeld * count);
    if (q < ways) {
      const std::int64_t tailHeld = evenFactor * lengthAt(i, q);
      addRange(q, q + 1, layout.dtype.bytesFor(tailHeld) * count, tailHeld * count);
    }
    return;
  }
  // Several uneven dimensions: walk the sub-grid (bounded by the device count).
  std::vector<std::int64_t> blockStride(unevenDims.size(), 1);
  for (std::size_t k = unevenDims.size(); k-- > 1;)
    blockStride[k - 1] = blockStride[k] * layout.dims[unevenDims[k]].ways;
  const auto cells = static_cast<std::int64_t>(table.bytes.size());
  for (std::int64_t cell = 0; cell < cells; ++cell) {
    std::int64_t held = evenFactor;
    for (std::size_t k = 0; k < unevenDims.size() && held > 0; ++k) {
      const std::size_t i = unevenDims[k];
      held *= lengthAt(i, (cell / blockStride[k]) % layout.dims[i].ways);
    }
    table.bytes[static_cast<std::size_t>(cell)] += layout.dtype.bytesFor(held) * count;
    table.elements[static_cast<std::size_t>(cell)] += held * count;
  }
}

DeviceTotals DeviceTotalsBuilder::finish() const {
  DeviceTotals out;
  const std::int64_t n = mesh_.deviceCount();
  out.data_bytes.assign(static_cast<std::size_t>(n), uniform_bytes_);
  out.data_elements.assign(static_cast<std::size_t>(n), uniform_elements_);
  out.padded_bytes = padded_bytes_;
  out.padded_elements = padded_elements_;
  out.total_bytes = total_bytes_;
  const auto strides = mesh_.strides();
  for (const auto& t : tables_) {
    // Resolve the difference arrays into per-cell values.
    std::vector<std::int64_t> bytes = t.bytes, elements = t.elements;
    std::int64_t runBytes = 0, runElements = 0;
    for (std::size_t c = 0; c < bytes.size(); ++c) {
      runBytes += t.bytesDiff[c];
      runElements += t.elementsDiff[c];
      bytes[c] += runBytes;
      elements[c] += runElements;
    }
    std::vector<std::int64_t> subStride(t.axes.size());
    std::int64_t s = 1;
    for (std::size_t k = t.axes.size(); k-- > 0;) {
      subStride[k] = s;
      s *= mesh_.sizes[static_cast<std::size_t>(t.axes[k])];
    }
    for (std::int64_t p = 0; p < n; ++p) {
      std::int64_t cell = 0;
      for (std::size_t k = 0; k < t.axes.size(); ++k)
        cell += coordOf(mesh_, strides, p, static_cast<std::size_t>(t.axes[k])) * subStride[k];
      out.data_bytes[static_cast<std::size_t>(p)] += bytes[static_cast<std::size_t>(cell)];
      out.data_elements[static_cast<std::size_t>(p)] += elements[static_cast<std::size_t>(cell)];
    }
  }
  out.max_bytes = std::numeric_limits<std::int64_t>::min();
  out.min_bytes = std::numeric_limits<std::int64_t>::max();
  long double sum = 0;
  for (std::int64_t p = 0; p < n; ++p) {
    const std::int64_t b = out.data_bytes[static_cast<std::size_t>(p)];
    if (b > out.max_bytes) out.max_bytes = b, out.argmax = p;
    if (b < out.min_bytes) out.min_bytes = b, out.argmin = p;
    sum += b;
  }
  out.mean_bytes = static_cast<double>(sum / static_cast<long double>(n));
  return out;
}

DeviceTotals deviceTotals(const MeshAxes& mesh, std::span<const ArrayLayout> layouts) {
  DeviceTotalsBuilder builder(mesh);
  for (const auto& l : layouts) builder.add(l);
  return builder.finish();
}

} // namespace shardscope
