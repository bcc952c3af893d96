// SPDX-License-Identifier: Apache-2.0
// The layout search on worlds small enough to count by hand.
#include "search/layout_candidates.hpp"
#include "shardscope/search/layout_search.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/hardware/chips.hpp"
#include "shardscope/hardware/topology.hpp"
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/step/step_time.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <set>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

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

TEST_CASE("under the candidate limit, every family of layouts is evaluated", "[search]") {
  // 16 chips over dp, fsdp, tp in canonical order: 15 candidates in 7 families (the non-empty
  // subsets of the three axes: 3 with one axis, 9 with two, 3 with all three). A limit of 7 keeps
  // one of each, not the first 7 enumerated; the other 8 are counted, and no family's line is left
  // at "over the candidate limit" (a micro-batch of 16 divides over every batch degree, and GPT-2
  // fits; only tp:16 alone is refused, GPT-2 having 12 heads).
  LayoutSearchOptions o;
  o.orders = false;
  o.max_candidates = 7;
  const auto r = searchLayouts(smallWorld(16), o);
  CHECK(r.candidates_total == 15);
  REQUIRE(r.rejected.count("over the candidate limit") == 1);
  CHECK(r.rejected.at("over the candidate limit") == 8);
  CHECK(r.evaluated == 7);
  REQUIRE(r.families.size() == 7);
  for (const auto& line : r.families) {
    INFO(line);
    CHECK(line.find("over the candidate limit") == std::string::npos);
    if (line.rfind("tp:", 0) == 0)
      CHECK(line == "tp: none usable (1 tp larger than the model's attention heads)");
    else
      CHECK(line.find("none usable") == std::string::npos);
  }
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
  // max_candidates as the CLI's --max-candidates: 15 canonical candidates, 7 analysed.
  const Json capped = evalRequest(
      {{"op", "search"}, {"scenario", scenarioToJson(smallWorld(16))}, {"orders", false}, {"max_candidates", 7}});
  REQUIRE(capped["ok"] == true);
  CHECK(capped["result"]["evaluated"] == 7);
  CHECK(capped["result"]["rejected"]["over the candidate limit"] == 8);
  const Json zero = evalRequest({{"op", "search"}, {"scenario", scenario}, {"max_candidates", 0}});
  CHECK(zero["error"]["message"] == "search: 'max_candidates' must be an integer from 1 to 1000000");
}

namespace {

// A 2-layer Llama (hidden 1024, MLP 4096, 8 heads, vocab 8192, untied head) as a Hugging Face
// config.json, on a 16-chip v5e slice with a 256 x 1024-token batch: small enough to work the
// step times out by hand.
Scenario tinyLlamaWorld() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("shardscope-search-tiny-llama-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "config.json";
  std::ofstream(file) << R"({"model_type": "llama", "hidden_size": 1024, "intermediate_size": 4096,
    "num_hidden_layers": 2, "num_attention_heads": 8, "num_key_value_heads": 8, "vocab_size": 8192,
    "tie_word_embeddings": false, "torch_dtype": "bfloat16", "max_position_embeddings": 4096})";
  Scenario s = defaultScenario();
  s.topology = parseTopology("v5e:4x4");
  s.model = {};
  s.model.preset.clear();
  s.model.path = file.string();
  s.rules = {"fsdp-tp", {}};
  s.training.micro_batch = 256;
  s.training.seq_len = 1024;
  s.training.recompute = Recompute::Selective;
  s.mesh.axes = {{"fsdp", 16, 1, AxisType::Explicit}};
  return s;
}

const LayoutRow* rowNamed(const LayoutSearchResult& r, const std::string& mesh) {
  for (const auto& row : r.rows)
    if (row.mesh == mesh) return &row;
  return nullptr;
}

} // namespace

