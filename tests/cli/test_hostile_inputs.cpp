// SPDX-License-Identifier: Apache-2.0
// Issue 31's hostile and careless inputs, replayed: outputs never written over their inputs, write
// errors on stdout are failures, validate counts a run it cannot predict as a failure.
#include "cli_run.hpp"

#include "shardscope/base/resources.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <sstream>
#include <streambuf>
#include <unistd.h>

using shardscope::resourceDir;
using shardscope::test::runCli;
namespace fs = std::filesystem;

namespace {

fs::path scratchDir() {
  const fs::path dir = fs::temp_directory_path() / ("shardscope-hostile-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  return dir;
}

std::string readAll(const fs::path& file) {
  std::ifstream in(file, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

// A stream that refuses every byte, as stdout does on a full disk (> /dev/full).
struct FullDisk : std::streambuf {
  int overflow(int) override { return traits_type::eof(); }
  std::streamsize xsputn(const char*, std::streamsize) override { return 0; }
};

} // namespace

TEST_CASE("export and import never write over the file they read, by any path to it", "[cli][security]") {
  const fs::path dir = scratchDir();
  const fs::path workspace = dir / "g.json";
  fs::copy_file(resourceDir() / "scenarios" / "gemma-2-27b-serving-v5e-16.shardscope.json", workspace,
                fs::copy_options::overwrite_existing);
  const std::string before = readAll(workspace);
  REQUIRE(!before.empty());

  auto same = runCli({"export", "--as", "jax", workspace.string(), "-o", workspace.string()});
  CHECK(same.code == 1);
  CHECK(same.err.find("is the input") != std::string::npos);
  // Through a symbolic link and through another spelling of the path.
  const fs::path link = dir / "link.json";
  fs::remove(link);
  fs::create_symlink(workspace, link);
  auto viaLink = runCli({"export", "--as", "jax", workspace.string(), "-o", link.string()});
  CHECK(viaLink.code == 1);
  auto dotted = runCli({"export", "--as", "jax", workspace.string(), "-o", (dir / "." / "g.json").string()});
  CHECK(dotted.code == 1);
  CHECK(readAll(workspace) == before);

  // import maxtext: the output may not be one of the configs it reads.
  const fs::path base = dir / "base.yml";
  std::ofstream(base) << "per_device_batch_size: 1\n";
  const std::string baseText = readAll(base);
  auto import = runCli({"import", "maxtext", base.string(), "-o", base.string()});
  CHECK(import.code == 1);
  CHECK(readAll(base) == baseText);

  // A different file is written whole, and nothing partial is left beside it.
  const fs::path out = dir / "layout.py";
  auto ok = runCli({"export", "--as", "jax", workspace.string(), "-o", out.string()});
  CHECK(ok.code == 0);
  CHECK(readAll(out).find("import jax") != std::string::npos);
  int leftovers = 0;
  for (const auto& entry : fs::directory_iterator(dir))
    leftovers += entry.path().filename().string().find(".partial-") != std::string::npos;
  CHECK(leftovers == 0);
  fs::remove_all(dir);
}

TEST_CASE("a command whose standard output cannot be written fails with exit 1", "[cli][security]") {
  const std::string workspace = (resourceDir() / "scenarios" / "gemma-2-27b-serving-v5e-16.shardscope.json").string();
  for (const shardscope::cli::Args& args :
       {shardscope::cli::Args{"export", "--as", "jax", workspace}, shardscope::cli::Args{"shard", workspace},
        shardscope::cli::Args{"decode-sharding", "{devices=[2,2]<=[4]}", "--shape", "8,8"}}) {
    INFO(args.front());
    FullDisk full;
    std::ostream out(&full);
    std::istringstream in;
    std::ostringstream err;
    const int code = shardscope::cli::run(args, {in, out, err});
    CHECK(code == 1);
    CHECK(err.str().find("could not write the output") != std::string::npos);
  }
  // eval stops reading requests once nobody reads its answers.
  FullDisk full;
  std::ostream out(&full);
  std::istringstream in("{\"op\": \"list_chips\"}\n{\"op\": \"list_chips\"}\n");
  std::ostringstream err;
  CHECK(shardscope::cli::run({"eval"}, {in, out, err}) == 1);
}

TEST_CASE("validate counts a run it cannot predict as a failure and says why in full", "[cli][validate][security]") {
  const fs::path dir = scratchDir() / "suite";
  fs::create_directories(dir);
  // One run on a chip nobody makes: no step time, so no MAPE either.
  std::ofstream(dir / "runs.json") << R"({"format": "shardscope-validation", "version": 1, "source": "test",
    "citation": "test", "runs": [{"id": "bad-chip\u001b[2J\u009b", "row": "r", "framework": "maxtext",
      "model": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,
                "intermediate_size": 512, "vocab_size": 1000},
      "hardware": {"chip": "tpu-v99", "shape": [2, 2], "slices": 1},
      "parallelism": {"data": 4}, "global_batch": 8, "micro_batch": 8, "seq_len": 128,
      "recompute": "full", "measured": {"step_time_s": 1.5}}]})";
  const auto table = runCli({"validate", dir.string()});
  CHECK(table.code == 1);
  CHECK(table.out.find("0 of 1 runs predicted") != std::string::npos);
  CHECK(table.out.find("no MAPE") != std::string::npos);
  // The run id's terminal escapes (ESC and the C1 CSI) come out as text, on stdout and stderr.
  CHECK(table.err.find("bad-chip\\x1b[2J\\x9b: ") != std::string::npos);
  CHECK(table.out.find("bad-chip\\x1b[2J\\x9b") != std::string::npos);
  CHECK(table.out.find('\x1b') == std::string::npos);
  CHECK(table.err.find('\x1b') == std::string::npos);
  const auto json = runCli({"validate", dir.string(), "--format", "json"});
  CHECK(json.code == 1);
  CHECK(json.out.find("\"mape\": null") != std::string::npos);
  CHECK(json.out.find("\"failed\": 1") != std::string::npos);
  // Leave-one-source-out on it: nothing to fit, still the failure's exit status; the two fits
  // cannot be asked at once.
  const auto cv = runCli({"validate", dir.string(), "--cross-validate"});
  CHECK(cv.code == 1);
  CHECK(cv.out.find("out of sample (each source predicted from the others): 0 runs, MAPE -") != std::string::npos);
  CHECK(runCli({"validate", dir.string(), "--cross-validate", "--fit"}).code == 2);

