// SPDX-License-Identifier: Apache-2.0
// XLA's V2 tile assignment: device ids iota(prod reshape_dims), reshaped to reshape_dims,
// transposed by perm, then read row-major in the tile dims' shape.
#include "shardscope/sharding/hlo_sharding.hpp"

#include "shardscope/base/errors.hpp"

namespace shardscope {

IotaTiles canonicalIota(const Shape& reshape_dims, const std::vector<int>& perm) {
  if (perm.size() != reshape_dims.size()) throwValueError("iota transpose and reshape dimensions differ in length");
  IotaTiles t{reshape_dims, perm};
  if (t.reshape_dims.size() > 1) {
    for (bool changed = true; changed;) {
      changed = false;
      // 1. Drop size-1 reshape dims and renumber the transpose.
      std::vector<int> renumber(t.reshape_dims.size(), -1);
      Shape kept;
      for (std::size_t i = 0; i < t.reshape_dims.size(); ++i)
        if (t.reshape_dims[i] != 1) {
          renumber[i] = static_cast<int>(kept.size());
          kept.push_back(t.reshape_dims[i]);
        }
      std::vector<int> keptPerm;
      for (const int p : t.perm)
        if (renumber[static_cast<std::size_t>(p)] >= 0) keptPerm.push_back(renumber[static_cast<std::size_t>(p)]);
      t.reshape_dims = std::move(kept);
      t.perm = std::move(keptPerm);
      // 2. A run of transpose entries b, b+1, b+2, ... reads those reshape dims in their own order:
      // they act as one dim of their product. Fold each run into its first dim; the others become 1
      // and go at the next round.
      for (std::size_t i = 1, base = 0; i < t.perm.size(); ++i) {
        const auto first = static_cast<std::size_t>(t.perm[base]);
        const auto dim = static_cast<std::size_t>(t.perm[i]);
        if (first + (i - base) == dim) {
          t.reshape_dims[first] *= t.reshape_dims[dim];
          t.reshape_dims[dim] = 1;
          changed = true;
        } else {
          base = i;
        }
      }
    }
  }
  if (t.reshape_dims.empty()) t = {{1}, {0}};
  return t;
}

std::int64_t iotaValueAt(const IotaTiles& iota, std::int64_t linear_index) {
  // The linear index counts through the transposed array: its last axis is reshape dim perm[last].
  const std::size_t n = iota.reshape_dims.size();
  Shape reshapeIndex(n, 0);
  for (std::size_t i = n; i-- > 0;) {
    const auto dim = static_cast<std::size_t>(iota.perm[i]);
    reshapeIndex[dim] = linear_index % iota.reshape_dims[dim];
    linear_index /= iota.reshape_dims[dim];
  }
  std::int64_t value = 0;
  for (std::size_t i = 0; i < n; ++i) value = value * iota.reshape_dims[i] + reshapeIndex[i];
  return value;
}

std::string iotaToString(const IotaTiles& iota) {
  std::string out = "<=[";
  for (std::size_t i = 0; i < iota.reshape_dims.size(); ++i) {
    if (i) out += ",";
    out += std::to_string(iota.reshape_dims[i]);
  }
  out += "]";
  if (iota.reshape_dims.size() > 1) {
    out += "T(";
    for (std::size_t i = 0; i < iota.perm.size(); ++i) {
      if (i) out += ",";
      out += std::to_string(iota.perm[i]);
    }
    out += ")";
  }
  return out;
}

std::vector<std::int64_t> tileAssignmentDevices(const HloSharding& sharding) {
  if (sharding.kind != HloSharding::Kind::Tiled) throwValueError("only a devices= sharding has a tile assignment");
  if (!sharding.iota) return sharding.devices;
  const std::int64_t n = sharding.tileCount();
  if (n > kMaxHloDevices)
    throwValueError("the tile assignment names more than " + std::to_string(kMaxHloDevices) + " devices");
  std::vector<std::int64_t> out(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k) out[static_cast<std::size_t>(k)] = iotaValueAt(sharding.iota_tiles, k);
  return out;
}

} // namespace shardscope