TEST_CASE("search ranks a tiny 2-layer model as worked out by hand", "[search]") {
  LayoutSearchOptions o;
  o.axes = {"fsdp", "tp"};
  o.orders = false;
  const auto r = searchLayouts(tinyLlamaWorld(), o);
  // fsdp x tp over 16 chips: (16,1), (8,2), (4,4), (2,8), (1,16); tp 16 exceeds the 8 heads.
  CHECK(r.candidates_total == 5);
  REQUIRE(r.rejected.count("tp larger than the model's attention heads") == 1);
  CHECK(r.rejected.at("tp larger than the model's attention heads") == 1);
  REQUIRE(r.rows.size() == 4);

  // Work per device. Matmul weights: 2 layers x (4 x 1024^2 attention + 3 x 1024 x 4096 MLP) +
  // the 8192 x 1024 head = 41,943,040 elements, 6 FLOPs each per token (forward 2, backward 4).
  // Attention core: 2 s_k (d_q + d_v) = 2 x 512.5 x 2048 = 2,099,200 per token and layer forward,
  // x4 with the backward (2x) and the selective recompute (1x): 16,793,600 for both layers.
  const double flopsPerToken = 6.0 * 41943040 + 16793600; // 268,451,840
  // fsdp:16: 16 sequences of 1024 tokens per device. Every layout does the same FLOPs per device:
  // tp halves the weights each device multiplies and doubles its tokens.
  const double flopsPerDevice = 16384 * flopsPerToken;
  // v5e peak x the chip's default flops_fraction (0.73: 30.6 ms).
  const double fraction = defaultCalibration(*findChip("v5e")).flops_fraction.value;
  const double compute = flopsPerDevice / (197e12 * fraction);
  // The elementwise work at HBM speed (819 GB/s x 0.9): per token and layer two norms and two
  // residual adds (10 x 1024 elements), rotary queries and keys (3 x 1024), the gated MLP's
  // activation (3 x 4096): 25,600 bf16 elements, over 16384 tokens and 2 layers, forward and
  // backward (3 passes; selective recompute re-runs none of it): 5.03 GB, 6.8 ms. The loss: 16384
  // tokens x 8192 logits x 20 bytes (fp32 forward 3 accesses, backward 2): 2.68 GB, 3.6 ms.
  const double hbm = 819e9 * 0.9;
  const double elementwise = 25600.0 * 2 * 16384 * 2 * 3 / hbm;
  const double loss = 16384.0 * 8192 * 20 / hbm;
  const LayoutRow* fsdp = rowNamed(r, "fsdp:16");
  const LayoutRow* tp2 = rowNamed(r, "fsdp:8,tp:2");
  const LayoutRow* tp4 = rowNamed(r, "fsdp:4,tp:4");
  REQUIRE(fsdp);
  REQUIRE(tp2);
  REQUIRE(tp4);
  // Pure FSDP: compute-bound; the weight gathers (84 MB per pass, ~100 us) hide behind 10 ms passes.
  CHECK(*fsdp->step_time_s >= compute + elementwise + loss);
  CHECK(*fsdp->step_time_s <= 1.1 * (compute + elementwise + loss));
  CHECK(fsdp->bound_by == "compute");
  // tp = 2 adds an exposed all-reduce of [T_local, hidden] = 32768 x 1024 x 2 B = 67.1 MB per block
  // (attention, MLP) and pass (forward, backward): 8 of them. A ring of 2 neighbours moves V per
  // device over one link (2 x 45 GB/s both ways at most): at least 0.75 ms each, 6.0 ms in all.
  const double tp2AllReduces = 8 * 67108864.0 / (2 * 45e9);
  CHECK(*tp2->step_time_s - *fsdp->step_time_s >= 0.8 * tp2AllReduces);
  // tp = 4 doubles the payload again (65536 tokens per device) on a ring of 4: slower still.
  CHECK(*tp4->step_time_s > *tp2->step_time_s);
  // So the order is fsdp:16, fsdp:8,tp:2, fsdp:4,tp:4, then fsdp:2,tp:8.
  CHECK(r.rows[0].mesh == "fsdp:16");
  CHECK(r.rows[1].mesh == "fsdp:8,tp:2");
  CHECK(r.rows[2].mesh == "fsdp:4,tp:4");
  CHECK(r.rows[3].mesh == "fsdp:2,tp:8");
}

