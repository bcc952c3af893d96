// SPDX-License-Identifier: Apache-2.0
// Internal: the candidate layouts of a search, before any analysis: which axes, sizes (ICI and DCN
// parts), orders, rule sets and training knobs. Enumeration only; layout_search.cpp evaluates them.
#pragma once

#include "shardscope/search/layout_search.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace shardscope::search {

// One way to cut the devices: axes in mesh order with their ICI and DCN parts (every size > 1).
struct MeshChoice {
  std::vector<MeshAxis> axes;
  std::string text() const;   // "fsdp:2240,tp:4" (total sizes)
  std::string family() const; // the axes > 1 in canonical order, "fsdp+tp" ("single device" if none)
  std::int64_t sizeOf(const std::string& name) const; // 1 when absent
};

// Every size assignment of `devicesPerSlice` (ICI) and `slices` (DCN) over `axes`, within the
// limits, with size-1 axes dropped; each in canonical order and, when `orders`, every other order
// (all permutations up to 3 axes; for more, the canonical order and its reverse).
std::vector<MeshChoice> meshChoices(const std::vector<std::string>& axes, std::int64_t devicesPerSlice,
                                    std::int64_t slices, const std::map<std::string, std::int64_t>& limits,
                                    bool orders);

// The axes a search uses when the user names none, for this model and sequence length.
std::vector<std::string> defaultSearchAxes(bool moe, std::int64_t seqLen);

// The rank of a role in the canonical order dp, fsdp, ep, cp, sp, tp (outermost first: the axes that
// tolerate slow links first, the tensor axis innermost on the fastest links); -1 for other names.
int canonicalRank(const std::string& name);

// The workspace's own name for each role the search uses, where it names them otherwise (a MaxText
// workspace: data, fsdp, expert, context, tensor): role -> own name, empty for a workspace that uses
// the role names or has custom rules naming none of these. Only a workspace with its own rules is
// renamed: a preset's rules name the roles.
std::map<std::string, std::string> ownAxisNames(const Scenario& scenario);

} // namespace shardscope::search
