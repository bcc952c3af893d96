// SPDX-License-Identifier: Apache-2.0
// Internal: the stages of analyze(), one file each. Each stage reads the scenario and the earlier
// stages' results and fills its own part of the Analysis.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/models/model.hpp"
#include "shardscope/sharding/shard_plan.hpp"

#include <memory>
#include <span>
#include <vector>

namespace shardscope::analysis {

// Devices from the topology, the logical mesh exactly as JAX would assign it, and a sentence per
// axis saying which physical axes it took. Throws the reference's Error when no mesh exists.
void buildMesh(const Scenario& scenario, Analysis& out);

// The scenario's model (preset, file or inline list), loaded once and kept in `memo` while the
// scenario names it: the GUI recomputes on every edit and must not re-read a 46k-tensor model each
// time. nullptr (and an Error diagnostic) when it cannot be loaded.
std::shared_ptr<const Model> loadModel(const ModelChoice& choice, AnalysisCache::Memo& memo, Analysis& out);

// Specs by the scenario's rules, eformer's correction, and each parameter's shard; fills
// Analysis::params. Returns the plan, one entry per group of alike parameters (for memory), or nothing with a
// diagnostic on failure.
std::optional<ShardGroups> shardModel(const Scenario& scenario, const std::shared_ptr<const Model>& model,
                                      AnalysisCache::Memo& memo, Analysis& out);

// Per-device bytes by category against the chip's HBM; fills Analysis::memory.
void estimateDeviceMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan, Analysis& out);

// Per-axis rings on the physical links; fills the ring figures of Analysis::comm and returns the
// axis reports (one per mesh axis, empty on failure) for the step estimate.
std::vector<AxisReport> reportCommunication(const Scenario& scenario, Analysis& out);

// Step time from the shards and the axis reports; fills Analysis::step and the per-step seconds of
// Analysis::comm. Without a model or plan, says so in Analysis::step.
void estimateStepTime(const Scenario& scenario, const std::shared_ptr<const Model>& model, const ShardGroups* plan,
                      std::span<const AxisReport> axes, AnalysisCache::Memo& memo, Analysis& out);

// Appends a diagnostic.
void note(Analysis& out, Diagnostic::Severity severity, std::string section, std::string subject, std::string message);

} // namespace shardscope::analysis
