// SPDX-License-Identifier: Apache-2.0
#include "shardscope/sharding/mesh_partition_helper.hpp"

#include "shardscope/base/errors.hpp"

#include <algorithm>
#include <limits>

namespace shardscope {

namespace {

// Python ints do not overflow; shapes large enough to overflow int64 saturate instead, which
// keeps every comparison in this heuristic on the same side.
std::int64_t satMul(std::int64_t a, std::int64_t b) {
  std::int64_t r = 0;
  if (__builtin_mul_overflow(a, b, &r)) return std::numeric_limits<std::int64_t>::max();
  return r;
}

bool contains(const std::vector<ShardingMethod>& methods, const ShardingMethod& m) {
  return std::find(methods.begin(), methods.end(), m) != methods.end();
}

} // namespace

MeshPartitionHelper::MeshPartitionHelper(MeshAxes mesh) : mesh_(std::move(mesh)) {}

std::int64_t MeshPartitionHelper::sizeOrKeyError(const std::string& axis) const {
  const int i = mesh_.index(axis);
  if (i < 0) throw Error(ErrorKind::KeyError, pythonStrRepr(axis));
  return mesh_.sizes[static_cast<std::size_t>(i)];
}

std::vector<ShardingMethod> MeshPartitionHelper::suggestMethods(const Shape& shape) const {
  std::vector<ShardingMethod> methods;
  const std::size_t dims = shape.size();
  const bool hasFsdp = mesh_.index("fsdp") >= 0, hasSp = mesh_.index("sp") >= 0;
  if (dims > 1 && hasFsdp && hasSp && satMul(shape[0], shape[1]) >= mesh_.size("fsdp") * mesh_.size("sp"))
    methods.push_back({"fsdp", "sp"});
  if (dims > 0 && mesh_.index("dp") >= 0) methods.push_back({"dp"});
  if (dims > 1 && hasSp && !contains(methods, {"fsdp", "sp"})) methods.push_back({"sp"});
  if (mesh_.index("tp") >= 0) methods.push_back({"tp"});
  if (hasFsdp) {
    bool fsdpUsed = false;
    for (const auto& m : methods) fsdpUsed = fsdpUsed || std::find(m.begin(), m.end(), "fsdp") != m.end();
    if (!fsdpUsed) methods.push_back({"fsdp"});
  }
  return methods;
}

PartitionSpec MeshPartitionHelper::createPartitionSpec(const Shape& shape, const std::vector<ShardingMethod>& methods,
                                                       std::int64_t minShardSize,
                                                       ShardingDiagnostics* diagnostics) const {
  if (shape.empty()) return PartitionSpec();
  const std::size_t dims = shape.size();
  std::vector<SpecEntry> spec(dims);
  std::int64_t total = 1;
  for (auto d : shape) total = satMul(total, d);
  const std::int64_t devices = mesh_.deviceCount();
  const std::int64_t minElements = std::max(minShardSize, total / (devices * 2));

  // One axis on the first free dimension that is large enough and divisible.
  auto placeSingle = [&](const std::string& axis, std::int64_t threshold) {
    for (std::size_t dim = 0; dim < dims; ++dim) {
      // Evaluated in the reference's order: the size lookup happens only past the threshold.
      if (shape[dim] >= threshold && shape[dim] % sizeOrKeyError(axis) == 0 && spec[dim].isNone()) {
        spec[dim] = SpecEntry::axis(axis);
        return;
      }
    }
  };

  for (const auto& method : methods) {
    if (method.size() == 1) {
      placeSingle(method[0], minElements);
    } else if (method.size() == 2) {
      std::int64_t combined = 1;
      for (const auto& a : method)
        if (mesh_.index(a) >= 0) combined *= mesh_.size(a);
      const std::int64_t s01 = dims >= 2 ? satMul(shape[0], shape[1]) : 0;
      if (dims >= 2 && s01 >= combined && s01 % combined == 0) {
        if (shape[0] >= sizeOrKeyError(method[0]) && shape[1] >= sizeOrKeyError(method[1]) && spec[0].isNone() &&
            spec[1].isNone()) {
          spec[0] = SpecEntry::axis(method[0]);
          spec[1] = SpecEntry::axis(method[1]);
          break; // a fitting pair ends the search
        }
        // The pair's outer test held but its inner one failed: no fall-through to the elif.
      } else if (dims >= 2 && shape[0] >= combined && shape[0] % combined == 0 && spec[0].isNone()) {
        spec[0] = SpecEntry::tuple({method[0], method[1]});
        break;
      }
    }
    // Longer methods are ignored, as in the reference.
  }

  const bool nothing = std::all_of(spec.begin(), spec.end(), [](const SpecEntry& e) { return e.isNone(); });
  if (nothing) {
    for (const auto& method : methods) {
      if (method.size() == 1) {
        placeSingle(method[0], minShardSize);
      } else if (method.size() == 2 && method == ShardingMethod{"fsdp", "sp"}) {
        if (dims < 2)
          throwValueError(
              "create_partition_spec: the ('fsdp', 'sp') method needs an array of rank 2 or more, got shape " +
              shapeRepr(shape));
        auto report = [&](int dim, std::int64_t ways, const std::string& axes) {
          if (diagnostics && shape[static_cast<std::size_t>(dim)] % ways != 0)
            diagnostics->push_back({ShardingDiagnostic::Kind::ReferenceBug, dim, axes,
                                    "the fallback assigns " + axes + " to dimension " + std::to_string(dim) +
                                        " (size " + std::to_string(shape[static_cast<std::size_t>(dim)]) +
                                        ") without checking divisibility by " + std::to_string(ways) +
                                        "; JAX would reject this spec (eformer bug)"});
        };
        if (spec[0].isNone() && spec[1].isNone()) {
          spec[0] = SpecEntry::axis("fsdp");
          spec[1] = SpecEntry::axis("sp");
          report(0, mesh_.size("fsdp"), "fsdp");
          report(1, mesh_.size("sp"), "sp");
          break;
        }
        if (spec[0].isNone()) {
          spec[0] = SpecEntry::tuple({std::string("fsdp"), std::string("sp")});
          report(0, mesh_.size("fsdp") * mesh_.size("sp"), "fsdp,sp");
          break;
        }
      }
    }
  }
  return PartitionSpec(std::move(spec));
}

std::vector<std::pair<Shape, std::vector<ShardingMethod>>>
MeshPartitionHelper::analyze(std::span<const Shape> shapes) const {
  std::vector<std::pair<Shape, std::vector<ShardingMethod>>> out;
  for (const auto& s : shapes) {
    bool seen = false;
    for (const auto& [known, methods] : out) seen = seen || known == s;
    if (!seen) out.emplace_back(s, suggestMethods(s));
  }
  return out;
}

PartitionSpec MeshPartitionHelper::autoSpec(const Shape& shape, std::int64_t minShardSize,
                                            ShardingDiagnostics* diagnostics) const {
  return createPartitionSpec(shape, suggestMethods(shape), minShardSize, diagnostics);
}

} // namespace shardscope
