// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/sharding_rules.hpp"

#include "shardscope/base/errors.hpp"
#include "shardscope/sharding/named_sharding.hpp"

#include <algorithm>
#include <limits>
#include <numeric>

namespace shardscope {

namespace {

std::int64_t elementCount(const Shape& shape) {
  std::int64_t n = 1;
  for (auto d : shape)
    if (__builtin_mul_overflow(n, d, &n)) throwValueError("shape " + shapeRepr(shape) + " is too large");
  return n;
}

// Mesh size of an axis, or the KeyError the reference's mesh.shape[name] raises.
std::int64_t meshSize(const MeshAxes& mesh, const std::string& axis) {
  const int i = mesh.index(axis);
  if (i < 0) throw Error(ErrorKind::KeyError, pythonStrRepr(axis));
  return mesh.sizes[static_cast<std::size_t>(i)];
}

// Dimension indices by size, largest first (smallest first when ascending); ties keep index
// order, as numpy's argsort does for the short arrays it sees here.
std::vector<std::size_t> dimensionOrder(const Shape& shape, bool ascending) {
  std::vector<std::size_t> order(shape.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return ascending ? shape[a] < shape[b] : shape[a] > shape[b]; });
  return order;
}

std::vector<std::string> orAllAxes(std::vector<std::string> names, const MeshAxes& mesh) {
  return names.empty() ? mesh.names : names;
}

} // namespace

std::vector<PartitionSpec> ShardingRule::apply(std::span<const ArrayShape> arrays,
                                               std::vector<ShardingDiagnostics>* diagnostics) const {
  std::vector<PartitionSpec> out;
  out.reserve(arrays.size());
  if (diagnostics) diagnostics->assign(arrays.size(), {});
  for (std::size_t i = 0; i < arrays.size(); ++i)
    out.push_back(specFor(arrays[i], diagnostics ? &(*diagnostics)[i] : nullptr));
  return out;
}

// --- AutoShardingRule ----------------------------------------------------------------------------

AutoShardingRule::AutoShardingRule(MeshAxes mesh, std::vector<std::string> axisNames,
                                   std::optional<std::int64_t> minShardSize, bool reverse)
    : mesh_(std::move(mesh)), reverse_(reverse) {
  axisNames_ = orAllAxes(std::move(axisNames), mesh_);
  // Python `min_shard_size or default`: 0 also takes the default. The default is the device
  // count, as documented (the reference's np.prod(mesh.shape) is a dict, eformer-jaxpp spec §1.11 bug #1).
  minShardSize_ = minShardSize.value_or(0) != 0 ? *minShardSize : mesh_.deviceCount();
  // The reference's set() drops duplicates; keep the first occurrence to stay deterministic.
  std::vector<std::string> unique;
  for (auto& a : axisNames_)
    if (std::find(unique.begin(), unique.end(), a) == unique.end()) unique.push_back(a);
  axisNames_ = std::move(unique);
}

PartitionSpec AutoShardingRule::specFor(const ArrayShape& array, ShardingDiagnostics*) const {
  const Shape& shape = array.shape;
  if (elementCount(shape) < minShardSize_) return PartitionSpec();
  std::vector<SpecEntry> spec(shape.size());
  std::vector<std::string> remaining = axisNames_;
  for (std::size_t dim : dimensionOrder(shape, reverse_)) {
    auto best = remaining.end();
    for (auto it = remaining.begin(); it != remaining.end(); ++it)
      if (shape[dim] % meshSize(mesh_, *it) == 0) {
        best = it;
        break;
      }
    // `if best_axis:` in the reference: an empty axis name is never assigned.
    if (best != remaining.end() && !best->empty()) {
      spec[dim] = SpecEntry::axis(*best);
      remaining.erase(best);
    }
    if (remaining.empty()) break;
  }
  return PartitionSpec(std::move(spec));
}

// --- MemoryConstrainedShardingRule -----------------------------------------------------------------

