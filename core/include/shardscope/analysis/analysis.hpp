// SPDX-License-Identifier: Apache-2.0
// analyze(Scenario) -> Analysis: the one pure function the GUI and the CLI call. Each section is
// filled by its engine (device mesh, sharding, memory, comm, step time); a section that could not
// be computed is empty and `diagnostics` says why.
#pragma once

#include "shardscope/cost/memory.hpp"
#include "shardscope/step/step_time.hpp"
#include "shardscope/mesh/device_mesh.hpp"
#include "shardscope/mesh/named_mesh.hpp"
#include "shardscope/sharding/param_table.hpp"
#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/analysis/pipeline_analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/enum_names.hpp"

#include <array>
#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace shardscope {

class LinkGraph;

// Which stage of the analysis a diagnostic comes from (JSON "section", the CLI's "[step]").
enum class DiagnosticSection { Analysis, Model, Rules, Memory, Comm, Step, Pipeline };
inline constexpr std::array<std::pair<std::string_view, DiagnosticSection>, 7> kDiagnosticSectionNames{{
    {"analysis", DiagnosticSection::Analysis},
    {"model", DiagnosticSection::Model},
    {"rules", DiagnosticSection::Rules},
    {"memory", DiagnosticSection::Memory},
    {"comm", DiagnosticSection::Comm},
    {"step", DiagnosticSection::Step},
    {"pipeline", DiagnosticSection::Pipeline},
}};
inline std::string sectionName(DiagnosticSection section) {
  return std::string(nameOf(section, kDiagnosticSectionNames));
}

struct Diagnostic {
  enum class Severity { Info, Warning, Error };
  Severity severity = Severity::Info;
  DiagnosticSection section = DiagnosticSection::Analysis;
  std::string subject; // parameter path or axis name, may be empty
  std::string message;
};
inline constexpr std::array<std::pair<std::string_view, Diagnostic::Severity>, 3> kSeverityNames{{
    {"info", Diagnostic::Severity::Info},
    {"warning", Diagnostic::Severity::Warning},
    {"error", Diagnostic::Severity::Error},
}};

// Per logical axis: which physical axes it took and how, in words for the GUI's explanation line.
struct AxisPlacement {
  std::string name;
  std::int64_t size = 1;
  std::int64_t ici = 1;
  std::int64_t dcn = 1;
  std::string explanation; // e.g. "tp = 4 takes physical z (4) whole"
};

struct DeviceMemory {
  double params = 0, grads = 0, optimizer = 0, activations = 0, kv_cache = 0;
  double total() const { return params + grads + optimizer + activations + kv_cache; }
};

struct MemorySummary {
  std::vector<DeviceMemory> per_device; // indexed like Analysis::mesh.devices
  double max_bytes = 0, mean_bytes = 0;
  int argmax = -1; // device position of the fullest device
  double hbm_bytes = 0;
  bool out_of_memory = false;
  // What the activations of one device are made of (the same on every device; training only).
  ActivationBreakdown activations;
};

struct AxisComm {
  std::string name;
  std::int64_t size = 1;
  bool ring_closed = false;
  int max_hops = 0;
  double mean_hops = 0;
  int max_link_load = 0;
  bool crosses_hosts = false, crosses_slices = false;
  // An axis over slices priced in two levels (AxisReport::levels): the devices of each group in
  // one slice; 0 for every other axis.
  std::int64_t in_slice = 0;
  std::string slowest_link; // "ici", "dcn", "nvlink", "network", or "none" (one chip)
  // TPU in one slice: every group takes each physical dimension it touches whole with its
  // wraparound (the cost form then runs a collective over all of them at once), and the most
  // coordinates a group spans along x, y and z (AxisReport::wraps, extents).
  bool wraps = false;
  std::array<int, 3> extents{0, 0, 0};
  // What the axis carries in one training step is the step's (Analysis::stepAxis).
};

struct Analysis {
  Mesh mesh;                             // the assigned logical mesh (devices + grid + names)
  std::vector<MeshPlacement> placements; // one per slice (one entry for single-slice)
  std::vector<AxisPlacement> axes;
  ParamTable params; // every parameter with its spec and shard
  MemorySummary memory;
  std::vector<AxisComm> comm;
  // Step time, MFU and what bounds the step (step/step_time.hpp); `step.estimated` is false, and
  // `step.not_estimated` says why, when the model or the chip lacks what it needs.
  StepEstimate step;
  std::shared_ptr<const LinkGraph> links; // the topology's physical link graph (hop counts for views)
  // Set when the workspace has a pipeline section; with it, `memory` holds each device's pipeline
  // rank's figures (it holds only its stages' layers).
  std::optional<PipelineAnalysis> pipeline;
  std::vector<Diagnostic> diagnostics;
  double compute_ms = 0; // how long analyze took

  // What mesh axis `axis` carries in one training step (bytes each device sends, the collectives'
  // time, overlapped and exposed), or null when the step was not estimated.
  const StepAxis* stepAxis(std::size_t axis) const {
    return step.estimated && axis < step.per_axis.size() ? &step.per_axis[axis] : nullptr;
  }
};

// Throws Error when the mesh itself cannot be built (the reference's error, unchanged); problems
// further down (model, rules, memory) become diagnostics so the mesh still shows. `cancel`, when
// set by another thread, makes the call return early with a Warning diagnostic. `cache` keeps the
// loaded model and the parameter grouping for the next call (analysis_cache.hpp); the result is
// the same with a fresh cache or a used one.
Analysis analyze(const Scenario& scenario, AnalysisCache& cache, const std::atomic<bool>* cancel = nullptr);
// With a fresh cache: loads the model and plans every parameter.
Analysis analyze(const Scenario& scenario);

// analyze()'s first stage alone: the devices, the mesh placed on them (mesh, placements, axes)
// and the topology's link graph (links), the one placement every command and eval op uses. Throws
// as analyze() does when the mesh cannot be built.
Analysis analyzeMesh(const Scenario& scenario);

} // namespace shardscope
