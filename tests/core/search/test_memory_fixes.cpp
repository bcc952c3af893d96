// SPDX-License-Identifier: Apache-2.0
// The smallest edits that make a layout fit (issue 32): they keep the mesh and the global batch,
// each fits, and they come cheapest in step time first.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/search/memory_fixes.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("a layout over its HBM gets the edits of it that fit, cheapest first", "[search][oom]") {
  Scenario s = defaultScenario(); // v4 4x4x8, dp 2 x fsdp 16 x tp 4, micro-batch 32
  s.training.recompute = Recompute::None;
  s.training.zero_stage = 0;
  const Analysis fits = analyze(s);
  REQUIRE(fits.step.estimated);
  // Devices with 90% of what the fullest one needs: out of memory by a tenth.
  s.training.hbm_bytes_override = 0.9 * fits.memory.max_bytes;
  REQUIRE(analyze(s).memory.out_of_memory);

  const auto fixes = memoryFixes(s);
  REQUIRE_FALSE(fixes.empty());
  const std::int64_t globalBatch = s.training.micro_batch * s.training.microbatches;
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    const MemoryFix& f = fixes[i];
    INFO(f.edit);
    CHECK(f.max_bytes <= f.hbm_bytes);
    CHECK(f.hbm_bytes == Approx(0.9 * fits.memory.max_bytes));
    CHECK(f.saved_bytes == Approx(fits.memory.max_bytes - f.max_bytes));
    CHECK(f.scenario.mesh.axes == s.mesh.axes); // the user's mesh stays
    CHECK(f.scenario.training.micro_batch * f.scenario.training.microbatches == globalBatch);
    REQUIRE(f.step_time_change_s);
    if (i > 0) CHECK(*fixes[i - 1].step_time_change_s <= *f.step_time_change_s);
  }
  // Two worker threads give the same edits in the same order.
  const auto twoThreads = memoryFixes(s, 8, nullptr, 2);
  REQUIRE(twoThreads.size() == fixes.size());
  for (std::size_t i = 0; i < fixes.size(); ++i) {
    CHECK(twoThreads[i].edit == fixes[i].edit);
    CHECK(twoThreads[i].max_bytes == fixes[i].max_bytes);
  }
  // A layout that fits needs no edit.
  Scenario roomy = s;
  roomy.training.hbm_bytes_override.reset();
  CHECK(memoryFixes(roomy).empty());
}
