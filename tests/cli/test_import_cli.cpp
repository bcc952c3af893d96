// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli import maxtext`: the example opens with MaxText's mesh, specs and batch;
// the MaxText export of the imported workspace imports back to the same mesh, device order and
// specs; the command line is read as MaxText reads its own.
#include "cli_run.hpp"

#include "shardscope/analysis/analysis.hpp"
#include "shardscope/analysis/engine_options.hpp"
#include "shardscope/interop/maxtext_import.hpp"
#include "shardscope/analysis/scenario.hpp"
#include "shardscope/base/json_text.hpp"
#include "shardscope/base/yaml_text.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace shardscope;
using test::runCli;

namespace {

const std::string kData = SHARDSCOPE_TEST_DATA "/maxtext/";

std::filesystem::path tempFile(const std::string& name) {
  return std::filesystem::temp_directory_path() / ("shardscope-import-" + std::to_string(::getpid()) + "-" + name);
}

std::string readText(const std::filesystem::path& file) {
  std::ifstream in(file);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

} // namespace

TEST_CASE("import maxtext: base.yml + llama2-70b.yml, ici_fsdp=-1 ici_tensor=4 on v5p-256", "[cli][import]") {
  const auto out = tempFile("llama.json");
  const auto run =
      runCli({"import", "maxtext", kData + "base.yml", kData + "models/llama2-70b.yml", "ici_fsdp_parallelism=-1",
              "ici_tensor_parallelism=4", "compile_topology=v5p-256", "-o", out.string()});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.err.find("keys not used: run_name") != std::string::npos);
  const Scenario s = loadScenarioFile(out);
  std::filesystem::remove(out);
  CHECK(s.name == "MaxText: llama2-70b on v5p-256");
  CHECK(s.training.framework == Framework::MaxText);
  CHECK(s.training.micro_batch == 1536); // int(128 x 12.0)
  // The analysis gives each parameter the spec MaxText's rules give it (hand-derived in
  // tests/core/interop/test_maxtext_import.cpp) on a 32 x 4 placement of the 128 chips.
  const Analysis a = analyze(s);
  CHECK(a.mesh.axisSize("fsdp") == 32);
  CHECK(a.mesh.axisSize("tensor") == 4);
  const auto wi = a.params.find("params/decoder/layers/mlp/wi_0/kernel");
  REQUIRE(wi);
  CHECK(a.params[*wi].spec.toString() == "P('fsdp', None, 'tensor')");
  CHECK(a.params[*wi].shard_shape == Shape{8192 / 32, 80, 28672 / 4});
  const auto q = a.params.find("params/decoder/layers/self_attention/query/kernel");
  REQUIRE(q);
  CHECK(a.params[*q].spec.toString() == "P('fsdp', None, 'tensor', None)");
}

TEST_CASE("import maxtext round trip: export --as maxtext, import again, same mesh, devices, specs",
          "[cli][import][export]") {
  for (const std::vector<std::string>& extra :
       {std::vector<std::string>{"ici_tensor_parallelism=4", "compile_topology=v5p-256"},
        std::vector<std::string>{"ici_tensor_parallelism=4", "compile_topology=v5p-256",
                                 "compile_topology_num_slices=2", "per_device_batch_size=2"}}) {
    std::vector<std::string> args{"import", "maxtext", kData + "base.yml", kData + "models/llama2-70b.yml"};
    args.insert(args.end(), extra.begin(), extra.end());
    const auto first = tempFile("first.json");
    args.push_back("-o");
    args.push_back(first.string());
    REQUIRE(runCli(args).code == 0);
    const auto overridesFile = tempFile("overrides.yml");
    const auto exported = runCli({"export", "--as", "maxtext", first.string(), "-o", overridesFile.string()});
    INFO(exported.err);
    REQUIRE(exported.code == 0);
    // The exported keys, as key=value overrides (JSON text is YAML flow text).
    const Json keys = parseYamlText(readText(overridesFile), "overrides.yml");
    std::vector<std::string> overrides{"compile_topology=v5p-256"};
    for (auto it = keys.begin(); it != keys.end(); ++it) overrides.push_back(it.key() + "=" + dumpJson(it.value()));
    if (extra.size() > 2) overrides.push_back("compile_topology_num_slices=2");
    MaxTextImportNotes notes;
    const Scenario again = importMaxText({kData + "base.yml", kData + "models/llama2-70b.yml"}, overrides, notes);
    const Scenario original = loadScenarioFile(first);
    std::filesystem::remove(first);
    std::filesystem::remove(overridesFile);
    CHECK(again.mesh == original.mesh);
    CHECK(again.topology == original.topology);
    CHECK(again.rules == original.rules);
    CHECK(again.training.micro_batch == original.training.micro_batch);
    CHECK(again.training.recompute == original.training.recompute);
    const Analysis a = analyzeMesh(original), b = analyzeMesh(again);
    CHECK(a.mesh.deviceIds() == b.mesh.deviceIds());
    CHECK(a.mesh.axis_names == b.mesh.axis_names);
  }
}

TEST_CASE("import: the command line is read as MaxText reads its own", "[cli][import]") {
  CHECK(runCli({"import"}).code == 2);
  CHECK(runCli({"import", "safetensors", "x"}).code == 2);
  CHECK(runCli({"import", "maxtext"}).code == 2);
  const auto late = runCli({"import", "maxtext", kData + "base.yml", "compile_topology=v5p-8", kData + "x.yml"});
  CHECK(late.code == 2);
  CHECK(late.err.find("comes after the key=value overrides") != std::string::npos);
  // A value we do not model: exit 1 and one line naming the key.
  const auto bad = runCli({"import", "maxtext", kData + "base.yml", "compile_topology=v5p-8", "quantization=intmp"});
  CHECK(bad.code == 1);
  CHECK(bad.err.find("'quantization'") != std::string::npos);
  CHECK(bad.err.find("'int8', 'fp8' and 'fp8_full'") != std::string::npos);
  // int8 and fp8 are the weight matmuls' precision (AQT): v5p's INT8 peak is 918 TOP/s.
  const auto int8 = tempFile("int8.json");
  REQUIRE(runCli({"import", "maxtext", kData + "base.yml", "compile_topology=v5p-8", "quantization=int8", "-o",
                  int8.string()})
              .code == 0);
  const Scenario quantized = loadScenarioFile(int8);
  std::filesystem::remove(int8);
  CHECK(quantized.training.precision == Precision::Int8);
  CHECK(stepOptionsFromScenario(quantized, "v5p").peak_matmul_flops.value == 918e12);
  const auto yaml = runCli({"import", "maxtext", kData + "bad.yml"});
  CHECK(yaml.code == 1);
  CHECK(yaml.err.find("bad.yml:3:1:") != std::string::npos);
  CHECK(runCli({"import", "--help"}).out.find("import maxtext BASE.yml") != std::string::npos);
}
