// SPDX-License-Identifier: Apache-2.0
// The one option parser of shardscope-cli and the one error path: nothing on the command line is
// silently ignored, and every failure is one line on stderr with exit status 2 (command line) or 1
// (input).
#include "cli.hpp"
#include "cli/cli_run.hpp"
#include "cli_options.hpp"

#include <catch2/catch.hpp>

#include <algorithm>
#include <sstream>

using namespace shardscope;
using namespace shardscope::cli;

namespace {
constexpr Flag kFlags[] = {{"--mesh"}, {"--format"}, {"--twisted", false}};

using Run = test::CliRun;
Run run(const cli::Args& args) { return test::runCli(args); }
} // namespace

TEST_CASE("the option parser reads values, switches and positionals", "[cli][options]") {
  const ParsedArgs a = parseArgs({"ws.json", "--mesh", "fsdp:-1", "--twisted", "--format=json"}, kFlags, 1, "file");
  CHECK(a.value("--mesh") == "fsdp:-1");
  CHECK(a.value("--format") == "json");
  CHECK(a.has("--twisted"));
  CHECK_FALSE(a.has("--nothing"));
  CHECK(a.valueOr("--nothing", "table") == "table");
  CHECK(a.positionals() == std::vector<std::string>{"ws.json"});
  // A value may start with one dash (a negative size), not with two (the next option).
  CHECK(parseArgs({"--mesh", "-1"}, kFlags).value("--mesh") == "-1");
  CHECK(parseArgs({}, kFlags).positionals().empty());
}

TEST_CASE("the option parser refuses what it would otherwise ignore", "[cli][options]") {
  CHECK_THROWS_WITH(parseArgs({"--frob"}, kFlags), "unknown option --frob");
  CHECK_THROWS_WITH(parseArgs({"--frob=1"}, kFlags), "unknown option --frob");
  CHECK_THROWS_WITH(parseArgs({"--mesh", "a:2", "--mesh", "b:2"}, kFlags), "option --mesh given twice");
  CHECK_THROWS_WITH(parseArgs({"--twisted", "--twisted"}, kFlags), "option --twisted given twice");
  CHECK_THROWS_WITH(parseArgs({"--mesh"}, kFlags), "option --mesh needs a value");
  CHECK_THROWS_WITH(parseArgs({"--mesh", "--twisted"}, kFlags), "option --mesh needs a value");
  CHECK_THROWS_WITH(parseArgs({"--mesh", ""}, kFlags), "option --mesh needs a value, got an empty one");
  CHECK_THROWS_WITH(parseArgs({"--mesh="}, kFlags), "option --mesh needs a value, got an empty one");
  CHECK_THROWS_WITH(parseArgs({"--twisted=yes"}, kFlags), "option --twisted takes no value");
  CHECK_THROWS_WITH(parseArgs({"a.json", "b.json"}, kFlags, 1, "workspace file"),
                    "only 1 workspace file may be given, got 'a.json' and 'b.json'");
  CHECK_THROWS_WITH(parseArgs({"stray"}, kFlags), "unexpected argument 'stray'");
  CHECK_THROWS_AS(parseArgs({"-x"}, kFlags), UsageError);
}

TEST_CASE("every command reports a command-line mistake the same way, exit 2", "[cli][options]") {
  for (const char* command : {"shard", "comm", "topology", "eval"}) {
    const Run r = run({command, "--frob"});
    INFO(command);
    CHECK(r.code == 2);
    CHECK(r.err == std::string("shardscope-cli ") + command + ": unknown option --frob (see shardscope-cli " + command +
                       " --help)\n");
    CHECK(r.out.empty());
  }
  // Issue 13: eval ignored its arguments.
  const Run extra = run({"eval", "requests.jsonl"});
  CHECK(extra.code == 2);
  CHECK(extra.err.find("unexpected argument 'requests.jsonl'") != std::string::npos);
  // A repeated flag is refused rather than the last one silently winning.
  const Run twice = run({"comm", "--topology", "v4:4x4x8", "--mesh", "x:128", "--mesh", "x:-1"});
  CHECK(twice.code == 2);
  CHECK(twice.err.find("option --mesh given twice") != std::string::npos);
}

TEST_CASE("an input that cannot be analysed is one typed line and exit 1", "[cli][options]") {
  const Run r = run({"topology", "v9", "4x4"});
  CHECK(r.code == 1);
  CHECK(r.err.rfind("shardscope-cli topology: ValueError: ", 0) == 0);
  CHECK(r.err.find("'v9'") != std::string::npos);
  CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
}