TEST_CASE("small model, large batch: a pure batch layout wins", "[search]") {
  // GPT-2 with 16 sequences per chip: every layout computes the same, tp only adds activations.
  const auto r = searchLayouts(smallWorld(256), {});
  REQUIRE(!r.rows.empty());
  std::set<std::string> names;
  for (const auto& [name, size] : r.rows.front().axes) names.insert(name);
  CHECK(names.count("tp") == 0);
  CHECK(r.rows.front().bound_by == "compute");
}

TEST_CASE("scaling book: Llama 3.1 70B with a ~4M-token batch on v5p", "[search]") {
  Scenario s = defaultScenario();
  s.model = {};
  s.model.preset = "llama-3.1-70b";
  s.mesh.axes = {{"fsdp", -1, 1, AxisType::Explicit}};
  s.training.seq_len = 512;
  LayoutSearchOptions o;
  o.axes = {"fsdp", "tp"};
  o.orders = false;
  o.top = 1000;

  // 8192 chips (16x16x32), 8192 x 512 = 4.19M tokens: 512 per chip. Pure FSDP gathers over all
  // three wrapped axes: C/W = 4.59e14 / (3 axes x 2 directions x 90 GB/s) = 850 tokens, so the
  // weight all-gathers cannot hide and the search says so for that row.
  s.topology = parseTopology("v5p:16x16x32");
  s.training.micro_batch = 8192;
  const auto r = searchLayouts(s, o);
  const LayoutRow* pure = rowNamed(r, "fsdp:8192");
  REQUIRE(pure);
  CHECK(pure->why.find("512 tokens per device is below C/W = 850") != std::string::npos);
  CHECK(pure->why.find("fsdp weight all-gathers") != std::string::npos);
  // Every fsdp x tp split with tp at most the 64 heads was analysed (8192 = 2^13: tp 1..64, 7
  // sizes), the wider ones refused unanalysed (tp 128 .. 8192, 7 sizes).
  CHECK(r.candidates_total == 14);
  CHECK(r.rejected.at("tp larger than the model's attention heads") == 7);

  // The full pod, 8960 = 2^8 x 5 x 7 chips: no weight dimension of the model (8192, 28672 =
  // 2^12 x 7, 128256 = 2^8 x 3 x 167) divides by 8960, so pure FSDP replicates every weight:
  // 70.6B parameters x 16 bytes (bf16 weight and gradient, fp32 Adam moments) > 95 GiB.
  s.topology = parseTopology("v5p:16x20x28");
  s.training.micro_batch = 8960;
  o.axes = {"fsdp"};
  const auto pod = searchLayouts(s, o);
  CHECK(pod.rows.empty());
  CHECK(pod.rejected.at("does not fit in HBM") == 1);
}

TEST_CASE("search refuses a model without an architecture config", "[search]") {
  Scenario s = smallWorld(2);
  s.model = {};
  s.model.preset.clear();
  s.model.path = std::string(SHARDSCOPE_TEST_DATA) + "/tiny.safetensors";
  CHECK_THROWS_WITH(searchLayouts(s, {}), Catch::Contains("has no architecture config"));
  // And a count no factorisation fits: 16 chips with every axis at most 1.
  LayoutSearchOptions o;
  o.axes = {"fsdp"};
  o.max_size = {{"fsdp", 1}};
  CHECK_THROWS_WITH(searchLayouts(smallWorld(2), o), Catch::Contains("no way to split 16 devices over 1 axes"));
}

