// SPDX-License-Identifier: Apache-2.0
// Internal: the stages of analyze(), one file each. Each stage reads the scenario and the earlier
// stages' results and fills its own part of the Analysis.
#pragma once

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/cost/axis_report.hpp"
#include "shardscope/models/model.hpp"
#include "shardscope/cost/memory.hpp"
#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/pipeline/pipeline_step.hpp"
#include "shardscope/sharding/shard_plan.hpp"
#include "shardscope/step/step_time.hpp"

#include <functional>
#include <memory>
#include <span>
#include <vector>

namespace shardscope::analysis {

struct PipelinePlanned; // below

// Devices from the topology, the logical mesh exactly as JAX would assign it, and a sentence per
// axis saying which physical axes it took. Throws the reference's Error when no mesh exists.
void buildMesh(const Scenario& scenario, Analysis& out);
// buildMesh's placement alone, on a device list the caller made from the scenario's topology
// (the layout search places thousands of meshes on one list): the grid, JAX's placements and the
// resolved ICI and DCN sizes per axis. Throws as buildMesh does.
struct MeshPlacementOf {
  DeviceGrid grid;
  std::vector<MeshPlacement> placements;
  Shape ici, dcn;
};
MeshPlacementOf placeMesh(const Scenario& scenario, const DeviceList& devices);

// The scenario's model (preset, file or inline list), loaded once and kept in `memo` while the
// scenario names it: the GUI recomputes on every edit and must not re-read a 46k-tensor model each
// time. nullptr (and an Error diagnostic) when it cannot be loaded.
std::shared_ptr<const Model> loadModel(const ModelChoice& choice, AnalysisCache::Memo& memo, Analysis& out);

// Specs by the scenario's rules, eformer's correction, and each parameter's shard; fills
// Analysis::params. Returns the plan, one entry per group of alike parameters (for memory), or nothing with a
// diagnostic on failure.
std::optional<ShardGroups> shardModel(const Scenario& scenario, const std::shared_ptr<const Model>& model,
                                      AnalysisCache::Memo& memo, Analysis& out);

// Per-device bytes by category against the chip's HBM; fills Analysis::memory. Under a scheduled
// pipeline (`pipeline`, may be null) every device holds its rank's stages and the activations the
// schedule keeps in flight on it (pipeline_memory_stage.cpp), also written into the ranks of
// `pipeline->section`.
void estimateDeviceMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan,
                          PipelinePlanned* pipeline, Analysis& out);
// The pipeline part of it: each rank's memory over the schedule.
void pipelineRankMemory(const Scenario& scenario, const Model& model, const ShardGroups& plan,
                        PipelinePlanned& pipeline, Analysis& out);

// What one device holds of the parameters (the memory estimate's accounting, ZeRO-1/2 included),
// summed into `buckets`: model.params[i] goes to bucketOf(i) (all to bucket 0 without it; a
// negative or too large bucket drops the parameter). `shardOf(group, shard)` may replace a
// group's shard shape (the pipeline stage removes the pipeline axis from it).
std::vector<DeviceParamShards>
paramShardsByBucket(const Scenario& scenario, const ShardGroups& plan, const Mesh& mesh, std::size_t buckets,
                    const std::function<int(std::size_t)>& bucketOf = {},
                    const std::function<Shape(std::uint32_t, const Shape&)>& shardOf = {});
// The memory engine's options for the scenario on this mesh (batch, sequence and tensor degrees);
// with `noteMissingAxes`, batch or sequence axes absent from the mesh become Info diagnostics.
// The memory engine's options for this scenario on the analysis' mesh. The tensor degree is the
// product of the axes that split the layers' weights without splitting the tokens, the pipeline or
// only the routed experts (tensorDegreeOf).
MemoryOptions deviceMemoryOptions(const Scenario& scenario, const ShardGroups& plan, const Model& model, Analysis& out,
                                  bool noteMissingAxes);
std::int64_t tensorDegreeOf(const Scenario& scenario, const ShardGroups& plan, const Model& model, const Mesh& mesh);

// The pipeline of the workspace's pipeline section (pipeline_stage.cpp), planned before the step:
// its MPMD groups and their devices, stages and their layers, M, jaxpp's task rows, the activation
// hand-overs between groups priced on the links, and jaxpp's process-per-group rule. Problems
// become "pipeline" diagnostics naming the workspace field. `section` becomes Analysis::pipeline
// once the step has scheduled it (attachSchedule) and the memory stage has filled each rank's
// memory; `step` is what the step engine prices (set when `schedulable`).
struct PipelinePlanned {
  PipelineAnalysis section;
  PipelineStepPlan step;
  bool schedulable = false;
  bool layers_ok = false; // the layer split is the model's (memory per rank needs it)
};
PipelinePlanned planPipeline(const Scenario& scenario, const Model* model, const ShardGroups* plan, Analysis& out);
// The schedule the step ran, into the section: rows, timeline, makespan and per-rank figures.
void attachSchedule(PipelinePlanned& planned, const PipelineScheduleRun& run);

// Per-axis rings on the physical links; fills the ring figures of Analysis::comm and returns the
// axis reports (one per mesh axis, empty on failure) for the step estimate.
std::vector<AxisReport> reportCommunication(const Scenario& scenario, Analysis& out);
// The same with each axis' report from `reportOf(graph, mesh, axisIndex)` (the layout search
// reuses the reports of axes whose device groups it has seen before).
using AxisReportFn = std::function<AxisReport(const LinkGraph&, const Mesh&, int)>;
std::vector<AxisReport> reportCommunication(const Scenario& scenario, Analysis& out, const AxisReportFn& reportOf);

// Step time from the shards and the axis reports; fills Analysis::step. Under a schedulable
// pipeline (`pipeline`, may be null) the step engine that knows pipelines prices it and the schedule
// it ran is returned. Without a model or plan, says so in Analysis::step.
std::optional<PipelineScheduleRun> estimateStepTime(const Scenario& scenario, const std::shared_ptr<const Model>& model,
                                                    const ShardGroups* plan, std::span<const AxisReport> axes,
                                                    const PipelinePlanned* pipeline, AnalysisCache::Memo& memo,
                                                    Analysis& out);
// The model's parameter roles (step/step_time.hpp classifyParams), classified once per loaded model.
std::shared_ptr<const ParamRoles> rolesOf(const std::shared_ptr<const Model>& model, AnalysisCache::Memo& memo);

// Appends a diagnostic.
void note(Analysis& out, Diagnostic::Severity severity, DiagnosticSection section, std::string subject,
          std::string message);

} // namespace shardscope::analysis
