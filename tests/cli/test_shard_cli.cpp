// SPDX-License-Identifier: Apache-2.0
#include "cli.hpp"
#include "cli/cli_run.hpp"
#include "shardscope/eval/eval.hpp"
#include "shardscope/models/model_loaders.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;

namespace {
using Run = test::CliRun;
Run run(const cli::Args& args) { return test::runCli(args); }
} // namespace

TEST_CASE("shard prints one table row per parameter and the memory summary", "[cli][shard]") {
  const Run r = run({"shard", "--topology", "v4:2x2x1", "--mesh", "fsdp:-1", "--model", "gpt2", "--rules", "fsdp"});
  REQUIRE(r.code == 0);
  const Model gpt2 = loadPresetModel("gpt2");
  std::istringstream lines(r.out);
  std::string line;
  int rows = 0;
  std::getline(lines, line); // header
  std::getline(lines, line); // rule
  while (std::getline(lines, line) && !line.empty()) ++rows;
  CHECK(rows == static_cast<int>(gpt2.params.size()));
  CHECK(r.out.find("mesh fsdp:4 on 4 devices") != std::string::npos);
  CHECK(r.out.find("memory per device") != std::string::npos);
  CHECK(r.out.find("fits") != std::string::npos);
}

TEST_CASE("shard --format json matches the analyze eval op", "[cli][shard]") {
  const Run r = run({"shard", "--format", "json"});
  REQUIRE(r.code == 0);
  const Json printed = Json::parse(r.out);
  const Json viaEval = evalRequest({{"op", "analyze"}, {"scenario", Json::object()}})["result"];
  CHECK(printed["params"] == viaEval["params"]);
  CHECK(printed["memory"]["max_bytes"] == viaEval["memory"]["max_bytes"]);
}

TEST_CASE("shard --format csv quotes specs with commas", "[cli][shard]") {
  const Run r = run({"shard", "--format", "csv"});
  REQUIRE(r.code == 0);
  CHECK(r.out.rfind("parameter,shape,dtype,spec,shard,bytes/device,notes\n", 0) == 0);
  CHECK(r.out.find("\"(") != std::string::npos); // shapes like (4096, 14336) are quoted
}

TEST_CASE("shard errors name the problem and exit non-zero", "[cli][shard]") {
  Run r = run({"shard", "--topology", "v4:4x4x8", "--mesh", "fsdp:-1,tp:3"});
  CHECK(r.code == 1);
  CHECK(r.err.find("do not divide the 128 devices") != std::string::npos);
  r = run({"shard", "--no-split"});
  CHECK(r.code == 1);
  CHECK(r.err.find("NotImplementedError: Failed to find assignment") != std::string::npos);
  r = run({"shard", "/nonexistent.shardscope.json"});
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot open workspace '/nonexistent.shardscope.json': no such file") != std::string::npos);
  r = run({"shard", "/tmp"}); // a directory given as a workspace: said so
  CHECK(r.code == 1);
  CHECK(r.err.find("cannot open workspace '/tmp': it is a directory") != std::string::npos);
  r = run({"shard", "--rules"});
  CHECK(r.err.find("option --rules needs a value") != std::string::npos);
}

TEST_CASE("help topics", "[cli][help]") {
  Run r = run({"help", "eval"});
  CHECK(r.code == 0);
  CHECK(r.out.find("create_device_mesh") != std::string::npos);
  CHECK(r.out.find("analyze") != std::string::npos);
  r = run({"help", "models"});
  CHECK(r.out.find("llama-3.1-405b") != std::string::npos);
  r = run({"help", "nope"});
  CHECK(r.code == 2);
  CHECK(r.err.find("unknown help topic 'nope'") != std::string::npos);
}

TEST_CASE("shard --rules takes a rule file as the whole rule set", "[cli][shard][rules]") {
  const std::string path =
      (std::filesystem::temp_directory_path() / ("shardscope-test-rules-" + std::to_string(::getpid()) + ".json"))
          .string();
  {
    std::ofstream f(path);
    f << R"({"rules": [["wpe", ["tp", null]], ["c_attn\\.weight", [null, "tp"]], [".*", []]]})";
  }
  const Run r =
      run({"shard", "--topology", "v4:2x2x1", "--mesh", "tp:4", "--model", "gpt2", "--rules", path, "--format", "csv"});
  REQUIRE(r.code == 0);
  // wpe is 1024 x 768: four shards of 256 rows; c_attn is 768 x 2304: columns split in four.
  CHECK(r.out.find("transformer.wpe.weight,\"(1024, 768)\",bfloat16,\"P('tp', None)\",\"(256, 768)\"") !=
        std::string::npos);
  CHECK(r.out.find("transformer.h.0.attn.c_attn.weight,\"(768, 2304)\",bfloat16,\"P(None, 'tp')\",\"(768, 576)\"") !=
        std::string::npos);
  CHECK(r.out.find("transformer.wte.weight,\"(50257, 768)\",bfloat16,P(),") != std::string::npos);
  std::filesystem::remove(path);

  const Run missing = run({"shard", "--rules", "no-such-rules.json"});
  CHECK(missing.code != 0);
  CHECK(missing.err.find(
            "--rules 'no-such-rules.json' is neither a preset (dp, fsdp, tp, fsdp-tp, ep, sp) nor a rule file") !=
        std::string::npos);
}

