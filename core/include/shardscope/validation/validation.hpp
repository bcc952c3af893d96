// SPDX-License-Identifier: Apache-2.0
// The published-runs validation suite (resources/validation/*.json, docs/validation.md): measured
// training runs from public sources, each with its configuration as published. Each run becomes a
// workspace (runScenario) and goes through the same analyze() as everything else; the prediction
// is set against the measurement (step time, MFU, memory) and the suite is summarised (how many
// within tolerance, mean absolute percentage error, the worst run).
#pragma once

#include "shardscope/analysis/analysis_cache.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json.hpp"
#include "shardscope/models/model.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace shardscope {

// Which device a published memory figure is of: the fullest one (a planner's peak, the default),
// or the last by rank (Megatron-LM writes torch.cuda.max_memory_allocated to TensorBoard from
// rank world_size - 1 only, the last pipeline stage's last tensor-parallel rank).
enum class MeasuredDevice { Fullest, Last };

// One run as its source publishes it (the file format is docs/validation.md's).
struct ValidationRun {
  std::string id, row, source, citation, framework, notes;
  Json model;                      // a Hugging Face config.json object
  bool parallel_block = false;     // attention and MLP side by side
  std::string chip;                // hardware.chip
  std::vector<std::int64_t> shape; // hardware.shape: one slice (TPU) or [hosts, GPUs per host, 1]
  std::int64_t slices = 1;
  std::vector<std::pair<std::string, std::int64_t>> parallelism; // as published, in file order
  std::int64_t global_batch = 0;                                 // sequences per optimizer step
  std::optional<double> micro_batch;                             // sequences per micro-batch per data-parallel replica
  std::optional<double> per_device_batch;
  std::int64_t seq_len = 0;
  std::string recompute;                              // the framework's policy name
  AttentionKernel attention = AttentionKernel::Flash; // "attention": what the source's code ran
  bool sequence_parallel = false, distributed_optimizer = false;
  bool tp_comm_overlap = false;          // Megatron's --tp-comm-overlap: tensor collectives behind the matmuls
  Precision precision = Precision::Bf16; // the weight matmuls' format (cost/workload.hpp)
  std::string optimizer = "adamw";
  // How the source counts attention in its model FLOPs: "full" (PaLM's 12 L H Q T, Megatron's
  // Narayanan et al. formula) or "causal" (half of it: MaxText since 2023).
  bool causal_attention_flops = false;
  // How the source counts its TFLOP/s and hfu figures: model FLOPs (three passes), or with the
  // recomputed forward of the layers ("flops_counted": "with_recompute": Narayanan et al. 2021
  // Eq. 3, four passes on the layers under full recompute).
  bool flops_count_recompute = false;
  // Measured, as stated (absent when the source does not say). hfu is the percentage of peak in the
  // with-recompute count. "Per device" is per JAX device (MaxText's logs), "per chip" per chip (the
  // tpu-recipes tables for TPU7x, whose chips are two devices each).
  std::optional<double> step_time_s, mfu, hfu, tflops_per_device, tokens_per_s, tokens_per_s_per_device, memory_gib;
  std::optional<double> tflops_per_chip, tokens_per_s_per_chip;
  MeasuredDevice memory_device = MeasuredDevice::Fullest; // measured.memory_device
};

// Reads every *.json under `directory` (sorted by name). Throws ValueError naming the file and the
// field for a run that does not follow the format; ids must be unique across files.
std::vector<ValidationRun> loadValidationRuns(const std::filesystem::path& directory);
// One file's runs (its text already read); `file` names it in errors.
std::vector<ValidationRun> validationRunsFromJson(const Json& json, const std::string& file);

// The workspace that reproduces a run: its chip and slices, a mesh of the published degrees
// (pp, dp, fsdp, sp, ep, tp from outer to inner), the model inline, MaxText's or Megatron's
// behaviour, the batch split as the framework splits it. Throws ValueError naming the run when the
// degrees do not multiply to the device count or a name is not known.
Scenario runScenario(const ValidationRun& run);

