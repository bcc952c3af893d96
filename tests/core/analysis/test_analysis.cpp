// SPDX-License-Identifier: Apache-2.0
#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/analysis_json.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/base/errors.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

#include "shardscope/base/resources.hpp"
#include "shardscope/hardware/topology.hpp"

#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

using namespace shardscope;

namespace {
double sumOfRows(const Analysis& a) {
  double total = 0;
  for (const auto& p : a.params) total += p.bytes_per_device;
  return total;
}
} // namespace

TEST_CASE("the default scenario analyses end to end", "[analysis]") {
  const Analysis a = analyze(defaultScenario());
  REQUIRE(a.mesh.shape() == Shape{2, 16, 4});
  REQUIRE(a.mesh.devices.size() == 128);
  // Every device appears exactly once in the grid.
  std::map<int, int> seen;
  for (int pos : a.mesh.grid.data()) ++seen[pos];
  CHECK(seen.size() == 128);

  // One row per tensor of Llama-3.1-8B, in bf16.
  const Model model = loadPresetModel("llama-3.1-8b");
  REQUIRE(a.params.size() == model.params.size());
  for (const auto& row : a.params) CHECK(row.dtype == "bfloat16");

  // Parameters held per device = the sum of the table's shard bytes (computed independently of
  // the memory engine), on every device.
  REQUIRE(a.memory.per_device.size() == 128);
  const double rows = sumOfRows(a);
  for (const auto& d : a.memory.per_device) CHECK(d.params == Approx(rows));
  // FSDP+TP over 64 of the 128 devices: at least the bf16 model / 64, and well under / 32.
  const double modelBytes = 2.0 * static_cast<double>(model.parameterCount());
  CHECK(rows >= modelBytes / 64.0);
  CHECK(rows < modelBytes / 32.0);
  // AdamW with fp32 m and v: 8 bytes per parameter element vs 2 for bf16 params.
  CHECK(a.memory.per_device[0].optimizer == Approx(4.0 * a.memory.per_device[0].params).epsilon(1e-9));
  CHECK(a.memory.hbm_bytes == Approx(32.0 * 1024 * 1024 * 1024));

  // One communication row per axis, in mesh order.
  REQUIRE(a.comm.size() == 3);
  CHECK(a.comm[0].name == "dp");
  CHECK(a.comm[2].name == "tp");
  CHECK(a.comm[2].size == 4);
  // Per-step seconds from the step estimate: what the axis carries splits into overlapped + exposed.
  REQUIRE(a.step.estimated);
  for (std::size_t i = 0; i < a.comm.size(); ++i) {
    REQUIRE(a.stepAxis(i));
    CHECK(a.stepAxis(i)->seconds > 0);
    CHECK(a.stepAxis(i)->overlapped + a.stepAxis(i)->exposed == Approx(a.stepAxis(i)->seconds));
  }
  CHECK(a.diagnostics.end() == std::find_if(a.diagnostics.begin(), a.diagnostics.end(), [](const Diagnostic& d) {
          return d.severity == Diagnostic::Severity::Error;
        }));
}

TEST_CASE("pure data parallel holds the whole model on every device", "[analysis]") {
  Scenario s = defaultScenario();
  s.rules.preset = "dp";
  const Analysis dp = analyze(s);
  const Model model = loadPresetModel("llama-3.1-8b");
  CHECK(dp.memory.per_device[0].params == Approx(2.0 * static_cast<double>(model.parameterCount())));
  for (const auto& row : dp.params) CHECK(row.spec.toString() == "P()");

  // Switching to FSDP+TP cuts the fullest device's bytes.
  const Analysis fsdp = analyze(defaultScenario());
  CHECK(fsdp.memory.max_bytes < dp.memory.max_bytes / 4);
}

TEST_CASE("a mesh that cannot be placed throws the reference's error", "[analysis]") {
  Scenario s = defaultScenario();
  s.mesh.allow_split_physical_axes = false;
  try {
    (void)analyze(s);
    FAIL("expected NotImplementedError");
  } catch (const Error& e) {
    CHECK(e.kind() == ErrorKind::NotImplementedError);
    CHECK(std::string(e.what()).find("set  allow_split_physical_axes to True") != std::string::npos);
  }
}

TEST_CASE("a model that cannot be loaded is a diagnostic, and the mesh still shows", "[analysis]") {
  Scenario s = defaultScenario();
  s.model = {};
  s.model.path = "/nonexistent/model.safetensors";
  const Analysis a = analyze(s);
  CHECK(a.mesh.devices.size() == 128);
  CHECK(a.params.empty());
  REQUIRE_FALSE(a.diagnostics.empty());
  CHECK(a.diagnostics.front().section == DiagnosticSection::Model);
  CHECK(a.diagnostics.front().severity == Diagnostic::Severity::Error);
}

