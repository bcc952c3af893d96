// SPDX-License-Identifier: Apache-2.0
// `shardscope-cli search`: the ranked table with the current layout, the rejected counts and the
// family lines; `--format json` as layoutSearchToJson; the options reaching the search; and the
// command-line and input errors with their exit status (2 usage, 1 input) and one stderr line.
#include "cli.hpp"
#include "cli/cli_run.hpp"
#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h> // getpid: a temp name per process, as ctest runs cases in parallel

using namespace shardscope;

namespace {
using Run = test::CliRun;
Run run(const cli::Args& args) { return test::runCli(args); }

// GPT-2 on a 16-chip v5e slice, 16 sequences of 1024 tokens, laid out fsdp:16.
std::string smallWorkspace() {
  const auto dir =
      std::filesystem::temp_directory_path() / ("shardscope-search-cli-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = dir / "gpt2-v5e16.shardscope.json";
  std::ofstream(file) << R"({"topology": {"chip": "v5e", "shape": [4, 4]},
    "mesh": {"axes": [{"name": "fsdp", "ici": 16}]}, "model": {"preset": "gpt2"},
    "rules": {"preset": "fsdp-tp"}, "training": {"micro_batch": 16, "seq_len": 1024}})";
  return file.string();
}

std::size_t lines(const std::string& text) {
  return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}
} // namespace

TEST_CASE("search prints the ranked table, the current layout, rejections and the families", "[cli][search]") {
  const Run r = run({"search", smallWorkspace(), "--top", "3"});
  REQUIRE(r.code == 0);
  CHECK(r.err.empty());
  // 16 = 2^4 over dp, fsdp, tp: 39 meshes with every order (test_layout_search counts them).
  CHECK(r.out.find("candidate layouts (") != std::string::npos);
  for (const char* column :
       {"rank", "mesh", "rules", "ZeRO", "recompute", "step", "MFU", "max memory / HBM", "bound by"})
    CHECK(r.out.find(column) != std::string::npos);
  CHECK(r.out.find("\n   1  ") != std::string::npos);
  CHECK(r.out.find("\n   3  ") != std::string::npos);
  CHECK(r.out.find("\n   4  ") == std::string::npos); // --top 3
  CHECK(r.out.find("\n now  fsdp:16 ") != std::string::npos);
  CHECK(r.out.find("why each family of layouts loses:") != std::string::npos);
  CHECK(r.out.find("  fsdp+tp: best is ") != std::string::npos);
  CHECK(r.out.find(" 0 JAX") == std::string::npos); // no reason is listed with a zero count
}

TEST_CASE("search --format json is the eval op's result and honours the options", "[cli][search]") {
  const Run r = run({"search", smallWorkspace(), "--axes", "fsdp,tp", "--max", "tp=2", "--zero", "0,1", "--recompute",
                     "selective,full", "--no-orders", "--presets", "fsdp-tp", "--top", "50", "--format", "json"});
  REQUIRE(r.code == 0);
  const Json j = Json::parse(r.out);
  // fsdp x tp with tp <= 2: (16, 1) and (8, 2), canonical order only; x 2 ZeRO stages x 2 policies.
  CHECK(j["candidates_total"] == 8);
  CHECK(j["merged"] == 0);
  REQUIRE(j["rows"].is_array());
  CHECK(j["rows"].size() == 8); // GPT-2 fits everywhere, and 16 sequences divide over fsdp 16 or 8
  for (const auto& row : j["rows"]) {
    CHECK(row["rules"] == "fsdp-tp");
    CHECK(row["axes"].value("tp", 1) <= 2);
    CHECK(row["axes"].contains("dp") == false);
  }
  // Full recompute re-runs the forward pass: never faster than selective on the same layout.
  CHECK(j["rows"][0]["recompute"] == "selective");
  CHECK(j["current"]["mesh"] == "fsdp:16");
  CHECK(j["families"].is_array());
}

