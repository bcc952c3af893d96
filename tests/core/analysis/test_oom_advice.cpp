// SPDX-License-Identifier: Apache-2.0
// Issue 32, advice that fixes an OOM: on a layout over its HBM the step's verdict leads with making
// it fit and never proposes an edit that raises memory.
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/scenario.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

TEST_CASE("a layout over its HBM is told to make it fit, never to raise micro_batch", "[analysis][step][oom]") {
  Scenario s = defaultScenario();
  const Analysis fits = analyze(s);
  REQUIRE(fits.step.estimated);
  REQUIRE_FALSE(fits.memory.out_of_memory);
  CHECK(fits.step.verdict.find("does not fit") == std::string::npos);

  // The same layout on devices of 1 GiB: the fullest device is over by max_bytes - 1 GiB.
  s.training.hbm_bytes_override = 1024.0 * 1024 * 1024;
  const Analysis over = analyze(s);
  REQUIRE(over.memory.out_of_memory);
  REQUIRE(over.step.estimated);
  const std::string& v = over.step.verdict;
  INFO(v);
  CHECK(v.find("does not fit") != std::string::npos);
  // No edit that raises memory: more tokens per device, fewer shards, lighter remat.
  for (const char* raises : {"raise micro_batch", "fewer ways", "lighter remat", "selective recompute would save",
                             "more tokens per device", "shrink "})
    CHECK(v.find(raises) == std::string::npos);
  // The step time itself does not change with the advice.
  CHECK(over.step.time_s == fits.step.time_s);
}
