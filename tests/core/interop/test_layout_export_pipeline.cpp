// SPDX-License-Identifier: Apache-2.0
// One truth for M: a pipelined workspace exports to MaxText with the batch its pipeline schedules.
// pp:4 x fsdp:16 on v5p 4x4x4 (64 chips), 16 sequences per micro-batch, no pipeline.microbatches:
// jaxpp's schedule takes M = 2 x 4 stages = 8 (pipelineMicrobatchCount), the step prices 8
// micro-batches, and MaxText's per_device_batch_size x devices x gradient_accumulation_steps =
// 0.25 x 64 x 8 = 128 sequences = 16 x 8.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/interop/layout_export.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("a pipelined workspace exports to MaxText with the micro-batches its pipeline schedules", "[export]") {
  const Scenario s = scenarioFromJson(Json::parse(R"({
    "format": "shardscope-workspace", "version": 1, "name": "pp4 fsdp16",
    "topology": {"chip": "v5p", "shape": [4, 4, 4]},
    "mesh": {"axes": [{"name": "pp", "ici": 4}, {"name": "fsdp", "ici": 16}]},
    "model": {"preset": "llama-3.1-8b"},
    "rules": {"preset": "fsdp"},
    "training": {"micro_batch": 16, "seq_len": 2048, "batch_axes": ["fsdp"]},
    "pipeline": {"axis": "pp", "schedule": "Std1F1B"}
  })"));
  const Analysis a = analyze(s);
  REQUIRE(a.pipeline);
  CHECK(a.pipeline->microbatches == 8);
  REQUIRE(a.step.estimated);
  CHECK(a.step.tokens_per_step == Approx(16.0 * 8 * 2048));
  const MaxTextExport out = exportMaxTextOverrides(s, a);
  CHECK(out.yaml.find("per_device_batch_size: 0.25") != std::string::npos);
  CHECK(out.yaml.find("gradient_accumulation_steps: 8\n") != std::string::npos);
}