MemoryConstrainedShardingRule::MemoryConstrainedShardingRule(std::int64_t maxMemoryPerDevice, MeshAxes mesh,
                                                             std::vector<std::string> axisNames)
    : limit_(maxMemoryPerDevice), mesh_(std::move(mesh)) {
  axisNames_ = orAllAxes(std::move(axisNames), mesh_);
}

PartitionSpec MemoryConstrainedShardingRule::specFor(const ArrayShape& array, ShardingDiagnostics* diagnostics) const {
  const Shape& shape = array.shape;
  std::int64_t bytes = 0;
  if (__builtin_mul_overflow(elementCount(shape), std::int64_t{array.dtype.itemsize}, &bytes))
    throwValueError("shape " + shapeRepr(shape) + " is too large");
  if (bytes <= limit_) return PartitionSpec();

  // sorted(axis_names, key=size, reverse=True): sizes are all looked up first (KeyError in list
  // order), and Python's reverse sort keeps ties in their original order.
  std::vector<std::pair<std::string, std::int64_t>> axes;
  for (const auto& a : axisNames_) axes.emplace_back(a, meshSize(mesh_, a));
  std::stable_sort(axes.begin(), axes.end(), [](const auto& x, const auto& y) { return x.second > y.second; });

  std::vector<SpecEntry> spec(shape.size());
  std::int64_t remaining = bytes;
  for (std::size_t dim : dimensionOrder(shape, false)) {
    if (remaining <= limit_) break;
    for (auto it = axes.begin(); it != axes.end(); ++it)
      if (shape[dim] % it->second == 0) {
        spec[dim] = SpecEntry::axis(it->first);
        remaining /= it->second;
        axes.erase(it);
        break;
      }
  }
  if (remaining > limit_ && diagnostics)
    diagnostics->push_back({ShardingDiagnostic::Kind::OverMemoryLimit, -1, "",
                            "still " + std::to_string(remaining) +
                                " bytes per device after sharding, above the limit of " + std::to_string(limit_) +
                                " (the reference returns this spec silently)"});
  return PartitionSpec(std::move(spec));
}

// --- ShapeBasedShardingRule --------------------------------------------------------------------------

ShapeBasedShardingRule::ShapeBasedShardingRule(std::vector<std::pair<ShapePattern, PartitionSpec>> patterns)
    : patterns_(std::move(patterns)) {}

PartitionSpec ShapeBasedShardingRule::specFor(const ArrayShape& array, ShardingDiagnostics*) const {
  for (const auto& [pattern, spec] : patterns_) {
    if (pattern.size() != array.shape.size()) continue;
    bool match = true;
    for (std::size_t i = 0; i < pattern.size() && match; ++i) match = !pattern[i] || *pattern[i] == array.shape[i];
    if (match) return spec;
  }
  return PartitionSpec();
}

// --- CompositeShardingRule -----------------------------------------------------------------------------

CompositeShardingRule::CompositeShardingRule(std::vector<std::shared_ptr<const ShardingRule>> rules)
    : rules_(std::move(rules)) {
  for (const auto& r : rules_)
    if (!r) throwValueError("CompositeShardingRule: a rule is null");
}

std::vector<PartitionSpec> CompositeShardingRule::apply(std::span<const ArrayShape> arrays,
                                                        std::vector<ShardingDiagnostics>* diagnostics) const {
  // Every rule runs over every array first, as the reference does, so errors surface in rule order.
  std::vector<std::vector<PartitionSpec>> results;
  std::vector<std::vector<ShardingDiagnostics>> notes(rules_.size());
  for (std::size_t r = 0; r < rules_.size(); ++r) results.push_back(rules_[r]->apply(arrays, &notes[r]));
  std::vector<PartitionSpec> out(arrays.size());
  if (diagnostics) diagnostics->assign(arrays.size(), {});
  for (std::size_t i = 0; i < arrays.size(); ++i) {
    for (std::size_t r = 0; r < rules_.size(); ++r) {
      if (results[r][i].empty()) continue;
      out[i] = results[r][i];
      if (diagnostics) {
        auto& d = (*diagnostics)[i];
        d.insert(d.end(), notes[r][i].begin(), notes[r][i].end());
        if (out[i].isReplicated() && r + 1 < rules_.size())
          d.push_back({ShardingDiagnostic::Kind::ReferenceBug, -1, "",
                       "rule " + std::to_string(r) + " gave " + out[i].toString() +
                           ", which means replicated but is not P(), so the later rules were not consulted"});
      }
      break;
    }
  }
  return out;
}

