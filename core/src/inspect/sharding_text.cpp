// SPDX-License-Identifier: Apache-2.0
#include "shardscope/inspect/sharding_text.hpp"

#include "inspect/text_cursor.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/inspect/sdy_sharding.hpp"

#include <algorithm>
#include <set>

namespace shardscope {

namespace {

using inspect_detail::isSpace;

std::string_view trimmed(std::string_view s) {
  while (!s.empty() && isSpace(s.front())) s.remove_prefix(1);
  while (!s.empty() && isSpace(s.back())) s.remove_suffix(1);
  return s;
}

// `sharding=` and the quotes of a string value taken off; escapes resolved.
std::string unwrapped(std::string_view text) {
  text = trimmed(text);
  for (const std::string_view prefix :
       {"sharding=", "sharding =", "mhlo.sharding =", "mhlo.sharding=", "sdy.sharding =", "sdy.sharding="})
    if (text.starts_with(prefix)) {
      text = trimmed(text.substr(prefix.size()));
      break;
    }
  if (text.size() >= 2 && text.front() == '"') {
    const auto close = text.find_last_of('"');
    if (close > 0) return inspect_detail::unescapeString(text.substr(1, close - 1));
  }
  return std::string(text);
}

// The text up to the bracket that closes its first one ("{...}, metadata={...}" -> "{...}").
std::string_view firstBracketed(std::string_view text) {
  int depth = 0;
  bool quoted = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (quoted) {
      if (c == '\\')
        ++i;
      else if (c == '"')
        quoted = false;
    } else if (c == '"') {
      quoted = true;
    } else if (c == '<' && i + 1 < text.size() && text[i + 1] == '=') {
      ++i; // an iota tile assignment's "<=", not a bracket
    } else if (c == '{' || c == '<' || c == '[' || c == '(') {
      ++depth;
    } else if (c == '}' || c == '>' || c == ']' || c == ')') {
      if (--depth == 0) return text.substr(0, i + 1);
    }
  }
  return text;
}

struct Factor {
  std::int64_t size = 1;
  bool used = false;
};

// Each mesh axis cut at the boundaries its sub-axes name: factors major first, per axis.
std::vector<std::vector<Factor>> axisFactors(const InspectMesh& mesh, const std::vector<SdyAxisRef>& refs,
                                             std::vector<std::vector<std::int64_t>>& cuts) {
  cuts.assign(mesh.axes.size(), {});
  for (std::size_t k = 0; k < mesh.axes.size(); ++k) cuts[k] = {1, mesh.axes[k].size};
  for (const auto& r : refs) {
    const int k = mesh.axisIndex(r.name);
    if (k < 0) throwValueError("axis '" + r.name + "' is not in mesh " + mesh.describe());
    if (!r.isSubAxis()) continue;
    const std::int64_t n = mesh.axes[std::size_t(k)].size;
    if (r.pre_size < 1 || r.size < 1 || n % (r.pre_size * r.size) != 0)
      throwValueError("sub-axis " + r.text() + " does not divide axis '" + r.name + "' of size " + std::to_string(n));
    cuts[std::size_t(k)].push_back(r.pre_size);
    cuts[std::size_t(k)].push_back(r.pre_size * r.size);
  }
  std::vector<std::vector<Factor>> factors(mesh.axes.size());
  for (std::size_t k = 0; k < cuts.size(); ++k) {
    std::sort(cuts[k].begin(), cuts[k].end());
    cuts[k].erase(std::unique(cuts[k].begin(), cuts[k].end()), cuts[k].end());
    for (std::size_t i = 0; i + 1 < cuts[k].size(); ++i) {
      if (cuts[k][i + 1] % cuts[k][i] != 0)
        throwValueError("the sub-axes of '" + mesh.axes[k].name + "' do not nest in one another");
      factors[k].push_back({cuts[k][i + 1] / cuts[k][i], false});
    }
  }
  return factors;
}

std::string shardyToHlo(const SdySharding& s, const InspectMesh& mesh) {
  if (mesh.isMaximal()) return "{maximal device=" + std::to_string(mesh.device_ids.front()) + "}";
  std::vector<SdyAxisRef> refs;
  for (const auto& d : s.dims) refs.insert(refs.end(), d.axes.begin(), d.axes.end());
  std::vector<std::vector<std::int64_t>> cuts;
  auto factors = axisFactors(mesh, refs, cuts);
  // Global index of each factor (mesh order, major first) and the row-major strides over them.
  std::vector<std::int64_t> sizes;
  std::vector<std::vector<std::size_t>> index(factors.size());
  for (std::size_t k = 0; k < factors.size(); ++k)
    for (const auto& f : factors[k]) {
      index[k].push_back(sizes.size());
      sizes.push_back(f.size);
    }
  std::vector<std::size_t> perm;
  std::vector<std::int64_t> tiles;
  std::vector<char> used(sizes.size(), 0);
  for (const auto& d : s.dims) {
    std::int64_t tile = 1;
    for (const auto& r : d.axes) {
      const auto k = std::size_t(mesh.axisIndex(r.name));
      const std::int64_t lo = r.isSubAxis() ? r.pre_size : 1,
                         hi = r.isSubAxis() ? r.pre_size * r.size : mesh.axes[k].size;
      for (std::size_t i = 0; i + 1 < cuts[k].size(); ++i) {
        if (cuts[k][i] < lo || cuts[k][i + 1] > hi) continue;
        const std::size_t f = index[k][i];
        if (used[f]) throwValueError("axis " + r.text() + " is used twice");
        used[f] = 1;
        perm.push_back(f);
        tile *= sizes[f];
      }
    }
    tiles.push_back(tile);
  }
  std::int64_t rest = 1;
  for (std::size_t f = 0; f < sizes.size(); ++f)
    if (!used[f]) {
      perm.push_back(f);
      rest *= sizes[f];
    }
  if (s.dims.empty() && rest == mesh.deviceCount()) return "{replicated}";
  std::vector<std::int64_t> stride(sizes.size(), 1);
  for (std::size_t f = sizes.size(); f-- > 1;) stride[f - 1] = stride[f] * sizes[f];
  std::string out = "{devices=[";
  for (std::size_t i = 0; i < tiles.size(); ++i) out += (i ? "," : "") + std::to_string(tiles[i]);
  if (rest > 1) out += (tiles.empty() ? "" : ",") + std::to_string(rest);
  out += "]";
  const std::int64_t total = mesh.deviceCount();
  std::vector<std::int64_t> digit(perm.size(), 0);
  for (std::int64_t t = 0; t < total; ++t) {
    std::int64_t pos = 0;
    for (std::size_t i = 0; i < perm.size(); ++i) pos += digit[i] * stride[perm[i]];
    out += (t ? "," : "") + std::to_string(mesh.device_ids.empty() ? pos : mesh.device_ids[std::size_t(pos)]);
    for (std::size_t i = perm.size(); i-- > 0;) {
      if (++digit[i] < sizes[perm[i]]) break;
      digit[i] = 0;
    }
  }
  return out + (rest > 1 ? " last_tile_dim_replicate}" : "}");
}

} // namespace

bool isShardySharding(std::string_view text) {
  const std::string t = unwrapped(text);
  return t.starts_with("#sdy") || t.starts_with("<");
}

std::string hloShardingTextOf(std::string_view text, const InspectMesh* mesh) {
  const std::string t = unwrapped(text);
  if (!(t.starts_with("#sdy") || t.starts_with("<"))) return std::string(firstBracketed(t));
  if (!mesh) throwValueError("a Shardy sharding needs its mesh (e.g. --mesh data:4,model:2)");
  validateInspectMesh(*mesh, "mesh");
  return shardyToHlo(parseSdySharding(firstBracketed(t)), *mesh);
}

} // namespace shardscope
