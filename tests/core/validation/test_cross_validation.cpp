// SPDX-License-Identifier: Apache-2.0
// Leave-one-source-out validation (validate --cross-validate) on hand-made sources: two sources
// measuring the same run on the same chip fit each other exactly, and a chip only one source
// measures has no out-of-sample fit.
#include "shardscope/validation/validation.hpp"

#include <catch2/catch.hpp>

#include <string>
#include <vector>

using namespace shardscope;

namespace {

// A 4-layer Llama of width 4096 on one A100 node, data parallel over its 8 GPUs: 8 sequences of
// 4096 tokens per GPU, enough that every matmul is compute-bound.
Json runOn(const std::string& id, const std::string& chip, double stepSeconds) {
  const Json model = {{"model_type", "llama"},     {"num_hidden_layers", 4},   {"hidden_size", 4096},
                      {"num_attention_heads", 32}, {"num_key_value_heads", 8}, {"intermediate_size", 14336},
                      {"vocab_size", 32000}};
  return {{"id", id},
          {"row", "one"},
          {"framework", "megatron"},
          {"model", model},
          {"hardware", {{"chip", chip}, {"shape", {1, 8}}}},
          {"parallelism", {{"data", 8}}},
          {"global_batch", 64},
          {"micro_batch", 8},
          {"seq_len", 4096},
          {"recompute", "selective"},
          {"measured", {{"step_time_s", stepSeconds}}}};
}

Json sourceFile(const std::string& source, const Json& run) {
  return {{"format", "shardscope-validation"},
          {"version", 1},
          {"source", source},
          {"citation", "none"},
          {"runs", Json::array({run})}};
}

std::vector<ValidationRun> runsOf(const std::vector<Json>& files) {
  std::vector<ValidationRun> runs;
  for (const auto& f : files)
    for (auto& r : validationRunsFromJson(f, f["source"].get<std::string>() + ".json")) runs.push_back(std::move(r));
  return runs;
}

} // namespace

TEST_CASE("cross-validation fits each source's chips on the other sources alone", "[validation][cross]") {
  AnalysisCache cache;
  // What the defaults predict for the run, to measure it 20% slower than that.
  const auto probe = runsOf({sourceFile("probe", runOn("probe", "a100", 1.0))});
  const ValidationResult predicted = validateRun(probe[0], cache);
  REQUIRE(predicted.ok);
  const double measured = 1.2 * predicted.predicted_step_s;

  const auto runs = runsOf({sourceFile("A", runOn("a", "a100", measured)),
                            sourceFile("B", runOn("b", "a100", measured)), sourceFile("C", runOn("c", "h100", 1.0))});
  std::vector<ValidationResult> results;
  for (const auto& r : runs) results.push_back(validateRun(r, cache));
  // The fraction A's run implies predicts it (compute scales with 1 / fraction; the rest stays).
  const auto fraction = impliedFlopsFraction(results[0]);
  REQUIRE(fraction);
  CHECK(*fraction < 0.64); // slower than the default
  CHECK(validateRun(runs[0], cache, *fraction).predicted_step_s == Approx(measured).epsilon(0.02));

  const CrossValidation cv = crossValidate(results, cache);
  REQUIRE(cv.sources.size() == 3);
  const SourceCrossValidation& a = cv.sources[0];
  CHECK(a.source == "A");
  CHECK(a.runs == 1);
  // In sample: the default predicts 1/1.2 of the measurement.
  REQUIRE(a.in_sample_mape);
  CHECK(*a.in_sample_mape == Approx(1 - 1 / 1.2).epsilon(1e-9));
  // Out of sample: B measured the same, so B's fit predicts A.
  CHECK(a.predicted == 1);
  REQUIRE(a.fit.size() == 1);
  CHECK(a.fit[0].first == "a100");
  CHECK(a.fit[0].second == Approx(*fraction).epsilon(1e-9));
  REQUIRE(a.out_of_sample_mape);
  CHECK(*a.out_of_sample_mape < 0.02);
  // C's H100 is measured by no other source: counted apart, not predicted in sample.
  const SourceCrossValidation& c = cv.sources[2];
  CHECK(c.unfitted == 1);
  CHECK(c.predicted == 0);
  CHECK_FALSE(c.out_of_sample_mape);
  CHECK(cv.runs == 3);
  CHECK(cv.predicted == 2);
  CHECK(cv.unfitted == 1);
  CHECK(crossValidationToJson(cv)["sources"][0]["flops_fraction"]["a100"].get<double>() ==
        Approx(*fraction).epsilon(1e-9));
}