  // A measured step of 5e-324 s is not a measurement (it gave "+inf%").
  std::ofstream(dir / "runs.json") << R"({"format": "shardscope-validation", "version": 1, "source": "test",
    "citation": "test", "runs": [{"id": "tiny", "row": "r", "framework": "maxtext",
      "model": {"model_type": "llama", "num_hidden_layers": 2, "hidden_size": 256, "num_attention_heads": 4,
                "intermediate_size": 512, "vocab_size": 1000},
      "hardware": {"chip": "v5e", "shape": [2, 2], "slices": 1},
      "parallelism": {"data": 4}, "global_batch": 8, "micro_batch": 8, "seq_len": 128,
      "recompute": "full", "measured": {"step_time_s": 5e-324}}]})";
  const auto tiny = runCli({"validate", dir.string()});
  CHECK(tiny.code != 0);
  CHECK(tiny.err.find("step_time_s") != std::string::npos);
  fs::remove_all(dir.parent_path());
}

TEST_CASE("inspect's free lines (flags, notes, names) reach the terminal as text", "[cli][inspect][security]") {
  const fs::path dir = scratchDir() / "inspect-escapes";
  fs::create_directories(dir);
  // The argument's name carries ESC [31m; it matches the workspace's weight (after its escape) and is
  // flagged as replicated, so the name is printed in the flag's line.
  std::ofstream(dir / "ws.json") << R"({"format": "shardscope-scenario", "version": 1, "name": "w",
    "topology": {"chip": "v4", "shape": [2, 2, 1]}, "mesh": {"axes": [{"name": "fsdp", "ici": 4}]},
    "model": {"params": [{"path": "params/decoder/mlp/wi/kernel", "shape": [1024, 4096], "dtype": "bfloat16"}]},
    "rules": {"rules": [["kernel$", ["fsdp", null]]]}, "training": {"batch_axes": ["fsdp"]}})";
  std::ofstream(dir / "p.mlir") << "module @m {\n  func.func public @main(%arg0: tensor<1024x4096xbf16> "
                                   "{jax.arg_info = \"\x1b[31mstate.params['decoder']['mlp']['wi']['kernel']\", "
                                   "mhlo.sharding = \"{replicated}\"}) -> (tensor<4xf32>) {\n"
                                   "    return %arg0 : tensor<4xf32>\n  }\n}\n";
  const auto run = runCli({"inspect", (dir / "p.mlir").string(), "--workspace", (dir / "ws.json").string()});
  INFO(run.err);
  REQUIRE(run.code == 0);
  CHECK(run.out.find("flag replicated_where_workspace_shards: \\x1b[31mstate.params") != std::string::npos);
  CHECK(run.out.find('\x1b') == std::string::npos);
}
