// SPDX-License-Identifier: Apache-2.0
// The published-runs validation suite (resources/validation, docs/validation.md) through the same
// analysis as every workspace: every run loads and is predicted, and the summary stays within the
// thresholds below. The measured figures are the sources' own (each run cites its table and row);
// nothing here is computed by the code under test except the predictions.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/validation/validation.hpp"
#include "shardscope/base/resources.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

using namespace shardscope;

TEST_CASE("the validation suite: published measured runs against the step model", "[validation]") {
  const auto dir = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "validation";
  REQUIRE(std::filesystem::is_directory(dir)); // a missing suite fails, never passes
  const std::vector<ValidationRun> runs = loadValidationRuns(dir);
  REQUIRE(runs.size() >= 110);
  AnalysisCache cache;
  std::vector<ValidationResult> results;
  for (const auto& run : runs) {
    results.push_back(validateRun(run, cache));
    INFO(run.id << ": " << results.back().error);
    // Every run is predicted: its step, or its memory when that is all it measures.
    CHECK((results.back().ok || (!results.back().step_measured && results.back().memory_error)));
  }
  const ValidationSummary s = summarizeValidation(results);
  REQUIRE(s.mape);
  REQUIRE(s.worst_error);
  INFO("MAPE " << *s.mape << ", worst " << s.worst_run << " " << *s.worst_error
               << ", within 15%: " << s.within_step_tolerance << " of " << s.predicted);
  CHECK(s.predicted + s.memory_only == s.runs);
  // The issue's count: at least 110 runs with a measured step (112 today: MT-NLG's three joined at 109).
  CHECK(s.predicted >= 110);
  // Thresholds: issue 33's — mean absolute error on step time at most 7% (5.8% over the 112 runs
  // today), no run off by more than 20% (the worst today, 19.5%, a 32-slice v5e run whose measured
  // slowdown with the slice count the model does not reproduce; docs/validation.md); and at least
  // 85% of the runs within 15% (105 of 112 today).
  CHECK(*s.mape <= 0.07);
  CHECK(s.within_step_tolerance >= static_cast<int>(std::ceil(0.85 * s.predicted)));
  CHECK(*s.worst_error <= 0.20);
  // Memory: every run with a measured per-device peak (torch's allocated peak, the bytes a planner
  // sizes) within 10%, and at least the four there are today, so the check never passes on none.
  INFO("memory within 10%: " << s.memory_within << " of " << s.memory_runs);
  CHECK(s.memory_runs >= 21);
  CHECK(s.memory_within == s.memory_runs);

  // Each calibrated chip's default is the median of what its unpipelined runs imply (validate
  // --fit): with three runs or more, the median implied scale is 1 within 2%.
  std::map<std::string, std::vector<double>> scales;
  for (const auto& r : results)
    if (const auto scale = impliedFlopsScale(r)) scales[r.run->chip].push_back(*scale);
  for (auto& [chip, v] : scales) {
    if (v.size() < 3) continue;
    std::sort(v.begin(), v.end());
    const double median = v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
    INFO(chip << ": " << v.size() << " runs imply a median scale of " << median);
    CHECK(std::abs(median - 1) <= 0.02);
  }

  // Out of sample: each source predicted with its chips' flops_fraction fitted on the other sources
  // alone (validate --cross-validate). 7.4% over the 51 runs on chips two sources measure today.
  const CrossValidation cv = crossValidate(results, cache);
  INFO("out of sample: " << cv.predicted << " runs, MAPE " << cv.out_of_sample_mape.value_or(-1));
  CHECK(cv.predicted >= 30);
  REQUIRE(cv.out_of_sample_mape);
  CHECK(*cv.out_of_sample_mape <= 0.10);
}

TEST_CASE("the validation suite's MaxText 512B run fits in HBM with its published layout", "[validation]") {
  // MaxText's v5p table, 512B on v5p-1024: fsdp 32 x tensor 16, full remat, 2 sequences of 2048 per
  // chip, float32 weights with AdamW. It ran, so it fit in the 95 GiB of a v5p chip.
  const auto dir = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "validation";
  const auto runs = loadValidationRuns(dir);
  const ValidationRun* run = nullptr;
  for (const auto& r : runs)
    if (r.id == "maxtext-v5p-512b-1x-v5p-1024") run = &r;
  REQUIRE(run);
  const Analysis a = analyze(runScenario(*run));
  REQUIRE(a.memory.argmax >= 0);
  CHECK_FALSE(a.memory.out_of_memory);
  // Parameters: 128 layers x (4 x 20480 x 16384 + 2 x 20480 x 65536) + 32768 x 20480 = 515.5e9,
  // float32, split over all 512 chips: 4.03e9 bytes; gradients the same; AdamW 8 bytes per element.
  const double params = 128.0 * (4.0 * 20480 * 16384 + 2.0 * 20480 * 65536) + 32768.0 * 20480;
  const DeviceMemory& d = a.memory.per_device[static_cast<std::size_t>(a.memory.argmax)];
  CHECK(d.params == Approx(4 * params / 512).epsilon(0.01));
  CHECK(d.optimizer == Approx(8 * params / 512).epsilon(0.01));
}

TEST_CASE("the candidates load and are predicted, the memory ones with their measured memory", "[validation]") {
  // resources/validation/candidates: runs kept out of the suite until the model has their mechanism
  // (its README says which): measured per-device memory that counts more than a planner sizes, an
  // uncalibrated chip, MaxText's dropping MoE path. They must stay loadable and predictable so that
  // the mechanisms added for them can be checked against them.
  const auto dir = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "validation" / "candidates";
  REQUIRE(std::filesystem::is_directory(dir));
  const auto runs = loadValidationRuns(dir);
  // 17 torchtitan, 16 Megatron tutorial, 2 Megatron CI on GB200 (memory); 2 Mixtral on v6e and
  // Llama 3.1 70B at 131072 tokens on TPU7x (step only); and what waits on issue 33's mechanisms:
  // 4 Megatron CI memory runs (FP8, fused cross entropy, a context-parallel one 11% low), 2 Megatron-Bridge
  // (Qwen3-30B-A3B: small experts), 12 torchtitan async-TP, 4 fms-fsdp (small models), 1 DeepSeek-V3
  // on v5p (MLA). NeMo's 9 long-context runs joined the suite once ring attention and the attention
  // kernel's own rate were modelled.
  CHECK(runs.size() == 61);
  AnalysisCache cache;
  int memoryRuns = 0, within10 = 0;
  for (const auto& run : runs) {
    INFO(run.id);
    const ValidationResult r = validateRun(run, cache);
    CHECK((r.ok || (!r.step_measured && r.memory_error)));
    if (!run.memory_gib) continue;
    ++memoryRuns;
    REQUIRE(r.memory_error.has_value());
    const double error = *r.memory_error;
    if (std::abs(error) <= 0.10) ++within10;
    // The runs whose mechanisms are modelled (the loss's gradient at its backward, a re-run layer,
    // torchtitan's op-level policy, Megatron's fp32 gradients) stay within 20% of what the
    // allocator or NVML reported; the 70B and 405B torchtitan runs wait for FSDP2's unsharded
    // parameters (candidates/README.md).
    const bool fsdp2Unmodelled = run.id.find("70b") != std::string::npos || run.id.find("405b") != std::string::npos;
    const bool waitsOnIssue33 = run.id.starts_with("megatron-ci-tiny-");
    if (!fsdp2Unmodelled && !waitsOnIssue33) CHECK(std::abs(error) <= 0.20);
  }
  CHECK(memoryRuns == 39);
  CHECK(within10 >= 11);
}