TEST_CASE("search under --max-candidates says what it did not analyse", "[cli][search]") {
  // GPT-2 with 1 MiB of HBM per chip (the least a workspace may say): nothing fits. Without a cap the headline says so;
  // with a cap of 2 it must not claim the 37 other candidates fail: they were never analysed.
  const auto dir = std::filesystem::temp_directory_path() / ("shardscope-search-cli-cap-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const auto file = (dir / "tiny-hbm.shardscope.json").string();
  std::ofstream(file) << R"({"topology": {"chip": "v5e", "shape": [4, 4]},
    "mesh": {"axes": [{"name": "fsdp", "ici": 16}]}, "model": {"preset": "gpt2"},
    "rules": {"preset": "fsdp-tp"}, "training": {"micro_batch": 16, "seq_len": 1024, "hbm_bytes": 1048576}})";
  const Run all = run({"search", file, "--no-orders"});
  REQUIRE(all.code == 0);
  CHECK(all.out.find("no candidate layout fits in HBM\n") != std::string::npos);
  const Run capped = run({"search", file, "--no-orders", "--max-candidates", "2"});
  REQUIRE(capped.code == 0);
  // 15 canonical candidates (test_layout_search counts them), 2 analysed.
  CHECK(capped.out.find("no analysed candidate layout fits in HBM; 13 candidates over the limit were not analysed") !=
        std::string::npos);
  CHECK(capped.out.find("13 over the candidate limit") != std::string::npos);
  // The counts as numbers: 15 candidates, 2 analysed (both over HBM), 13 left.
  const Run json = run({"search", file, "--no-orders", "--max-candidates", "2", "--format", "json"});
  REQUIRE(json.code == 0);
  const Json j = Json::parse(json.out);
  CHECK(j["candidates_total"].get<std::int64_t>() == 15);
  CHECK(j["evaluated"].get<std::int64_t>() == 2);
  CHECK(j["rejected"]["does not fit in HBM"].get<std::int64_t>() == 2);
  CHECK(j["rejected"]["over the candidate limit"].get<std::int64_t>() == 13);
  std::filesystem::remove_all(dir);
}

TEST_CASE("search refuses a wrong command line with exit 2 and bad input with exit 1", "[cli][search]") {
  const std::string ws = smallWorkspace();
  struct Case {
    cli::Args args;
    int code;
    const char* says;
  };
  const Case cases[] = {
      {{"search", ws, "--top", "0"}, 2, "--top must be an integer from 1 to 10000, got '0'"},
      {{"search", ws, "--top", "ten"}, 2, "--top must be an integer from 1 to 10000, got 'ten'"},
      {{"search", ws, "--max-candidates", "0"}, 2, "--max-candidates must be an integer from 1 to 1000000, got '0'"},
      {{"search", ws, "--tops", "3"}, 2, "unknown option --tops"},
      {{"search", ws, "--axes", "fsdp,,tp"}, 2, "--axes has an empty entry"},
      {{"search", ws, "--max", "tp"}, 2, "--max entries are AXIS=N, got 'tp'"},
      {{"search", ws, "--max", "tp=0"}, 2, "--max tp must be an integer"},
      {{"search", ws, "--zero", "3"}, 2, "--zero stages are 0, 1 or 2, got '3'"},
      {{"search", ws, "--recompute", "some"}, 2, "--recompute: unknown policy 'some' (none, selective, full, minimal"},
      {{"search", ws, "--presets", "nope"}, 2, "'nope' is not a rule preset"},
      {{"search", ws, "--format", "csv"}, 2, "--format must be table or json"},
      // The same entry twice would evaluate the same candidates twice.
      {{"search", ws, "--zero", "0,1,0"}, 2, "--zero lists '0' twice in '0,1,0'"},
      {{"search", ws, "--presets", "fsdp,fsdp"}, 2, "--presets lists 'fsdp' twice"},
      {{"search", ws, "--recompute", "full,full"}, 2, "--recompute lists 'full' twice"},
      {{"search", ws, ws}, 2, "only 1 workspace file"},
      // The search itself refuses these: the command line is well formed, the input is not usable.
      {{"search", ws, "--axes", "pp"}, 1, "ValueError: search: axis 'pp' is not a role the search knows"},
      {{"search", ws, "--axes", "dp,tp", "--max", "dp=2,tp=2"}, 1, "no way to split 16 devices"},
      // A limit on an axis the search does not split over would be ignored without a word.
      {{"search", ws, "--axes", "dp,fsdp", "--max", "tp=8"},
       1,
       "search: max limits axis 'tp', which is not searched over (axes: dp, fsdp)"},
      {{"search", ws, "--axes", "dp,fsdp", "--max", "zz=8"}, 1, "max limits axis 'zz', which is not searched over"},
      {{"search", "/no/such/workspace.json"}, 1, "shardscope-cli search: "},
      // A pipeline would be dropped without a word and its rows compared at other tokens per step.
      {{"search", SHARDSCOPE_SOURCE_DIR "/resources/scenarios/llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json"},
       1,
       "search: the workspace runs a pipeline over 'pp'"},
  };
  for (const auto& c : cases) {
    INFO(c.args.back());
    const Run r = run(c.args);
    CHECK(r.code == c.code);
    CHECK(r.out.empty());
    CHECK(r.err.find(c.says) != std::string::npos);
    CHECK(lines(r.err) == 1);
  }
}

TEST_CASE("search --help and the command list name it", "[cli][search]") {
  const Run help = run({"search", "--help"});
  CHECK(help.code == 0);
  CHECK(help.out.find("Usage: shardscope-cli search [WORKSPACE.json]") != std::string::npos);
  const Run all = run({"--help"});
  CHECK(all.out.find("  search ") != std::string::npos);
  const Run topic = run({"help", "search"});
  CHECK(topic.code == 0);
  CHECK(topic.out.find("ranked by step time") != std::string::npos);
}