TEST_CASE("a search on an imported MaxText workspace answers in MaxText's axis names", "[search][maxtext]") {
  const std::string data = SHARDSCOPE_TEST_DATA "/maxtext/";
  MaxTextImportNotes notes;
  const Scenario imported = importMaxText({data + "base.yml"}, {"compile_topology=v5p-16"}, notes);
  LayoutSearchOptions o;
  o.axes = {"dp", "fsdp", "tp"};
  o.orders = false;
  const auto r = searchLayouts(imported, o);
  REQUIRE_FALSE(r.rows.empty());
  const std::set<std::string> maxtextAxes{"data", "fsdp", "tensor"};
  for (const LayoutRow& row : r.rows) {
    INFO(row.mesh);
    for (const auto& [name, size] : row.axes) CHECK(maxtextAxes.count(name) == 1);
    // The row's workspace keeps every one of MaxText's mesh axes and its own rules.
    CHECK(row.scenario.mesh.axes.size() == imported.mesh.axes.size());
    if (row.rules == "custom") CHECK(row.scenario.rules == imported.rules);
  }
  // The row fsdp 4 x tensor 2 under the config's own rules is what importing that mesh gives.
  const LayoutRow* row = nullptr;
  for (const LayoutRow& x : r.rows)
    if (x.mesh == "fsdp:4,tensor:2" && x.rules == "custom") row = &x;
  REQUIRE(row);
  const Scenario direct = importMaxText(
      {data + "base.yml"}, {"compile_topology=v5p-16", "ici_fsdp_parallelism=4", "ici_tensor_parallelism=2"}, notes);
  const Analysis a = analyze(direct);
  REQUIRE(a.step.estimated);
  REQUIRE(row->step_time_s);
  CHECK(*row->step_time_s == Approx(a.step.time_s).epsilon(1e-9));
  CHECK(row->max_bytes == Approx(a.memory.max_bytes).epsilon(1e-9));
}

TEST_CASE("the search tries context parallelism on long sequences: the sequence split, the weights whole", "[search]") {
  // Llama 3.1 8B on two hosts of 8 H100 with 8 sequences of 32768 tokens: fsdp 16 leaves half the
  // GPUs on padding; splitting each sequence over a cp axis of 2 gives every GPU work.
  Scenario s = defaultScenario();
  s.topology = parseTopology("h100:2x8");
  s.training.micro_batch = 8;
  s.training.seq_len = 32768;
  s.training.recompute = Recompute::Full;
  s.mesh.axes = {{"fsdp", 16, 1, AxisType::Explicit}};
  s.training.batch_axes = {"fsdp"};
  LayoutSearchOptions o;
  o.orders = false;
  o.axes = {"fsdp", "cp"};
  const auto r = searchLayouts(s, o);
  const LayoutRow* cp = rowNamed(r, "fsdp:8,cp:2");
  REQUIRE(cp);
  REQUIRE_FALSE(r.rows.empty());
  CHECK(r.rows.front().mesh == "fsdp:8,cp:2"); // every GPU busy, the fewest weight replicas
  REQUIRE(r.current);
  REQUIRE(r.current->step_time_s);
  REQUIRE(cp->step_time_s);
  CHECK(*cp->step_time_s < 0.6 * *r.current->step_time_s);
  // The row's workspace splits the sequence over cp and the batch over fsdp; no rule shards a
  // weight over cp.
  CHECK(cp->scenario.training.seq_axes == std::vector<std::string>{"cp"});
  CHECK(cp->scenario.training.batch_axes == std::vector<std::string>{"fsdp"});
  const Analysis a = analyze(cp->scenario);
  REQUIRE_FALSE(a.params.empty());
  for (const std::string& spec : a.params.specTexts()) {
    INFO(spec);
    CHECK(spec.find("'cp'") == std::string::npos);
  }
  // Its step is the same workspace written by hand (Megatron's form: a cp axis in seq_axes).
  Scenario hand = s;
  hand.mesh.axes = {{"fsdp", 8, 1, AxisType::Explicit}, {"cp", 2, 1, AxisType::Explicit}};
  hand.training.seq_axes = {"cp"};
  const Analysis b = analyze(hand);
  REQUIRE(b.step.estimated);
  CHECK(*cp->step_time_s == Approx(b.step.time_s));
  // With no axes given, a 128K-token sequence searches cp and sp as well, an 8K one neither.
  CHECK(search::defaultSearchAxes(false, 131072) == std::vector<std::string>{"dp", "fsdp", "cp", "sp", "tp"});
  CHECK(search::defaultSearchAxes(false, 8192) == std::vector<std::string>{"dp", "fsdp", "tp"});
}