TEST_CASE("multi-slice scenarios place slices over DCN", "[analysis]") {
  Scenario s = defaultScenario();
  s.topology = {"v4", {4, 4, 4}, 2, 0, {0, 0, 0}, false, ""};
  s.mesh.axes = {{"dp", 1, 2}, {"fsdp", 16, 1}, {"tp", 4, 1}};
  s.mesh.allow_split_physical_axes = false;
  const Analysis a = analyze(s);
  CHECK(a.mesh.shape() == Shape{2, 16, 4});
  CHECK(a.placements.size() == 2);
  // The dp groups pair the same position of the two slices.
  REQUIRE(a.comm.size() == 3);
  CHECK(a.comm[0].crosses_slices);
  CHECK(a.comm[0].in_slice == 0); // dp pairs one device of each slice: a single DCN ring
  CHECK_FALSE(a.comm[2].crosses_slices);
  CHECK(a.axes[0].explanation.find("2 slices over DCN") != std::string::npos);
}

TEST_CASE("the analysis JSON carries every section", "[analysis]") {
  const Json j = analysisToJson(analyze(defaultScenario()));
  CHECK(j["mesh"]["shape"] == Json::parse("[2, 16, 4]"));
  CHECK(j["params"].size() > 100);
  CHECK(j["memory"]["out_of_memory"].is_boolean());
  CHECK(j["comm"].size() == 3);
  CHECK_FALSE(j["memory"].contains("per_device"));
  CHECK(analysisToJson(analyze(defaultScenario()), true)["memory"]["per_device"].size() == 128);
}

TEST_CASE("the streamed analysis JSON is the dumped document, byte for byte", "[analysis]") {
  // writeAnalysisJson writes the per-device list one device at a time; its text must be what
  // dumping the whole document gives, in every layout.
  const Analysis a = analyze(defaultScenario());
  for (const bool perDevice : {false, true})
    for (const int indent : {-1, 0, 2, 4}) {
      INFO("per device " << perDevice << ", indent " << indent);
      std::ostringstream streamed;
      writeAnalysisJson(streamed, a, perDevice, indent);
      CHECK(streamed.str() == dumpJson(analysisToJson(a, perDevice), indent));
    }
  std::ostringstream text;
  writeAnalysisJson(text, a, true, 2);
  CHECK(Json::parse(text.str())["memory"]["per_device"].size() == 128);
}

TEST_CASE("the analyze eval op answers a workspace, and the mesh error for a bad one", "[analysis][eval]") {
  Json request = {{"op", "analyze"}, {"scenario", scenarioToJson(defaultScenario())}};
  const Json ok = evalRequest(request);
  REQUIRE(ok["ok"] == true);
  CHECK(ok["result"]["mesh"]["device_count"] == 128);

  request["scenario"]["mesh"]["allow_split_physical_axes"] = false;
  const Json refused = evalRequest(request);
  CHECK(refused["ok"] == false);
  CHECK(refused["error"]["type"] == "NotImplementedError");

  request["scenario"]["mesh"]["axes"][0]["ici"] = "two";
  CHECK(evalRequest(request)["error"]["message"] == "mesh.axes[0].ici must be an integer, got \"two\"");

  // A misspelt option is refused, not ignored.
  const Json typo =
      evalRequest({{"op", "analyze"}, {"scenario", scenarioToJson(defaultScenario())}, {"perdevice", true}});
  CHECK(typo["ok"] == false);
  CHECK(typo["error"]["message"] == "analyze: unknown field 'perdevice' (known: op, scenario, per_device)");
}

TEST_CASE("every built-in example workspace analyses without errors", "[analysis][resources]") {
  namespace fs = std::filesystem;
  int count = 0;
  for (const auto& entry : fs::directory_iterator(resourcePath("scenarios"))) {
    if (entry.path().extension() != ".json") continue;
    ++count;
    INFO(entry.path().string());
    std::ifstream in(entry.path());
    const Scenario s = scenarioFromJson(Json::parse(in));
    const Analysis a = analyze(s);
    CHECK_FALSE(a.params.empty());
    CHECK(a.memory.max_bytes > 0);
    CHECK_FALSE(a.memory.out_of_memory);
    CHECK(a.comm.size() == s.mesh.axes.size());
    for (const auto& d : a.diagnostics) CHECK(d.severity != Diagnostic::Severity::Error);
  }
  CHECK(count >= 5);
}