PartitionSpec CompositeShardingRule::specFor(const ArrayShape& array, ShardingDiagnostics* diagnostics) const {
  std::vector<ShardingDiagnostics> notes;
  auto specs = apply(std::span<const ArrayShape>(&array, 1), diagnostics ? &notes : nullptr);
  if (diagnostics) diagnostics->insert(diagnostics->end(), notes[0].begin(), notes[0].end());
  return specs[0];
}

// --- ShardingAnalyzer -------------------------------------------------------------------------------------

ShardingAnalyzer::ShardingAnalyzer(MeshAxes mesh) : mesh_(std::move(mesh)) {}

std::vector<std::string> ShardingAnalyzer::validatePartitionSpecs(std::span<const ArrayShape> arrays,
                                                                  std::span<const PartitionSpec> specs) const {
  if (arrays.size() != specs.size())
    throwValueError("validate_partition_specs: " + std::to_string(arrays.size()) + " arrays but " +
                    std::to_string(specs.size()) + " specs");
  std::vector<std::string> issues;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    const Shape& shape = arrays[k].shape;
    const PartitionSpec& spec = specs[k];
    if (spec.empty()) continue;
    const std::string shapeText = shapeRepr(shape);
    for (std::size_t dim = 0; dim < spec.size(); ++dim) {
      const SpecEntry& e = spec[dim];
      if (e.kind != SpecEntry::Kind::Axis && e.kind != SpecEntry::Kind::Tuple) continue;
      const std::string name = e.kind == SpecEntry::Kind::Axis ? *e.members[0] : entryRepr(e);
      if (dim >= shape.size()) {
        issues.push_back("Array shape " + shapeText + " has no dimension " + std::to_string(dim) + " for mesh axis " +
                         name + " (spec " + spec.toString() + " is longer than the rank)");
        continue;
      }
      std::int64_t product = 1;
      bool known = true;
      for (const auto& m : e.members) {
        const int a = m ? mesh_.index(*m) : -1;
        if (a < 0) {
          issues.push_back("Array shape " + shapeText + " dimension " + std::to_string(dim) + ": mesh axis " +
                           (m ? *m : std::string("None")) + " is not in the mesh " + mesh_.describe());
          known = false;
          break;
        }
        if (__builtin_mul_overflow(product, mesh_.sizes[static_cast<std::size_t>(a)], &product))
          product = std::numeric_limits<std::int64_t>::max(); // a repeated axis; divides nothing
      }
      if (known && shape[dim] % product != 0)
        issues.push_back("Array shape " + shapeText + " not divisible by mesh axis " + name + " size " +
                         std::to_string(product));
    }
  }
  return issues;
}

MemoryUsage ShardingAnalyzer::estimateMemoryUsage(std::span<const ArrayShape> arrays,
                                                  std::span<const PartitionSpec> specs) const {
  if (arrays.size() != specs.size())
    throwValueError("estimate_memory_usage: " + std::to_string(arrays.size()) + " arrays but " +
                    std::to_string(specs.size()) + " specs");
  MemoryUsage usage;
  for (std::size_t k = 0; k < arrays.size(); ++k) {
    LayoutOptions options;
    const std::string name = "array " + std::to_string(k);
    options.param = name;
    const ArrayLayout layout = layoutArray(mesh_, arrays[k].shape, arrays[k].dtype, specs[k], options);
    usage.total_size += layout.total_bytes;
    usage.size_per_device += layout.shard_bytes;
  }
  return usage;
}

} // namespace shardscope
