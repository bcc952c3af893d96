// SPDX-License-Identifier: Apache-2.0
// The layout of a workspace, handed back in the forms a job already speaks:
//   - Python for a JAX program: the same mesh built by mesh_utils with the same arguments, every
//     parameter's PartitionSpec, the rules in effect, and the device ids we placed (to check
//     that the job lands where Shardscope says);
//   - MaxText overrides (YAML): the ici_*/dcn_* parallelism, mesh_axes order, slices, batch,
//     gradient accumulation, remat policy and (for the built-in rule presets) logical_axis_rules.
// Both take the analysis of the scenario (analyze() or analyzeMesh() for the mesh alone).
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <string>
#include <vector>

namespace shardscope {

// A Python file (valid for `python3 -m py_compile`). Parameters are left out when the analysis
// has none (no model); the device-id check only up to kMaxExportedDeviceIds devices.
inline constexpr std::size_t kMaxExportedDeviceIds = 8192;
std::string exportJaxCode(const Scenario& scenario, const Analysis& analysis);

struct MaxTextExport {
  std::string yaml;               // key: value lines, each with what it reproduces
  std::vector<std::string> notes; // what MaxText cannot reproduce exactly, in words
};
// Throws ValueError naming a mesh axis MaxText has no counterpart for (its axes: data, stage,
// fsdp, fsdp_transpose, context, tensor, tensor_sequence, expert, ... and our dp, pp, sp, tp, ep).
MaxTextExport exportMaxTextOverrides(const Scenario& scenario, const Analysis& analysis);

// MaxText's mesh axis for one of ours ("dp" -> "data", "tp" -> "tensor", "fsdp" -> "fsdp", ...),
// or empty when there is none.
std::string maxTextAxisOf(const std::string& axis);

} // namespace shardscope
