// SPDX-License-Identifier: Apache-2.0
// The layout search on worlds small enough to count by hand.
#include "analysis/layout_candidates.hpp"
#include "shardscope/analysis/layout_search.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/hardware/topology.hpp"

#include <catch2/catch.hpp>

#include <set>

using namespace shardscope;

namespace {

// GPT-2 (124M parameters) on a 16-chip v5e slice: everything fits, so only the search decides.
Scenario smallWorld(std::int64_t microBatch) {
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5e:4x4");
  s.model = {};
  s.model.preset = "gpt2";
  s.training.micro_batch = microBatch;
  s.training.seq_len = 1024;
  s.mesh.axes = {{"fsdp", 16, 1, AxisType::Explicit}};
  return s;
}

} // namespace

TEST_CASE("ordered factorisations, counted by hand", "[search]") {
  // 16 = 2^4 over 3 factors: the exponents (i, j, k) with i + j + k = 4, C(6, 2) = 15 of them.
  CHECK(factorisations(16, 3).size() == 15);
  // 12 = 2^2 * 3 over 2 factors: one per divisor of 12 (1, 2, 3, 4, 6, 12).
  CHECK(factorisations(12, 2).size() == 6);
  // With the first factor at most 2: (1, 12) and (2, 6).
  CHECK(factorisations(12, 2, {2, 0}) == std::vector<std::vector<std::int64_t>>{{1, 12}, {2, 6}});
  CHECK(factorisations(7, 0).empty());
  CHECK(factorisations(1, 0).size() == 1);
  for (const auto& f : factorisations(8960, 3)) CHECK(f[0] * f[1] * f[2] == 8960);
}

TEST_CASE("mesh choices: size-1 axes dropped, every order of up to three axes", "[search]") {
  // 16 chips over dp, fsdp, tp (exponents summing to 4): 3 sizes with all three axes > 1, each in 6
  // orders; 9 with exactly two, each in 2 orders; 3 with one. 18 + 18 + 3 = 39.
  const auto all = search::meshChoices({"dp", "fsdp", "tp"}, 16, 1, {}, true);
  CHECK(all.size() == 39);
  std::set<std::string> texts;
  for (const auto& m : all) texts.insert(m.text());
  CHECK(texts.size() == 39); // no order listed twice
  CHECK(texts.count("tp:4,fsdp:2,dp:2") == 1);
  CHECK(texts.count("fsdp:16") == 1);
  // Canonical order only: one per size assignment.
  const auto canonical = search::meshChoices({"dp", "fsdp", "tp"}, 16, 1, {}, false);
  CHECK(canonical.size() == 15);
  CHECK(canonical.front().family() == "tp");
  // Two slices: the DCN part is factored too (2 ways for 2 slices over 2 axes), and limits hold.
  const auto dcn = search::meshChoices({"fsdp", "tp"}, 4, 2, {{"tp", 4}}, false);
  for (const auto& m : dcn) CHECK(m.sizeOf("tp") <= 4);
  CHECK(dcn.size() == 5); // fsdp:8; fsdp:4,tp:2 (twice: tp's 2 on ICI or DCN); fsdp:2,tp:4 (twice)
}