TEST_CASE("a rule override changes one parameter and the preset covers the rest", "[analysis]") {
  Scenario s = defaultScenario();
  s.rules.rules = {{"^lm_head\\.weight$", Json::array()}}; // P(): replicate the output projection
  const Analysis a = analyze(s);
  const Analysis base = analyze(defaultScenario());
  REQUIRE(a.params.size() == base.params.size());
  int changed = 0;
  for (std::size_t i = 0; i < a.params.size(); ++i) {
    if (a.params[i].path == "lm_head.weight") {
      CHECK(a.params[i].spec.toString() == "P()");
      CHECK(base.params[i].spec.toString() != "P()");
    } else {
      changed += a.params[i].spec != base.params[i].spec;
    }
  }
  CHECK(changed == 0);
}

TEST_CASE("ZeRO stages through the whole analysis: the paper's 7.5B model on 64 devices", "[analysis][memory]") {
  // Ψ = 7.5e9 parameters in bf16, AdamW with fp32 master weights (K = 12 bytes of state per
  // parameter), 64-way data parallel: 120 -> 31.4 -> 16.6 -> 1.9 GB (Rajbhandari et al., Fig. 1).
  Scenario s = defaultScenario();
  s.topology = parseTopology("v4:4x4x4");
  s.model = {};
  s.model.inline_params = Json::parse(R"([{"path": "w", "shape": [6400, 1171875], "dtype": "bfloat16"}])");
  s.training.master_weights_fp32 = true;
  s.training.batch_axes = {"dp", "fsdp"};
  const auto totalOnDevice0 = [](const Scenario& scenario) {
    const Analysis a = analyze(scenario);
    REQUIRE(a.memory.per_device.size() == 64);
    CHECK(a.memory.per_device[0].activations == 0); // a bare parameter list has no architecture
    // Every device holds the same under pure data parallelism.
    CHECK(a.memory.per_device[63].total() == a.memory.per_device[0].total());
    return a.memory.per_device[0].total();
  };

  s.mesh.axes = {{"dp", 64, 1}};
  s.rules = {};
  s.rules.rules = {{".*", Json::array()}}; // replicated: plain data parallel
  s.rules.preset.clear();
  s.training.zero_stage = 0;
  CHECK(totalOnDevice0(s) == Approx(120e9));
  s.training.zero_stage = 1;
  CHECK(totalOnDevice0(s) == Approx(31.40625e9)); // 2Ψ + 2Ψ + 12Ψ/64
  s.training.zero_stage = 2;
  CHECK(totalOnDevice0(s) == Approx(16.640625e9)); // 2Ψ + 14Ψ/64
  // Stage 3 is a rule set, not a flag: the parameter itself sharded over the 64 devices.
  s.mesh.axes = {{"fsdp", 64, 1}};
  s.rules.rules = {{"w", Json::parse(R"(["fsdp", null])")}};
  s.training.zero_stage = 0;
  CHECK(totalOnDevice0(s) == Approx(1.875e9)); // 16Ψ/64
  // ZeRO on top of a parameter already sharded over every batch axis changes nothing.
  s.training.zero_stage = 2;
  CHECK(totalOnDevice0(s) == Approx(1.875e9));
}

TEST_CASE("zero_stage round-trips through the workspace and is range-checked", "[analysis][scenario]") {
  Scenario s = defaultScenario();
  s.training.zero_stage = 2;
  CHECK(scenarioFromJson(scenarioToJson(s)).training.zero_stage == 2);
  Json j = scenarioToJson(s);
  j["training"]["zero_stage"] = 3;
  CHECK_THROWS_WITH(scenarioFromJson(j), "training.zero_stage must be an integer between 0 and 2, got 3");
}

TEST_CASE("a batch axis listed twice in code splits activations once and is reported", "[analysis]") {
  // The workspace reader refuses the duplicate; a scenario built in code (the GUI's text field)
  // still must not halve the activations.
  Scenario s = defaultScenario();
  s.training.zero_stage = 1;
  const Analysis once = analyze(s);
  s.training.batch_axes = {"dp", "fsdp", "dp"};
  const Analysis twice = analyze(s);
  REQUIRE(once.memory.per_device[0].activations > 0);
  CHECK(twice.memory.per_device[0].activations == once.memory.per_device[0].activations);
  CHECK(twice.memory.per_device[0].optimizer == once.memory.per_device[0].optimizer);
  bool warned = false;
  for (const auto& d : twice.diagnostics)
    warned |= d.severity == Diagnostic::Severity::Warning &&
              d.message == "the batch axis 'dp' is listed twice; it splits activations once";
  CHECK(warned);
}