TEST_CASE("shard --zero splits optimizer state and gradients over the data-parallel axis", "[cli][shard]") {
  const auto memory = [](const char* zero) {
    cli::Args args = {"shard", "--topology", "v4:2x2x1", "--mesh",   "dp:4", "--model",
                      "gpt2",  "--rules",    "dp",       "--format", "json"};
    if (*zero) args.insert(args.end(), {"--zero", zero});
    const Run r = run(args);
    REQUIRE(r.code == 0);
    return Json::parse(r.out)["memory"]["fullest_device"];
  };
  const Json base = memory(""), one = memory("1"), two = memory("2");
  const double params = base["params"].get<double>(), grads = base["grads"].get<double>(),
               opt = base["optimizer"].get<double>();
  // Replicated parameters on 4 devices: stage 1 keeps 1/4 of the AdamW state (each tensor's
  // largest dimension split four ways, rounded up), stage 2 also 1/4 of the gradients.
  CHECK(one["params"].get<double>() == params);
  CHECK(one["grads"].get<double>() == grads);
  CHECK(one["optimizer"].get<double>() == Approx(opt / 4).epsilon(1e-4));
  CHECK(two["grads"].get<double>() == Approx(grads / 4).epsilon(1e-4));
  CHECK(two["optimizer"].get<double>() == one["optimizer"].get<double>());
  const Run bad = run({"shard", "--zero", "3"});
  CHECK(bad.code != 0);
  CHECK(bad.err.find("--zero must be 0, 1 or 2, got '3'") != std::string::npos);
}

TEST_CASE("shard refuses command lines it used to half-ignore", "[cli][shard]") {
  // Issue 13: two workspaces (the second used to replace the first), an empty model name.
  Run r = run({"shard", "a.shardscope.json", "b.shardscope.json"});
  CHECK(r.code == 2);
  CHECK(r.err.find("only 1 workspace file may be given, got 'a.shardscope.json' and 'b.shardscope.json'") !=
        std::string::npos);
  r = run({"shard", "--model", ""});
  CHECK(r.code == 2);
  CHECK(r.err.find("option --model needs a value, got an empty one") != std::string::npos);
  r = run({"shard", "--model=", "--format", "csv"});
  CHECK(r.code == 2);
  CHECK(r.out.empty());
}

TEST_CASE("shard --format csv says why the table is empty", "[cli][shard]") {
  // Issue 13: a model that fails to load printed a header and nothing else.
  const Run r = run({"shard", "--model", "/nonexistent/model.json", "--format", "csv"});
  CHECK(r.code == 1);
  CHECK(r.out == "parameter,shape,dtype,spec,shard,bytes/device,notes\n");
  CHECK(r.err.rfind("shardscope-cli shard: error [model] ", 0) == 0);
  CHECK(r.err.find("/nonexistent/model.json") != std::string::npos);
}

TEST_CASE("shard's table shows the notes: absent batch axes, activations not estimated", "[cli][shard]") {
  // Issue 13: these were info diagnostics the table dropped, so "activations 0 B" went unexplained.
  const std::string path =
      (std::filesystem::temp_directory_path() / ("shardscope-test-bare-model-" + std::to_string(::getpid()) + ".json"))
          .string();
  {
    std::ofstream f(path);
    f << R"({"name": "bare", "params": [{"path": "w", "shape": [64, 64], "dtype": "float32"}]})";
  }
  // The default batch axes are dp and fsdp; this mesh has only fsdp.
  const Run r = run({"shard", "--topology", "v4:2x2x1", "--mesh", "fsdp:-1", "--model", path, "--rules", "fsdp"});
  std::filesystem::remove(path);
  REQUIRE(r.code == 0);
  CHECK(r.out.find("note [memory] dp: the batch axis 'dp' is not in the mesh") != std::string::npos);
  CHECK(r.out.find("note [memory] model 'bare' has no architecture config: activations not estimated") !=
        std::string::npos);
  CHECK(r.err.empty());
}
