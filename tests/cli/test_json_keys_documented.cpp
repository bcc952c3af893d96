// SPDX-License-Identifier: Apache-2.0
// Every key the JSON answers carry is named somewhere in docs/ (the glossary or the command's own
// page): the answers of shard (every example, per device), step, comm, search, pipeline, validate,
// lesson and inspect. Keys that are data (a rejection reason as a map key) hold spaces and are skipped.
#include "cli_run.hpp"

#include "shardscope/base/json.hpp"

#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

using namespace shardscope;
using test::runCli;

namespace {

void collectKeys(const Json& j, std::set<std::string>& keys) {
  if (j.is_object()) {
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key().find(' ') == std::string::npos) keys.insert(it.key());
      collectKeys(it.value(), keys);
    }
  } else if (j.is_array()) {
    for (const auto& v : j) collectKeys(v, keys);
  }
}

std::string allDocs() {
  std::string text;
  for (const auto& entry : std::filesystem::directory_iterator(std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "docs")) {
    if (entry.path().extension() != ".md") continue;
    std::ifstream in(entry.path());
    std::stringstream s;
    s << in.rdbuf();
    text += s.str();
  }
  return text;
}

} // namespace

TEST_CASE("every JSON key the commands write appears in docs/", "[cli][docs]") {
  const std::filesystem::path examples = std::filesystem::path(SHARDSCOPE_SOURCE_DIR) / "resources" / "scenarios";
  std::vector<cli::Args> commands;
  for (const auto& entry : std::filesystem::directory_iterator(examples))
    commands.push_back({"shard", entry.path().string(), "--format", "json", "--per-device"});
  commands.push_back({"step", "--format", "json"});
  commands.push_back({"comm", "--format", "json", "--bytes", "1e9"});
  commands.push_back({"search", "--format", "json", "--top", "3", "--no-orders"});
  commands.push_back(
      {"pipeline", (examples / "llama-3.1-70b-pipeline-h100-4-hosts.shardscope.json").string(), "--format", "json"});
  commands.push_back({"validate", "--format", "json"});
  commands.push_back({"validate", "--cross-validate", "--format", "json"});
  commands.push_back({"lesson", "fsdp", "--format", "json"});
  const std::string inspect = std::string(SHARDSCOPE_TEST_DATA) + "/inspect/";
  commands.push_back({"inspect", inspect + "h05_tuple_sharding_spmd_input.hlo", "--mesh", "x:2", "--format", "json"});
  commands.push_back({"inspect", inspect + "s08_shardy_tensor_sharding_parse_print.mlir", "--format", "json"});
  commands.push_back({"inspect", inspect + "o15_xla_docs_message_samples.txt", "--format", "json"});
  std::set<std::string> keys;
  for (const auto& args : commands) {
    const auto run = runCli(args);
    INFO(args.front() << ": " << run.err);
    REQUIRE(run.code == 0);
    collectKeys(Json::parse(run.out), keys);
  }
  REQUIRE(keys.size() > 150);
  const std::string docs = allDocs();
  std::vector<std::string> missing;
  for (const auto& key : keys) {
    const std::regex word("(^|[^A-Za-z0-9_])" +
                          std::regex_replace(key, std::regex(R"([.^$|()\[\]{}*+?\\])"), R"(\$&)") +
                          "($|[^A-Za-z0-9_])");
    if (!std::regex_search(docs, word)) missing.push_back(key);
  }
  for (const auto& key : missing) UNSCOPED_INFO("undocumented JSON key: " << key);
  CHECK(missing.empty());
}