TEST_CASE("search counts every candidate: ranked, merged or rejected by reason", "[search]") {
  // A micro-batch of 2 sequences divides over a batch degree (dp x fsdp) of 1 or 2 only.
  LayoutSearchOptions o;
  o.orders = false;
  const auto r = searchLayouts(smallWorld(2), o);
  CHECK(r.merged == 0);
  // 15 size assignments, one rule set (the scenario's fsdp-tp preset).
  CHECK(r.candidates_total == 15);
  std::int64_t rejected = 0;
  for (const auto& [why, n] : r.rejected) rejected += n;
  CHECK(static_cast<std::int64_t>(r.rows.size()) + rejected == 15);
  // Of the 15, dp x fsdp is 1 or 2 in three: (1,1,16), (2,1,8), (1,2,8); the other twelve cannot
  // split the batch (or JAX cannot place them).
  std::int64_t notDividing = 0;
  for (const char* why : {"batch does not divide over the batch axes", "JAX cannot place it"})
    if (r.rejected.count(why)) notDividing += r.rejected.at(why);
  CHECK(notDividing >= 12);
  for (const auto& row : r.rows) {
    CHECK(row.fits);
    std::int64_t degree = 1;
    for (const auto& [name, size] : row.axes)
      if (name == "dp" || name == "fsdp") degree *= size;
    CHECK(2 % degree == 0);
  }
  REQUIRE(r.current.has_value());
  CHECK(r.current->mesh == "fsdp:16");
  CHECK(r.current->fits);
  // A current layout JAX cannot place (the default mesh is for 128 chips) is absent, not invented.
  Scenario unplaceable = smallWorld(2);
  unplaceable.mesh = MeshConfig{};
  CHECK(!searchLayouts(unplaceable, o).current.has_value());
}

TEST_CASE("with orders, every enumerated mesh is a candidate, merged or refused", "[search]") {
  const auto r = searchLayouts(smallWorld(16), {});
  const std::int64_t placementRefused =
      r.rejected.count("JAX cannot place it") ? r.rejected.at("JAX cannot place it") : 0;
  // candidates_total counts the refused placements; merged ones are not candidates.
  CHECK(r.candidates_total + r.merged == 39);
  CHECK(placementRefused <= 39);
  CHECK(!r.rows.empty());
  // Ranked by the step estimate (GPT-2 has an architecture config, so every row has one).
  for (const auto& row : r.rows) REQUIRE(row.step_time_s.has_value());
  for (std::size_t i = 1; i < r.rows.size(); ++i) CHECK(*r.rows[i - 1].step_time_s <= *r.rows[i].step_time_s);
  CHECK(!r.families.empty());
}

TEST_CASE("search refuses options it cannot use, by name", "[search]") {
  LayoutSearchOptions o;
  o.axes = {"dp", "pipeline"};
  CHECK_THROWS_WITH(searchLayouts(smallWorld(2), o), Catch::Contains("'pipeline'"));
  o.axes = {"tp", "tp"};
  CHECK_THROWS_WITH(searchLayouts(smallWorld(2), o), Catch::Contains("listed twice"));
  o.axes = {"dp", "tp"};
  o.max_size = {{"dp", 2}, {"tp", 2}};
  CHECK_THROWS_WITH(searchLayouts(smallWorld(2), o), Catch::Contains("no way to split 16 devices"));
  Scenario noModel = smallWorld(2);
  noModel.model.preset = "no-such-model";
  CHECK_THROWS_AS(searchLayouts(noModel, {}), Error);
}

TEST_CASE("eval search answers the documented fields", "[search][eval]") {
  Json scenario = scenarioToJson(smallWorld(4));
  const Json answer = evalRequest({{"op", "search"}, {"scenario", scenario}, {"axes", {"fsdp", "tp"}}, {"top", 2}});
  REQUIRE(answer["ok"] == true);
  const Json& r = answer["result"];
  CHECK(r["candidates_total"].get<std::int64_t>() >= 5);
  REQUIRE(r["rows"].is_array());
  CHECK(r["rows"].size() <= 2);
  for (const auto& row : r["rows"]) {
    for (const char* key : {"mesh", "axes", "rules", "step_time_s", "mfu", "max_bytes", "fits", "bound_by"})
      CHECK(row.contains(key));
    CHECK(row["fits"] == true);
  }
  const Json bad = evalRequest({{"op", "search"}, {"scenario", scenario}, {"axes", Json::array()}});
  CHECK(bad["ok"] == false);
  CHECK(bad["error"]["message"].get<std::string>().find("names no axis") != std::string::npos);
  const Json unknown = evalRequest({{"op", "search"}, {"scenario", scenario}, {"axis", {"tp"}}});
  CHECK(unknown["error"]["message"].get<std::string>().find("unknown field 'axis'") != std::string::npos);
}