// Model FLOPs of one step as the published MFU figures count them (MaxText's, Megatron's and
// PaLM's convention): 6 x (the layers' matmul parameters + the output projection) per token, plus
// 12 x layers x sequence x attention width per token for full attention, half that when the
// source counts causal attention. `layerPasses` 4 instead of 3 counts the recomputed forward of
// the layers as Narayanan et al. 2021 Eq. 3 does (8 x the layers' parameters, 16 x l s a; the
// output projection stays at 6).
double publishedModelFlops(const ModelConfig& config, double tokensPerStep, double seqLen, bool causal = false,
                           int layerPasses = 3);

struct ValidationResult {
  const ValidationRun* run = nullptr;
  bool ok = false; // predicted and measured both present
  // Whether the source measured the step at all: a memory run (Megatron-LM's CI memory golden
  // values) measures only memory; it is checked on memory and never counted as a failed step.
  bool step_measured = true;
  std::string error;          // why not (the analysis' first error)
  double devices = 0;         // JAX devices: chips x the chip's devices per chip
  double chips = 0;           // slices x the slice shape
  double measured_step_s = 0; // stated, or published model FLOPs / (MFU x the chips' peak)
  double predicted_step_s = 0;
  double step_error = 0;                      // predicted / measured - 1
  double measured_mfu = 0, predicted_mfu = 0; // both in the published convention
  std::optional<double> measured_memory_bytes, predicted_memory_bytes;
  std::optional<double> memory_error;
  std::string bound_by;
  double compute_s = 0, hbm_s = 0, exposed_comm_s = 0, bubble_s = 0;
};

struct ValidationSummary {
  int runs = 0, predicted = 0;
  int within_step_tolerance = 0; // |step error| <= step_tolerance
  double step_tolerance = 0.15;
  int failed = 0;                    // runs that could not be predicted (ValidationResult::error)
  int memory_only = 0;               // runs that measure memory and no step (step_measured false)
  std::optional<double> mape;        // mean |step error| over predicted runs; none when none was
  std::optional<double> worst_error; // largest |step error|
  std::string worst_run;
  int memory_runs = 0, memory_within = 0; // |memory error| <= 10%
};

// `flops_fraction`, when set, replaces the chip's default (an out-of-sample fit: crossValidate).
ValidationResult validateRun(const ValidationRun& run, AnalysisCache& cache,
                             std::optional<double> flops_fraction = std::nullopt);
ValidationSummary summarizeValidation(const std::vector<ValidationResult>& results);
Json validationToJson(const std::vector<ValidationResult>& results, const ValidationSummary& summary);

// The factor the chip's flops_fraction would need for the prediction to match the measurement:
// compute scales with 1 / fraction, the rest stays (validate --fit). None for a pipelined run (its
// bubble scales too), a run not predicted, or one measured at or below its non-compute terms.
std::optional<double> impliedFlopsScale(const ValidationResult& result);
// The flops_fraction a run implies: its chip's default times impliedFlopsScale.
std::optional<double> impliedFlopsFraction(const ValidationResult& result);

// Leave-one-source-out: for each source (a file of the suite), each of its chips' flops_fraction
// fitted on the other sources' runs of that chip alone (the median of what each implies, as the
// defaults are derived), and the source's runs predicted with it. A chip no other source measures
// has no out-of-sample fit: its runs are counted apart (`unfitted`), never predicted in sample.
struct SourceCrossValidation {
  std::string source;
  int runs = 0;                                    // predicted with the defaults (in sample)
  int predicted = 0;                               // predicted out of sample
  int unfitted = 0;                                // runs on a chip no other source measures
  std::optional<double> in_sample_mape;            // over `runs`
  std::optional<double> out_of_sample_mape;        // over `predicted`
  std::vector<std::pair<std::string, double>> fit; // chip -> the fraction the other sources give it
  std::vector<std::string> unfitted_chips;         // the source's chips no other source measures
};
struct CrossValidation {
  std::vector<SourceCrossValidation> sources;
  int runs = 0, predicted = 0, unfitted = 0;
  std::optional<double> in_sample_mape, out_of_sample_mape; // over every source's runs
};
CrossValidation crossValidate(const std::vector<ValidationResult>& inSample, AnalysisCache& cache);
Json crossValidationToJson(const CrossValidation& cv);

} // namespace shardscope
