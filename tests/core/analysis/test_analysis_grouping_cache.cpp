// SPDX-License-Identifier: Apache-2.0
// analyze() keeps the grouping of alike parameters of its last plan (per model, rule patterns and
// dtype) and reuses it while only the mesh changes. A cached plan must equal a fresh one.
#include "shardscope/analysis/analysis.hpp"

#include <catch2/catch.hpp>

using namespace shardscope;

namespace {

Scenario mixtral(std::int64_t tp, const char* dtype) {
  Scenario s = defaultScenario();
  s.model = {};
  s.model.preset = "mixtral-8x7b";
  s.rules = {};
  s.rules.preset = "fsdp-tp";
  s.mesh.axes = {{"fsdp", -1, 1}, {"tp", tp, 1}};
  s.training.param_dtype = dtype;
  return s;
}

void checkSameRows(const Analysis& a, const Analysis& b) {
  REQUIRE(a.params.size() == b.params.size());
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    const ParamRow& x = a.params[i];
    const ParamRow& y = b.params[i];
    INFO(x.path);
    CHECK(x.path == y.path);
    CHECK(x.shape == y.shape);
    CHECK(x.dtype == y.dtype);
    CHECK(x.spec == y.spec);
    CHECK(x.shard_shape == y.shard_shape);
    CHECK(x.bytes_per_device == y.bytes_per_device);
    CHECK(x.uneven == y.uneven);
    CHECK(x.diagnostics == y.diagnostics);
  }
  REQUIRE(a.memory.per_device.size() == b.memory.per_device.size());
  CHECK(a.memory.max_bytes == b.memory.max_bytes);
  CHECK(a.memory.mean_bytes == b.memory.mean_bytes);
}

} // namespace

TEST_CASE("a plan through the cached grouping equals a fresh plan", "[analysis]") {
  AnalysisCache cache;
  (void)analyze(mixtral(4, "bfloat16"), cache);                   // fills the cache
  const Analysis cached = analyze(mixtral(8, "bfloat16"), cache); // same model, patterns, dtype: reuses it
  const Analysis fresh = analyze(mixtral(8, "bfloat16"));         // a fresh cache plans every parameter
  REQUIRE(cached.params.size() > 900);
  checkSameRows(cached, fresh);
  // The mesh did change between the first two calls: tp = 8 splits the experts' MLP 8 ways.
  bool sawTp8 = false;
  for (const auto& row : cached.params)
    if (row.path.find("experts.0.w1") != std::string::npos) sawTp8 = row.shard_shape.at(0) == 14336 / 8;
  CHECK(sawTp8);
}
