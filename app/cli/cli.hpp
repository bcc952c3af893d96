// SPDX-License-Identifier: Apache-2.0
// shardscope-cli: each subcommand is a function over argv that writes to the given streams and
// returns the exit code, so tests run them in-process.
#pragma once

#include <iosfwd>
#include <string>
#include <vector>

namespace shardscope::cli {

using Args = std::vector<std::string>;

struct Streams {
  std::istream& in;
  std::ostream& out;
  std::ostream& err;
};

// Dispatches `shardscope-cli SUBCOMMAND ARGS...`; args excludes the program name.
int run(const Args& args, Streams io);

// Adds a subcommand implemented outside this library, called by an executable's main() before
// run(). It keeps the library Qt-free: the Qt-based `render` command registers itself this way
// only in builds with the GUI.
using CommandFunction = int (*)(const Args&, Streams);
void registerCommand(const std::string& name, CommandFunction run, const char* summary);

// Subcommands (one file each).
int runEval(const Args& args, Streams io);
int runShard(const Args& args, Streams io);
int runStep(const Args& args, Streams io);
int runHelpTopic(const Args& args, Streams io);
int runComm(const Args& args, Streams io);
int runPipeline(const Args& args, Streams io);
int runSearch(const Args& args, Streams io);
int runTopology(const Args& args, Streams io);
int runValidate(const Args& args, Streams io);
int runExport(const Args& args, Streams io);
int runLesson(const Args& args, Streams io);
int runDecodeSharding(const Args& args, Streams io);
int runInspect(const Args& args, Streams io);

} // namespace shardscope::cli
